package prealloc

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

const mib = 1 << 20

// scratch is a private directory on $PREALLOC_TEST_DIR (the CI script
// mounts a loop ext4 there when it runs as root) or the temp dir.
func scratch(t *testing.T) string {
	t.Helper()
	base := os.Getenv("PREALLOC_TEST_DIR")
	if base == "" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp(base, "prealloc-go-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func create(t *testing.T, dir string) *os.File {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, "seg"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func size(t *testing.T, f *os.File) int64 {
	t.Helper()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

func TestFileWritten(t *testing.T) {
	f := create(t, scratch(t))
	rep, err := File(f, 0, 4*mib, nil)
	if err != nil || !rep.Written || rep.BytesZeroed != 4*mib || rep.FailedPhase != PhaseNone || rep.LockError != nil {
		t.Fatalf("%v %+v", err, rep)
	}
	if size(t, f) != 4*mib {
		t.Fatal("not extended")
	}
	c, err := Verify(f, 0, 4*mib)
	if err != nil || (c.Fiemap && c.WrittenBytes != 4*mib) {
		t.Fatalf("%v %+v", err, c)
	}
}

// The difference the library exists for, and proof the census can fail.
func TestFallocateLeavesUnwritten(t *testing.T) {
	f := create(t, scratch(t))
	if err := syscall.Fallocate(int(f.Fd()), 0, 0, mib); err != nil {
		t.Fatal(err)
	}
	c, err := Verify(f, 0, mib)
	if err != nil || (c.Fiemap && c.UnwrittenBytes != mib) {
		t.Fatalf("%v %+v", err, c)
	}
}

func TestErrorsAreErrno(t *testing.T) {
	dir := scratch(t)
	create(t, dir)
	ro, err := os.Open(filepath.Join(dir, "seg"))
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := File(ro, 0, mib, nil); !errors.Is(err, syscall.EBADF) {
		t.Fatalf("read-only: %v", err)
	}
	if _, err := File(ro, 0, 0, nil); !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("empty: %v", err)
	}
}

// ENOSPC from the free-space check: the report names the phase, the file
// is as it was.
func TestENOSPCReportsPhase(t *testing.T) {
	f := create(t, scratch(t))
	rep, err := File(f, 0, 1<<43, nil)
	if !errors.Is(err, syscall.ENOSPC) || rep.FailedPhase != PhaseSpaceCheck || rep.FailedStep != StepSpaceCheck ||
		rep.UndoError != nil {
		t.Fatalf("%v %+v", err, rep)
	}
	if size(t, f) != 0 {
		t.Fatal("size changed")
	}
	if PhaseSpaceCheck.String() != "space-check" || MethodUring.String() != "uring" ||
		MethodAio.String() != "aio" || WriteZeroesFsRefused.String() != "fs-refused" ||
		WriteZeroes(99).String() != "unknown(99)" {
		t.Fatal("names")
	}
}

// A forced method is used alone: the planner never weighed the kernel flag.
func TestForcedMethodDoesNotWeighWriteZeroes(t *testing.T) {
	f := create(t, scratch(t))
	rep, err := File(f, 0, 1<<20, &Options{Method: MethodBuffered})
	if err != nil || rep.Method != MethodBuffered || rep.WriteZeroes != WriteZeroesNotWeighed {
		t.Fatalf("%v %+v", err, rep)
	}
}

// etcd's semantics: extendFile false keeps the size, true grows it; data
// stays; size 0 does nothing.
func TestPreallocateLikeEtcd(t *testing.T) {
	f := create(t, scratch(t))
	if _, err := f.Write([]byte("record")); err != nil {
		t.Fatal(err)
	}
	if err := Preallocate(f, 0, true); err != nil || size(t, f) != 6 {
		t.Fatalf("zero size: %v", err)
	}
	if err := Preallocate(f, mib, false); err != nil || size(t, f) != 6 {
		t.Fatalf("keep size: %v %d", err, size(t, f))
	}
	if err := Preallocate(f, mib, true); err != nil || size(t, f) != mib {
		t.Fatalf("extend: %v %d", err, size(t, f))
	}
	got := make([]byte, mib)
	if _, err := f.ReadAt(got, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got[:6], []byte("record")) || bytes.ContainsFunc(got[6:], func(r rune) bool { return r != 0 }) {
		t.Fatal("data not kept or not zero")
	}
	c, err := Verify(f, 0, mib)
	if err != nil || (c.Fiemap && c.WrittenBytes != mib) {
		t.Fatalf("%v %+v", err, c)
	}
}

func TestProbe(t *testing.T) {
	f := create(t, scratch(t))
	p, err := NewProbe(f, 0, mib, nil)
	if err != nil {
		t.Fatal(err)
	}
	facts, err := p.Facts()
	if err != nil || len(facts) == 0 {
		t.Fatalf("%v %d", err, len(facts))
	}
	for _, fact := range facts {
		if got, err := p.Lookup(fact.Name); err != nil || got != fact {
			t.Fatalf("%s: %v %+v %+v", fact.Name, err, got, fact)
		}
	}
	if _, err := p.Lookup("no.such.fact"); !errors.Is(err, syscall.ENOENT) {
		t.Fatalf("lookup: %v", err)
	}
	if plan, err := p.Plan(); err != nil || len(plan) == 0 {
		t.Fatalf("plan: %v %v", err, plan)
	}
	steps, err := p.Steps()
	if err != nil || len(steps) == 0 || steps[len(steps)-1].Action != ActionSync {
		t.Fatalf("steps: %v %v", err, steps)
	}
	if _, _, err := p.ZeroingOffloaded(); err != nil {
		t.Fatal(err)
	}
	p.Close()
	if _, err := p.Facts(); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
}

func TestPool(t *testing.T) {
	dir := scratch(t)
	pool, err := OpenPool(dir, PoolConfig{SegmentSize: mib, Target: 2, FullSpeed: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := pool.WaitReady(2, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenPool(dir, PoolConfig{SegmentSize: mib}); !errors.Is(err, syscall.EBUSY) {
		t.Fatalf("second open: %v", err)
	}
	// Two goroutines take at once; each gets its own segment.
	var wg sync.WaitGroup
	files := make([]*os.File, 2)
	errs := make([]error, 2)
	for i := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			files[i], errs[i] = pool.Take(filepath.Join(dir, "wal-"+itoa(uint64(i))), syscall.O_DSYNC)
		}()
	}
	wg.Wait()
	for i, f := range files {
		if errs[i] != nil || size(t, f) != mib {
			t.Fatalf("take %d: %v", i, errs[i])
		}
		f.Close()
	}
	st, err := pool.Stats()
	if err != nil || st.Hits != 2 {
		t.Fatalf("%v %+v", err, st)
	}
	if _, err := pool.Take(filepath.Join(dir, "wal-0"), 0); !errors.Is(err, syscall.EEXIST) {
		t.Fatalf("existing name: %v", err)
	}
	if err := pool.Recycle(filepath.Join(dir, "wal-0"), true); err != nil {
		t.Fatal(err)
	}
	pool.Close()
	if _, err := pool.Take(filepath.Join(dir, "wal-2"), 0); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
}

// A flock() of the application's own on the file: the call goes on,
// ordered with this process's calls only, and LockError says why.
func TestLockErrorNamesAForeignFlock(t *testing.T) {
	f := create(t, scratch(t))
	holder, err := os.Open(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(holder.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	rep, err := File(f, 0, mib, nil)
	if err != nil || !errors.Is(rep.LockError, syscall.EDEADLK) {
		t.Fatalf("%v %+v", err, rep)
	}
	holder.Close()
	if rep, err = File(f, 0, mib, nil); err != nil || rep.LockError != nil {
		t.Fatalf("%v %+v", err, rep)
	}
}

// TakeNowait on an empty pool refuses instead of making a segment.
func TestPoolTakeNowait(t *testing.T) {
	dir := scratch(t)
	pool, err := OpenPool(dir, PoolConfig{SegmentSize: mib})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	name := filepath.Join(dir, "wal-1")
	if _, err := pool.TakeNowait(name, 0); !errors.Is(err, syscall.EAGAIN) {
		t.Fatalf("nowait on an empty pool: %v", err)
	}
	if st, err := pool.Stats(); err != nil || st.Misses != 0 {
		t.Fatalf("%v %+v", err, st)
	}
	f, err := pool.Take(name, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

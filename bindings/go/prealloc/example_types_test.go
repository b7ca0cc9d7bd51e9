package prealloc_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/libprealloc/libprealloc/bindings/go/prealloc"
)

// tempFile is a new empty file in a new directory, removed by the returned
// function.
func tempFile() (*os.File, func()) {
	dir, err := os.MkdirTemp("", "prealloc-example")
	if err != nil {
		log.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "segment"))
	if err != nil {
		log.Fatal(err)
	}
	return f, func() { f.Close(); os.RemoveAll(dir) }
}

// Methods print as the library names them, as the tool's --method takes them.
func ExampleMethod() {
	fmt.Println(prealloc.MethodWriteZeroes, prealloc.MethodUring, prealloc.MethodBuffered)
	// Output: write-zeroes uring buffered
}

// The report says what became of the kernel's FALLOC_FL_WRITE_ZEROES: a
// forced method is used alone, so the flag was never weighed.
func ExampleWriteZeroes() {
	f, done := tempFile()
	defer done()
	rep, err := prealloc.File(f, 0, 1<<20, &prealloc.Options{Method: prealloc.MethodBuffered})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep.WriteZeroes, prealloc.WriteZeroesFsRefused)
	// Output: not-weighed fs-refused
}

// A failed call says in which phase: out of space at the space check means
// nothing was changed.
func ExamplePhase() {
	f, done := tempFile()
	defer done()
	rep, err := prealloc.File(f, 0, 1<<60, nil)
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EFBIG) {
		fmt.Println("failed at", rep.FailedPhase)
	}
	// Output: failed at space-check
}

// Step is the old name of Phase: code written for 0.4 still compiles.
func ExampleStep() {
	var s prealloc.Step = prealloc.StepSpaceCheck
	fmt.Println(s == prealloc.PhaseSpaceCheck, s)
	// Output: true space-check
}

// Options for recycling a segment beside live traffic: its old bytes are
// zeroed too, at no more than 64 MiB/s.
func ExampleOptions() {
	f, done := tempFile()
	defer done()
	opts := &prealloc.Options{ZeroData: true, Background: true, MaxRate: 64 << 20}
	if _, err := prealloc.File(f, 0, 1<<20, opts); err != nil {
		log.Fatal(err)
	}
	st, _ := f.Stat()
	fmt.Println(st.Size())
	// Output: 1048576
}

// The report says how the range was made and what it cost.
func ExampleReport() {
	f, done := tempFile()
	defer done()
	rep, err := prealloc.File(f, 0, 4<<20, nil)
	if err != nil {
		log.Fatal(err)
	}
	var covered uint64
	for _, b := range rep.BytesByMethod {
		covered += b
	}
	fmt.Println("covered:", covered == 4<<20, "kept:", rep.BytesKept)
	// Output: covered: true kept: 0
}

// Verify's census after File: no hole and nothing unwritten is left.
func ExampleCensus() {
	f, done := tempFile()
	defer done()
	if _, err := prealloc.File(f, 0, 1<<20, nil); err != nil {
		log.Fatal(err)
	}
	c, err := prealloc.Verify(f, 0, 1<<20)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("holes:", c.HoleBytes, "unwritten:", c.UnwrittenBytes)
	// Output: holes: 0 unwritten: 0
}

// A fact's value is read according to its type.
func ExampleFactType() {
	f, done := tempFile()
	defer done()
	p, err := prealloc.NewProbe(f, 0, 0, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	facts, _ := p.Facts()
	for _, fact := range facts {
		switch fact.Type {
		case prealloc.FactString:
			fmt.Printf("%s: %s\n", fact.Name, fact.String)
		case prealloc.FactFlags:
			fmt.Printf("%s: %#x\n", fact.Name, fact.Number)
		case prealloc.FactNull:
			fmt.Printf("%s: unknown\n", fact.Name)
		default:
			fmt.Printf("%s: %d\n", fact.Name, fact.Number)
		}
	}
	// Not run: the facts depend on the storage.
}

// One fact by name.
func ExampleFact() {
	f, done := tempFile()
	defer done()
	p, err := prealloc.NewProbe(f, 0, 0, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	fact, err := p.Lookup("kind")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(fact.Name, fact.String)
	// Output: kind file
}

// Whether the device zeroes by unmapping may be unknown (no privileges to
// ask it): the fact that decided says why.
func ExampleAnswer() {
	f, done := tempFile()
	defer done()
	p, err := prealloc.NewProbe(f, 0, 1<<30, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	answer, why, _ := p.ZeroingOffloaded()
	switch answer {
	case prealloc.Yes:
		fmt.Println("the device zeroes:", why)
	case prealloc.No:
		fmt.Println("zeros are written:", why)
	case prealloc.Unknown:
		fmt.Println("cannot tell:", why)
	}
	// Not run: the answer depends on the storage.
}

// A plan's steps by action: the sync comes last.
func ExampleAction() {
	f, done := tempFile()
	defer done()
	p, err := prealloc.NewProbe(f, 0, 1<<20, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	steps, err := p.Steps()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(steps[len(steps)-1].Action == prealloc.ActionSync)
	// Output: true
}

// The steps File would take, with the bytes each covers.
func ExamplePlanStep() {
	f, done := tempFile()
	defer done()
	p, err := prealloc.NewProbe(f, 0, 1<<20, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	steps, _ := p.Steps()
	for _, s := range steps {
		fmt.Printf("action %d by %v: [%d, +%d)\n", s.Action, s.Method, s.Offset, s.Length)
	}
	// Not run: the steps depend on the storage.
}

// Log at start-up why segments will be made the way they will.
func ExampleProbe() {
	f, done := tempFile()
	defer done()
	p, err := prealloc.NewProbe(f, 0, 16<<20, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	plan, err := p.Plan()
	if err != nil {
		log.Fatal(err)
	}
	n, _ := p.DeviceCount()
	fmt.Printf("16 MiB segments: %v over %d devices, because %s\n", plan, n, p.PlanReason())
	// Not run: the plan depends on the storage.
}

// Segments of 1 MiB, two kept ready, never the last 10 GiB of the
// filesystem, made at no more than 100 MB/s.
func ExamplePoolConfig() {
	dir, _ := os.MkdirTemp("", "pool")
	defer os.RemoveAll(dir)
	cfg := prealloc.PoolConfig{SegmentSize: 1 << 20, Target: 2, FreeFloor: 10 << 30,
		MaxRate: 100_000_000}
	pool, err := prealloc.OpenPool(dir, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	fmt.Println(pool.WaitReady(2, time.Minute) == nil)
	// Not run: a filesystem with less than 10 GiB free keeps none ready.
}

// Hits and misses say whether the pool keeps up with the takes.
func ExamplePoolStats() {
	dir, _ := os.MkdirTemp("", "pool")
	defer os.RemoveAll(dir)
	pool, err := prealloc.OpenPool(dir, prealloc.PoolConfig{SegmentSize: 1 << 20, Target: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	if err := pool.WaitReady(1, time.Minute); err != nil {
		log.Fatal(err)
	}
	seg, err := pool.Take(filepath.Join(dir, "wal-1"), 0)
	if err != nil {
		log.Fatal(err)
	}
	seg.Close()
	st, err := pool.Stats()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("hits:", st.Hits, "misses:", st.Misses)
	// Output: hits: 1 misses: 0
}

// A segment whose records are no longer needed goes back into the pool
// under a new name, zeroed again, instead of being deleted.
func ExamplePool() {
	dir, _ := os.MkdirTemp("", "pool")
	defer os.RemoveAll(dir)
	pool, err := prealloc.OpenPool(dir, prealloc.PoolConfig{SegmentSize: 1 << 20, Target: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	seg, err := pool.Take(filepath.Join(dir, "wal-1"), 0)
	if err != nil {
		log.Fatal(err)
	}
	seg.WriteString("a record")
	seg.Close()
	if err := pool.Recycle(filepath.Join(dir, "wal-1"), true); err != nil {
		log.Fatal(err)
	}
	if err := pool.WaitReady(1, time.Minute); err != nil {
		log.Fatal(err)
	}
	_, err = os.Stat(filepath.Join(dir, "wal-1"))
	fmt.Println("wal-1 gone:", errors.Is(err, os.ErrNotExist))
	// Output: wal-1 gone: true
}

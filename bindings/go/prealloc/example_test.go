package prealloc_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/libprealloc/libprealloc/bindings/go/prealloc"
)

// A 16 MiB WAL segment, allocated, written and durable before the first
// commit record goes into it.
func ExampleFile() {
	dir, _ := os.MkdirTemp("", "wal")
	defer os.RemoveAll(dir)
	f, err := os.Create(filepath.Join(dir, "000000010000000000000001"))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	rep, err := prealloc.File(f, 0, 16<<20, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("written:", rep.Written || rep.Cow)
	// Output: written: true
}

// The one-line change for code that calls etcd's fileutil.Preallocate.
func ExamplePreallocate() {
	dir, _ := os.MkdirTemp("", "wal")
	defer os.RemoveAll(dir)
	f, _ := os.Create(filepath.Join(dir, "0000000000000000-0000000000000000.wal"))
	defer f.Close()
	if err := prealloc.Preallocate(f, 64<<20, true); err != nil {
		log.Fatal(err)
	}
	st, _ := f.Stat()
	fmt.Println(st.Size())
	// Output: 67108864
}

// Ask before doing: what the library would do for a 1 GiB request.
func ExampleNewProbe() {
	f, _ := os.CreateTemp("", "probe")
	defer os.Remove(f.Name())
	defer f.Close()
	p, err := prealloc.NewProbe(f, 0, 1<<30, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	answer, why, _ := p.ZeroingOffloaded()
	plan, _ := p.Plan()
	fmt.Printf("offloaded: %v (%s); plan: %v\n", answer == prealloc.Yes, why, plan)
	// Not run: the answer depends on the storage.
}

// A pool of ready segments: the switch to a new segment is a rename.
func ExampleOpenPool() {
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
	defer seg.Close()
	st, _ := seg.Stat()
	fmt.Println(st.Size())
	// Output: 1048576
}

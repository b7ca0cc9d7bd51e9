// Package bench compares a segment prepared by etcd's fileutil.Preallocate
// (what Go databases call today) with one prepared by prealloc.Preallocate,
// then written 4 KiB at a time with fdatasync after each write.  Run by
// bindings/bench.sh with PREALLOC_BENCH_DIR set; skipped otherwise.
package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/libprealloc/libprealloc/bindings/go/prealloc"
	"go.etcd.io/etcd/client/pkg/v3/fileutil"
)

var methods = map[string]func(*os.File, int64, bool) error{
	"etcd":     fileutil.Preallocate,
	"prealloc": prealloc.Preallocate,
}

func segmentSize() int64 {
	n, err := strconv.ParseInt(os.Getenv("PREALLOC_BENCH_SEGMENT"), 10, 64)
	if err != nil || n <= 0 {
		return 64 << 20
	}
	return n
}

func newSegment(b *testing.B, name string) *os.File {
	dir := os.Getenv("PREALLOC_BENCH_DIR")
	if dir == "" {
		b.Skip("PREALLOC_BENCH_DIR not set (bindings/bench.sh sets it)")
	}
	f, err := os.OpenFile(filepath.Join(dir, "segment-go-"+name), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	return f
}

func remove(b *testing.B, f *os.File) {
	f.Close()
	if err := os.Remove(f.Name()); err != nil {
		b.Fatal(err)
	}
}

// Time to prepare one segment.
func BenchmarkPrepare(b *testing.B) {
	for name, prepare := range methods {
		b.Run(name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				f := newSegment(b, name)
				b.StartTimer()
				if err := prepare(f, segmentSize(), true); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				remove(b, f)
				b.StartTimer()
			}
		})
	}
}

// One 4 KiB write plus fdatasync into a prepared segment; a new segment
// (prepared outside the timer) when one is full.
func BenchmarkWriteSync(b *testing.B) {
	block := make([]byte, 4096)
	for name, prepare := range methods {
		b.Run(name, func(b *testing.B) {
			var f *os.File
			off, size := int64(0), segmentSize()
			for range b.N {
				if f == nil || off == size {
					b.StopTimer()
					if f != nil {
						remove(b, f)
					}
					f, off = newSegment(b, name), 0
					if err := prepare(f, size, true); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				if _, err := f.WriteAt(block, off); err != nil {
					b.Fatal(err)
				}
				if err := syscall.Fdatasync(int(f.Fd())); err != nil {
					b.Fatal(err)
				}
				off += int64(len(block))
			}
			b.StopTimer()
			remove(b, f)
		})
	}
}

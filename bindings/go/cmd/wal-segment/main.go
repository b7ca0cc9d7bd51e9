// Command wal-segment creates a WAL segment (16 MiB unless a size in bytes
// is given) the way a database would: allocated, written and durable before
// the first commit record goes into it, so every later synced write is a
// pure overwrite.
//
//	go run ./cmd/wal-segment /path/to/wal/000000010000000000000001 [BYTES]
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/libprealloc/libprealloc/bindings/go/prealloc"
)

const walSegmentSize = 16 << 20

func usage() {
	fmt.Fprintln(os.Stderr, "usage: wal-segment SEGMENT [BYTES]")
	os.Exit(2)
}

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		usage()
	}
	size := int64(walSegmentSize)
	if len(os.Args) == 3 {
		n, err := strconv.ParseInt(os.Args[2], 10, 64)
		if err != nil || n <= 0 {
			usage()
		}
		size = n
	}
	path := os.Args[1]
	seg, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r, err := prealloc.File(seg, 0, size, nil)
	seg.Close()
	if err != nil {
		os.Remove(path)
		fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
		os.Exit(1)
	}
	state := "reserved only"
	if r.Written {
		state = "written"
	}
	fmt.Printf("%s: %v, %s, %v\n", path, r.Method, state, r.Elapsed)
}

// SPDX-License-Identifier: MIT
//
// The Go program for `prealloc exec` (tests/fs/test-exec.c): its calls are
// raw system calls, from any of its threads, as etcd's are.
//
//	exec-target-go all DIR   data (with a record lock kept), keep, hole,
//	                         small, from goroutines, and an exec'd child
//	exec-target-go one FILE  fallocate(FILE, 0, 0, 4 MiB)
//
// Exit 0 when every call returned what it should.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
)

const mib = 1 << 20

func create(path string) *os.File {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0644)
	if err != nil {
		fail(err)
	}
	return f
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "exec-target-go:", err)
	os.Exit(1)
}

func fallocate(path string, mode uint32, length int64) {
	if err := syscall.Fallocate(int(create(path).Fd()), mode, 0, length); err != nil {
		fail(err)
	}
}

// The record lock on [0, 100) of dir/data, seen from a child process.
func lockOwner(dir string) int {
	out, err := exec.Command(os.Args[0], "owner", filepath.Join(dir, "data")).Output()
	if err != nil {
		fail(err)
	}
	var pid int
	fmt.Sscan(string(out), &pid)
	return pid
}

func all(dir string) {
	f := create(filepath.Join(dir, "data"))
	f.WriteAt(make([]byte, 4096), 0)
	f.WriteAt([]byte("DDDD"), 0)
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: 0, Len: 100}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk); err != nil {
		fail(err)
	}
	if err := syscall.Fallocate(int(f.Fd()), 0, 0, 8*mib); err != nil {
		fail(err)
	}
	if lockOwner(dir) != os.Getpid() {
		fail(fmt.Errorf("the record lock is gone"))
	}
	fallocate(filepath.Join(dir, "keep"), 1 /* FALLOC_FL_KEEP_SIZE */, 8*mib)
	h := create(filepath.Join(dir, "hole"))
	h.WriteAt(make([]byte, mib), 0)
	if err := syscall.Fallocate(int(h.Fd()), 3 /* PUNCH_HOLE|KEEP_SIZE */, 256<<10, 256<<10); err != nil {
		fail(err)
	}
	fallocate(filepath.Join(dir, "small"), 0, 64<<10)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			fallocate(filepath.Join(dir, fmt.Sprintf("thread%d", i)), 0, 4*mib)
		}(i)
	}
	wg.Wait()
	if err := exec.Command(os.Args[0], "one", filepath.Join(dir, "exec")).Run(); err != nil {
		fail(err)
	}
}

func main() {
	switch {
	case len(os.Args) == 3 && os.Args[1] == "all":
		all(os.Args[2])
	case len(os.Args) == 3 && os.Args[1] == "one":
		fallocate(os.Args[2], 0, 4*mib)
	case len(os.Args) == 3 && os.Args[1] == "owner":
		f, err := os.Open(os.Args[2])
		if err != nil {
			fail(err)
		}
		lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: 0, Len: 100}
		if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil {
			fail(err)
		}
		if lk.Type == syscall.F_UNLCK {
			lk.Pid = 0
		}
		fmt.Println(lk.Pid)
	default:
		os.Exit(99)
	}
}

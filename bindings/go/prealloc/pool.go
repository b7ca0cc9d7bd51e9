package prealloc

/*
#include <fcntl.h>
#include <stdlib.h>
#include <prealloc.h>
*/
import "C"

import (
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// PoolConfig is what OpenPool builds (struct prealloc_pool_config).
type PoolConfig struct {
	SegmentSize uint64 // bytes per segment, > 0
	Target      uint32 // ready segments the worker keeps, at most 4096
	Mode        uint32 // permission bits of new segments; 0 for 0600
	FreeFloor   uint64 // free bytes left to everyone else; 0: 1/20 of the fs
	MaxRate     uint64 // cap on the worker's zeroing rate; 0: none
	FullSpeed   bool   // PREALLOC_POOL_FULL_SPEED: one burst per segment
}

// PoolStats are a pool's counters (struct prealloc_pool_stats).
type PoolStats struct {
	Ready, Target  uint32        // ready segments now, and aimed for now
	LastError      error         // the worker's last failure but ENOSPC
	Hits, Misses   uint64        // takes served ready / made in the caller
	ForegroundWait time.Duration // time the misses spent making segments
	Created        uint64        // segments the worker made
	Recycled       uint64        // segments recycled and made ready
	Removed        uint64        // ready segments removed for the floor
	BytesZeroed    uint64        // bytes the worker made to read zero
	ENOSPC         uint64        // times the pool ran out of space
	WorkerTime     time.Duration // time the worker spent working
	Prepared       uint64        // segments installed under prepared names
	CowSegments    uint64        // copy-on-write segments (not written)
}

// Pool is a directory of ready segments kept filled by a library thread
// (struct prealloc_pool).  Its methods may be called from several
// goroutines at once, as the C pool allows (each Take gets its own
// segment); Close waits for calls under way and makes later ones fail with
// os.ErrClosed, since prealloc_pool_close() must run alone.  Go never
// forks without exec, so the C fork rule (ECHILD in a child) cannot arise.
type Pool struct {
	mu sync.RWMutex
	p  *C.struct_prealloc_pool
}

// OpenPool opens the pool over dir (which must exist) and starts its
// worker: prealloc_pool_open().  EBUSY if dir is already a pool's.
func OpenPool(dir string, cfg PoolConfig) (*Pool, error) {
	ccfg := C.struct_prealloc_pool_config{
		size:         C.uint32_t(unsafe.Sizeof(C.struct_prealloc_pool_config{})),
		segment_size: C.uint64_t(cfg.SegmentSize),
		target:       C.uint32_t(cfg.Target),
		mode:         C.uint32_t(cfg.Mode),
		free_floor:   C.uint64_t(cfg.FreeFloor),
		max_rate:     C.uint64_t(cfg.MaxRate),
	}
	if cfg.FullSpeed {
		ccfg.flags = C.PREALLOC_POOL_FULL_SPEED
	}
	cdir := C.CString(dir)
	defer C.free(unsafe.Pointer(cdir))
	var p *C.struct_prealloc_pool
	if err := errno(C.prealloc_pool_open(cdir, &ccfg, &p)); err != nil {
		return nil, err
	}
	pool := &Pool{p: p}
	runtime.SetFinalizer(pool, (*Pool).Close)
	return pool, nil
}

// Close stops the worker and frees the pool; ready segments stay for the
// next OpenPool.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	C.prealloc_pool_close(p.p)
	p.p = nil
	return nil
}

// call runs fn with the pool held open and name as a C string.
func (p *Pool) call(name string, fn func(*C.struct_prealloc_pool, *C.char) C.int) (C.int, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.p == nil {
		return 0, os.ErrClosed
	}
	ret := fn(p.p, cname)
	return ret, errno(ret)
}

// Take moves a ready segment (or one made now, on a miss) to name, which
// must not exist (relative names start at the working directory), and
// returns it open read-write and close-on-exec: prealloc_pool_take_ex().
// openFlags is 0 or any of syscall.O_DSYNC, O_SYNC and O_DIRECT.
func (p *Pool) Take(name string, openFlags int) (*os.File, error) {
	return p.take(name, 0, openFlags)
}

func (p *Pool) take(name string, flags C.uint, openFlags int) (*os.File, error) {
	fd, err := p.call(name, func(cp *C.struct_prealloc_pool, cname *C.char) C.int {
		return C.prealloc_pool_take_ex(cp, C.AT_FDCWD, cname, flags, C.int(openFlags))
	})
	if err != nil {
		return nil, &os.PathError{Op: "take", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// TakeNowait is Take that hands out a ready segment or fails with
// syscall.EAGAIN, never making one in the calling goroutine
// (PREALLOC_POOL_TAKE_NOWAIT); a miss counts nothing.
func (p *Pool) TakeNowait(name string, openFlags int) (*os.File, error) {
	return p.take(name, C.PREALLOC_POOL_TAKE_NOWAIT, openFlags)
}

// Prepare has the worker install a segment under name ahead, so the
// later Take of it only opens it: prealloc_pool_prepare().
func (p *Pool) Prepare(name string) error {
	_, err := p.call(name, func(cp *C.struct_prealloc_pool, cname *C.char) C.int {
		return C.prealloc_pool_prepare(cp, C.AT_FDCWD, cname, 0)
	})
	return err
}

// Recycle gives a used segment back; the worker makes it ready again,
// zeroing every byte first if zero: prealloc_pool_recycle().
func (p *Pool) Recycle(name string, zero bool) error {
	flags := C.uint(0)
	if zero {
		flags = C.PREALLOC_POOL_RECYCLE_ZERO
	}
	_, err := p.call(name, func(cp *C.struct_prealloc_pool, cname *C.char) C.int {
		return C.prealloc_pool_recycle(cp, C.AT_FDCWD, cname, flags)
	})
	return err
}

// WaitReady waits until count segments are ready, at most timeout (a
// negative one: as long as the worker makes progress).
func (p *Pool) WaitReady(count uint32, timeout time.Duration) error {
	ms := C.int(-1)
	if timeout >= 0 {
		ms = C.int(min(timeout.Milliseconds(), 1<<31-1))
	}
	_, err := p.call("", func(cp *C.struct_prealloc_pool, _ *C.char) C.int {
		return C.prealloc_pool_wait_ready(cp, C.uint32_t(count), ms)
	})
	return err
}

// Stats reads the pool's counters.
func (p *Pool) Stats() (PoolStats, error) {
	var s C.struct_prealloc_pool_stats
	s.size = C.uint32_t(unsafe.Sizeof(s))
	if _, err := p.call("", func(cp *C.struct_prealloc_pool, _ *C.char) C.int {
		return C.prealloc_pool_get_stats(cp, &s)
	}); err != nil {
		return PoolStats{}, err
	}
	st := PoolStats{
		Ready: uint32(s.ready), Target: uint32(s.target),
		Hits: uint64(s.hits), Misses: uint64(s.misses),
		ForegroundWait: time.Duration(s.foreground_wait_ns),
		Created:        uint64(s.created), Recycled: uint64(s.recycled),
		Removed: uint64(s.removed), BytesZeroed: uint64(s.bytes_zeroed),
		ENOSPC: uint64(s.enospc), WorkerTime: time.Duration(s.worker_ns),
		Prepared: uint64(s.prepared), CowSegments: uint64(s.cow_segments),
	}
	if s.last_error < 0 {
		st.LastError = syscall.Errno(-s.last_error)
	}
	return st, nil
}

package prealloc

/*
#include <errno.h>
#include <stdlib.h>
#include <prealloc.h>
*/
import "C"

import (
	"os"
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

// FactType is the type of a probe fact's value (enum prealloc_fact_type).
type FactType int

// The fact types; a type this package does not know may appear later.
const (
	FactNull   FactType = C.PREALLOC_FACT_NULL // unknown: no value
	FactBool   FactType = C.PREALLOC_FACT_BOOL
	FactNumber FactType = C.PREALLOC_FACT_NUMBER
	FactBytes  FactType = C.PREALLOC_FACT_BYTES
	FactFlags  FactType = C.PREALLOC_FACT_FLAGS // best shown in hexadecimal
	FactString FactType = C.PREALLOC_FACT_STRING
)

// Fact is one named fact of a probe.
type Fact struct {
	Name   string   // dotted name, e.g. "queue.write_zeroes_unmap_max_bytes"
	Type   FactType // what the value is
	Number uint64   // the value of a bool, number, bytes or flags fact
	String string   // the value of a string fact
}

// Answer is a yes/no answer the storage may not give (enum prealloc_answer).
type Answer int

// The answers.
const (
	No      Answer = C.PREALLOC_NO
	Yes     Answer = C.PREALLOC_YES
	Unknown Answer = C.PREALLOC_UNKNOWN
)

// Action is what a step of the plan does (enum prealloc_action).
type Action uint32

// The actions.
const (
	ActionReserve    Action = C.PREALLOC_ACTION_RESERVE
	ActionZero       Action = C.PREALLOC_ACTION_ZERO
	ActionWriteEdges Action = C.PREALLOC_ACTION_WRITE_EDGES
	ActionSync       Action = C.PREALLOC_ACTION_SYNC
)

// PlanStep is a step of the plan for the probe's request.
type PlanStep struct {
	Action Action
	Method Method // the method covering the bytes; MethodAuto for the sync
	Offset uint64
	Length uint64
}

// Probe is a snapshot of what the library knows about a target and the
// plan for a request (struct prealloc_probe).  Its methods may be called
// from several goroutines at once (the C probe is immutable and its readers
// thread-safe); Close waits for them.  Everything returned is a copy that
// outlives Close.
type Probe struct {
	mu sync.RWMutex
	p  *C.struct_prealloc_probe
}

// NewProbe probes f and plans [off, off+n) with opts, writing nothing:
// prealloc_probe_new().  n 0 probes without a request (no plan).  f may be
// open in any mode.
func NewProbe(f *os.File, off, n int64, opts *Options) (*Probe, error) {
	if off < 0 || n < 0 {
		return nil, syscall.EINVAL
	}
	copts := opts.raw()
	var p *C.struct_prealloc_probe
	ret, err := withFd(f, func(fd C.int) C.int {
		return C.prealloc_probe_new(fd, C.uint64_t(off), C.uint64_t(n), &copts, &p)
	})
	if err == nil {
		err = errno(ret)
	}
	if err != nil {
		return nil, err
	}
	probe := &Probe{p: p}
	runtime.SetFinalizer(probe, (*Probe).Close)
	return probe, nil
}

// Close frees the probe; later calls fail with os.ErrClosed.
func (p *Probe) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	C.prealloc_probe_free(p.p)
	p.p = nil
	return nil
}

// read runs fn with the probe held open.
func (p *Probe) read(fn func(*C.struct_prealloc_probe) error) error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.p == nil {
		return os.ErrClosed
	}
	return fn(p.p)
}

func newFact(kind C.int, name *C.char, number C.uint64_t, str *C.char) Fact {
	f := Fact{Name: C.GoString(name), Type: FactType(kind), Number: uint64(number)}
	if str != nil {
		f.String = C.GoString(str)
	}
	return f
}

func (p *Probe) facts(device int) ([]Fact, error) {
	var facts []Fact
	err := p.read(func(cp *C.struct_prealloc_probe) error {
		for i := C.uint(0); ; i++ {
			var name, str *C.char
			var number C.uint64_t
			var kind C.int
			if device < 0 {
				kind = C.prealloc_probe_fact(cp, i, &name, &number, &str)
			} else {
				kind = C.prealloc_probe_device_fact(cp, C.uint(device), i, &name, &number, &str)
			}
			if kind == -C.ENOENT {
				return nil
			}
			if kind < 0 {
				return errno(kind)
			}
			facts = append(facts, newFact(kind, name, number, str))
		}
	})
	return facts, err
}

// Facts are the target's facts, in the library's order.
func (p *Probe) Facts() ([]Fact, error) {
	return p.facts(-1)
}

// DeviceFacts are the facts of device d of the chain (0: the device
// holding the target); ENXIO past the last.
func (p *Probe) DeviceFacts(d int) ([]Fact, error) {
	if d < 0 {
		return nil, syscall.ENXIO
	}
	return p.facts(d)
}

// DeviceCount is the number of devices in the chain under the target.
func (p *Probe) DeviceCount() (int, error) {
	var n C.int
	err := p.read(func(cp *C.struct_prealloc_probe) error {
		n = C.prealloc_probe_device_count(cp)
		return errno(n)
	})
	return int(n), err
}

// Lookup finds a fact of the target by name; ENOENT if there is none.
func (p *Probe) Lookup(name string) (Fact, error) {
	var f Fact
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	err := p.read(func(cp *C.struct_prealloc_probe) error {
		var str *C.char
		var number C.uint64_t
		kind := C.prealloc_probe_lookup(cp, cname, &number, &str)
		if kind < 0 {
			return errno(kind)
		}
		f = newFact(kind, cname, number, str)
		return nil
	})
	return f, err
}

// ZeroingOffloaded tells whether the device will do the zeroing through
// FALLOC_FL_WRITE_ZEROES, and the fact that decided it.
func (p *Probe) ZeroingOffloaded() (Answer, string, error) {
	var answer C.int
	var why string
	err := p.read(func(cp *C.struct_prealloc_probe) error {
		var decided *C.char
		answer = C.prealloc_probe_zeroing_offloaded(cp, &decided)
		if decided != nil {
			why = C.GoString(decided)
		}
		return errno(answer)
	})
	return Answer(answer), why, err
}

// Plan is the methods of the plan, the one tried first first: ENODATA
// without a request, EOPNOTSUPP when the request cannot be met here
// (PlanReason says why).
func (p *Probe) Plan() ([]Method, error) {
	var methods []Method
	err := p.read(func(cp *C.struct_prealloc_probe) error {
		for i := C.uint(0); ; i++ {
			m := C.prealloc_probe_plan(cp, i)
			if m == -C.ENOENT {
				return nil
			}
			if m < 0 {
				return errno(m)
			}
			methods = append(methods, Method(m))
		}
	})
	return methods, err
}

// PlanReason says in one sentence why the plan is what it is ("" if none).
func (p *Probe) PlanReason() string {
	var why string
	_ = p.read(func(cp *C.struct_prealloc_probe) error {
		if r := C.prealloc_probe_plan_reason(cp); r != nil {
			why = C.GoString(r)
		}
		return nil
	})
	return why
}

// Steps are the steps the call would run, or the error it would fail with
// before any step.
func (p *Probe) Steps() ([]PlanStep, error) {
	var steps []PlanStep
	err := p.read(func(cp *C.struct_prealloc_probe) error {
		for i := C.uint(0); ; i++ {
			var action, method C.uint32_t
			var off, length C.uint64_t
			ret := C.prealloc_probe_step(cp, i, &action, &method, &off, &length)
			if ret == -C.ENOENT {
				return nil
			}
			if ret < 0 {
				return errno(ret)
			}
			steps = append(steps, PlanStep{Action(action), Method(method), uint64(off), uint64(length)})
		}
	})
	return steps, err
}

// Package prealloc preallocates file space that is allocated and already
// written, through libprealloc (found with pkg-config, version 0.6 or later).
//
// File makes a range of a file allocated, written (no unwritten extents),
// zero where it held no data and durable, with the cheapest method the
// storage offers, so the first synced write into it is a pure overwrite.
// Preallocate is a drop-in for etcd's fileutil.Preallocate.  The C header's
// kernel-doc and libprealloc(7) state the full contract.
//
// Errors from the library are syscall.Errno values, so
// errors.Is(err, syscall.ENOSPC) and friends work.
//
// The package uses cgo and finds the C library through pkg-config: install
// libprealloc first (Debian: apt install libprealloc-dev), then
//
//	go get github.com/libprealloc/libprealloc/bindings/go/prealloc
//
// Every exported type has an example; those whose output does not depend
// on the storage run as tests.
package prealloc

/*
#cgo pkg-config: libprealloc
#include <stdlib.h>
#include <prealloc.h>

// cgo sees an anonymous union as bytes: failed_phase (failed_step before
// 0.5) is read here.
static uint32_t pa_failed_phase(const struct prealloc_report *r)
{
	return r->failed_phase;
}
*/
import "C"

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// Method is how a byte range was (or is to be) made written.
type Method uint32

// The methods (enum prealloc_method).
const (
	MethodAuto        Method = C.PREALLOC_METHOD_AUTO
	MethodWriteZeroes Method = C.PREALLOC_METHOD_WRITE_ZEROES
	MethodZeroout     Method = C.PREALLOC_METHOD_ZEROOUT
	MethodUring       Method = C.PREALLOC_METHOD_URING
	MethodBuffered    Method = C.PREALLOC_METHOD_BUFFERED
	MethodAllocate    Method = C.PREALLOC_METHOD_ALLOCATE
	MethodAio         Method = C.PREALLOC_METHOD_AIO
)

// String is the library's short name ("uring"), or the number.
func (m Method) String() string {
	return cName(C.prealloc_method_name(uint32(m)), uint32(m))
}

// Phase is the phase of a call that failed (a step is a step of the plan:
// PlanStep).
type Phase uint32

// The phases (enum prealloc_phase).
const (
	PhaseNone       Phase = C.PREALLOC_PHASE_NONE
	PhaseTarget     Phase = C.PREALLOC_PHASE_TARGET
	PhaseRequest    Phase = C.PREALLOC_PHASE_REQUEST
	PhaseClaim      Phase = C.PREALLOC_PHASE_CLAIM
	PhaseSignatures Phase = C.PREALLOC_PHASE_SIGNATURES
	PhaseClassify   Phase = C.PREALLOC_PHASE_CLASSIFY
	PhaseSpaceCheck Phase = C.PREALLOC_PHASE_SPACE_CHECK
	PhaseReserve    Phase = C.PREALLOC_PHASE_RESERVE
	PhaseZero       Phase = C.PREALLOC_PHASE_ZERO
	PhaseSync       Phase = C.PREALLOC_PHASE_SYNC
)

// String is the library's short name ("space-check"), or the number.
func (p Phase) String() string {
	return cName(C.prealloc_phase_name(uint32(p)), uint32(p))
}

// Step is the old name of Phase.
//
// Deprecated: use Phase; a step is a step of the plan (PlanStep).
type Step = Phase

// The old names of the phases (enum prealloc_step).
//
// Deprecated: use the Phase constants.
const (
	StepNone       = PhaseNone
	StepTarget     = PhaseTarget
	StepRequest    = PhaseRequest
	StepClaim      = PhaseClaim
	StepSignatures = PhaseSignatures
	StepClassify   = PhaseClassify
	StepSpaceCheck = PhaseSpaceCheck
	StepReserve    = PhaseReserve
	StepZero       = PhaseZero
	StepSync       = PhaseSync
)

// WriteZeroes is what became of FALLOC_FL_WRITE_ZEROES in a call, and why.
type WriteZeroes uint32

// The verdicts (enum prealloc_write_zeroes).
const (
	WriteZeroesNotWeighed    WriteZeroes = C.PREALLOC_WZ_NOT_WEIGHED     // another method forced, a copy-on-write or memory-backed file
	WriteZeroesUsed          WriteZeroes = C.PREALLOC_WZ_USED            // it zeroed bytes of the range
	WriteZeroesWouldTry      WriteZeroes = C.PREALLOC_WZ_WOULD_TRY       // planned, but it zeroed nothing of the range
	WriteZeroesNoDeviceFacts WriteZeroes = C.PREALLOC_WZ_NO_DEVICE_FACTS // no block device facts under the target
	WriteZeroesNoKernel      WriteZeroes = C.PREALLOC_WZ_NO_KERNEL       // no such mode before Linux 6.17
	WriteZeroesFsRefused     WriteZeroes = C.PREALLOC_WZ_FS_REFUSED      // the filesystem refused it on this kernel
	WriteZeroesDeviceCannot  WriteZeroes = C.PREALLOC_WZ_DEVICE_CANNOT   // the device cannot zero by unmapping
	WriteZeroesFsOrDevice    WriteZeroes = C.PREALLOC_WZ_FS_OR_DEVICE    // refused; sysfs cannot say which
	WriteZeroesInode         WriteZeroes = C.PREALLOC_WZ_INODE           // this file's inode cannot take it
	WriteZeroesKeepSize      WriteZeroes = C.PREALLOC_WZ_KEEP_SIZE       // keep-size beyond end of file
)

// String is the library's short name ("fs-refused"), or the number.
func (w WriteZeroes) String() string {
	return cName(C.prealloc_write_zeroes_name(uint32(w)), uint32(w))
}

func cName(name *C.char, raw uint32) string {
	if name == nil {
		return "unknown(" + itoa(uint64(raw)) + ")"
	}
	return C.GoString(name)
}

func itoa(n uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		if n /= 10; n == 0 {
			return string(b[i:])
		}
	}
}

// The bits of Report.Background (enum prealloc_background): the pacing
// that applied.
const (
	BackgroundPaced    uint32 = C.PREALLOC_BG_PACED     // requests were held back by the pacer
	BackgroundIdlePrio uint32 = C.PREALLOC_BG_IDLE_PRIO // direct writes went with the idle I/O priority
	BackgroundAdapted  uint32 = C.PREALLOC_BG_ADAPTED   // the adaptive rate was lowered at least once
)

// Options of File, NewProbe and Preallocate; the zero value (or a nil
// pointer) asks for the whole contract: size extended, data kept, durable
// on return, method chosen by the library.
type Options struct {
	KeepSize   bool // PREALLOC_KEEP_SIZE: the size stays; beyond EOF only reserved
	ZeroData   bool // PREALLOC_ZERO_DATA: zero data too (recycling a segment)
	NoSync     bool // PREALLOC_NO_SYNC: skip the final fdatasync()
	Force      bool // PREALLOC_FORCE: zero a block device with a signature
	Background bool // PREALLOC_BACKGROUND: paced, beside live traffic
	// PREALLOC_CONCURRENT_WRITES: others may write into the range during
	// the call and keep every byte; EOPNOTSUPP where that cannot be ordered
	ConcurrentWrites bool
	Method           Method // a method to use alone, or MethodAuto
	MaxRate          uint64 // cap on the zeroing rate in bytes per second; 0: none
}

func (o *Options) raw() C.struct_prealloc_options {
	r := C.struct_prealloc_options{size: C.uint32_t(unsafe.Sizeof(C.struct_prealloc_options{}))}
	if o == nil {
		return r
	}
	for _, f := range []struct {
		on  bool
		bit C.uint32_t
	}{
		{o.KeepSize, C.PREALLOC_KEEP_SIZE}, {o.ZeroData, C.PREALLOC_ZERO_DATA},
		{o.NoSync, C.PREALLOC_NO_SYNC}, {o.Force, C.PREALLOC_FORCE},
		{o.Background, C.PREALLOC_BACKGROUND},
		{o.ConcurrentWrites, C.PREALLOC_CONCURRENT_WRITES},
	} {
		if f.on {
			r.flags |= f.bit
		}
	}
	r.method = C.uint32_t(o.Method)
	r.max_rate = C.uint64_t(o.MaxRate)
	return r
}

// Report is what a call did (struct prealloc_report).  After a failure it
// describes the work done before it was undone when FailedPhase is not
// PhaseNone; UndoError then says whether the undo itself failed.
type Report struct {
	Written       bool          // every block of the range allocated and written
	Cow           bool          // copy-on-write: space reserved instead
	Method        Method        // the method that covered the most bytes
	Refused       []Method      // methods refused before the call fell back
	BytesZeroed   uint64        // bytes made to read zero
	BytesKept     uint64        // bytes of existing data left untouched
	BytesReserved uint64        // bytes only reserved, not written
	BytesUnknown  uint64        // bytes of BytesKept of unknown extent state
	BytesByMethod [16]uint64    // bytes covered by each method, indexed by Method
	Elapsed       time.Duration // wall-clock time of the call
	BytesPerSec   uint64        // zeroing rate achieved
	Background    uint32        // Background* bits: the pacing that applied
	FailedPhase   Phase         // the phase that failed, PhaseNone on success
	FailedMethod  Method        // the method running when it failed
	UndoError     error         // the undo's first error, nil if it succeeded
	LockError     error         // why the call was not ordered with other processes', nil if it was
	WriteZeroes   WriteZeroes   // what became of FALLOC_FL_WRITE_ZEROES, and why

	// FailedStep is FailedPhase under its old name.
	//
	// Deprecated: use FailedPhase.
	FailedStep Phase
}

func newReport(r *C.struct_prealloc_report) Report {
	rep := Report{
		Written: r.written != 0, Cow: r.cow != 0, Method: Method(r.method),
		BytesZeroed: uint64(r.bytes_zeroed), BytesKept: uint64(r.bytes_kept),
		BytesReserved: uint64(r.bytes_reserved), BytesUnknown: uint64(r.bytes_unknown),
		Elapsed: time.Duration(r.elapsed_ns), BytesPerSec: uint64(r.bytes_per_sec),
		Background: uint32(r.background), FailedPhase: Phase(C.pa_failed_phase(r)),
		FailedMethod: Method(r.failed_method), WriteZeroes: WriteZeroes(r.write_zeroes),
	}
	rep.FailedStep = rep.FailedPhase
	for i := range rep.BytesByMethod {
		rep.BytesByMethod[i] = uint64(r.bytes_by_method[i])
	}
	for m := uint32(0); m < 32; m++ {
		if uint32(r.refused)&(1<<m) != 0 {
			rep.Refused = append(rep.Refused, Method(m))
		}
	}
	if r.undo_error < 0 {
		rep.UndoError = syscall.Errno(-r.undo_error)
	}
	if r.lock_error < 0 {
		rep.LockError = syscall.Errno(-r.lock_error)
	}
	return rep
}

// errno turns a C result into nil or a syscall.Errno.
func errno(ret C.int) error {
	if ret < 0 {
		return syscall.Errno(-ret)
	}
	return nil
}

// withFd runs fn on f's descriptor, which stays open meanwhile.
func withFd(f *os.File, fn func(fd C.int) C.int) (C.int, error) {
	conn, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var ret C.int
	if err := conn.Control(func(fd uintptr) { ret = fn(C.int(fd)) }); err != nil {
		return 0, err
	}
	return ret, nil
}

func checkRange(off, n int64) error {
	if off < 0 || n <= 0 {
		return syscall.EINVAL
	}
	return nil
}

// File makes [off, off+n) of f allocated, written and (unless
// opts.NoSync) durable: prealloc_file_ex().  f must be open for writing.
// Bytes that held data keep them; every other byte of the range reads zero;
// the file grows to off+n unless opts.KeepSize.  On failure the call has
// undone its work and the Report says what it did before.
func File(f *os.File, off, n int64, opts *Options) (Report, error) {
	if err := checkRange(off, n); err != nil {
		return Report{}, err
	}
	copts := opts.raw()
	var rep C.struct_prealloc_report
	rep.size = C.uint32_t(unsafe.Sizeof(rep))
	ret, err := withFd(f, func(fd C.int) C.int {
		return C.prealloc_file_ex(fd, C.uint64_t(off), C.uint64_t(n), &copts, &rep)
	})
	if err != nil {
		return Report{}, err
	}
	return newReport(&rep), errno(ret)
}

// Census counts the extent states of a range (struct prealloc_census).
type Census struct {
	Fiemap         bool   // FIEMAP answered (else unwritten looks like data)
	WrittenBytes   uint64 // bytes in written extents
	UnwrittenBytes uint64 // bytes in unwritten extents
	HoleBytes      uint64 // bytes with no extent
	SharedBytes    uint64 // bytes of WrittenBytes in shared extents
	UnknownBytes   uint64 // without FIEMAP, data that may be unwritten
}

// Verify counts the extent states of [off, off+n) of f: prealloc_verify().
func Verify(f *os.File, off, n int64) (Census, error) {
	if err := checkRange(off, n); err != nil {
		return Census{}, err
	}
	var c C.struct_prealloc_census
	c.size = C.uint32_t(unsafe.Sizeof(c))
	ret, err := withFd(f, func(fd C.int) C.int {
		return C.prealloc_verify(fd, C.uint64_t(off), C.uint64_t(n), &c)
	})
	if err == nil {
		err = errno(ret)
	}
	if err != nil {
		return Census{}, err
	}
	return Census{c.fiemap != 0, uint64(c.written_bytes), uint64(c.unwritten_bytes),
		uint64(c.hole_bytes), uint64(c.shared_bytes), uint64(c.unknown_bytes)}, nil
}

// Version is the version of the libprealloc loaded, "MAJOR.MINOR.MICRO".
func Version() string {
	return C.GoString(C.prealloc_version())
}

// reportFromBytes is newReport of a C report holding b (for the tests,
// which cannot use cgo themselves).
func reportFromBytes(b []byte) Report {
	var r C.struct_prealloc_report
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&r)), unsafe.Sizeof(r)), b)
	return newReport(&r)
}

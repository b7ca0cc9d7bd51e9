package prealloc

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// Every member of the installed headers, as bindings/header-api.py lists
// it from the header the C compiler reads, is either bound here or named
// as deliberately not bound: a field or value added to the header fails
// this test until the binding decides.  Go's cgo reads the header itself,
// so layouts cannot differ; what can be missed is a member.

// What each C value is in Go: a constant (compared with C's value), the Go
// field a flag sets, or "-" and why it is not bound.
var boundValues = map[string]any{
	"PREALLOC_KEEP_SIZE": "Options.KeepSize", "PREALLOC_ZERO_DATA": "Options.ZeroData",
	"PREALLOC_NO_SYNC": "Options.NoSync", "PREALLOC_FORCE": "Options.Force",
	"PREALLOC_BACKGROUND":        "Options.Background",
	"PREALLOC_CONCURRENT_WRITES": "Options.ConcurrentWrites",
	"PREALLOC_METHOD_AUTO":       MethodAuto, "PREALLOC_METHOD_WRITE_ZEROES": MethodWriteZeroes,
	"PREALLOC_METHOD_ZEROOUT": MethodZeroout, "PREALLOC_METHOD_URING": MethodUring,
	"PREALLOC_METHOD_BUFFERED": MethodBuffered, "PREALLOC_METHOD_ALLOCATE": MethodAllocate,
	"PREALLOC_METHOD_AIO": MethodAio, "PREALLOC_METHOD_SLOTS": len(Report{}.BytesByMethod),
	"PREALLOC_PHASE_NONE": PhaseNone, "PREALLOC_PHASE_TARGET": PhaseTarget,
	"PREALLOC_PHASE_REQUEST": PhaseRequest, "PREALLOC_PHASE_CLAIM": PhaseClaim,
	"PREALLOC_PHASE_SIGNATURES": PhaseSignatures, "PREALLOC_PHASE_CLASSIFY": PhaseClassify,
	"PREALLOC_PHASE_SPACE_CHECK": PhaseSpaceCheck, "PREALLOC_PHASE_RESERVE": PhaseReserve,
	"PREALLOC_PHASE_ZERO": PhaseZero, "PREALLOC_PHASE_SYNC": PhaseSync,
	"PREALLOC_STEP_NONE": StepNone, "PREALLOC_STEP_TARGET": StepTarget,
	"PREALLOC_STEP_REQUEST": StepRequest, "PREALLOC_STEP_CLAIM": StepClaim,
	"PREALLOC_STEP_SIGNATURES": StepSignatures, "PREALLOC_STEP_CLASSIFY": StepClassify,
	"PREALLOC_STEP_SPACE_CHECK": StepSpaceCheck, "PREALLOC_STEP_RESERVE": StepReserve,
	"PREALLOC_STEP_ZERO": StepZero, "PREALLOC_STEP_SYNC": StepSync,
	"PREALLOC_ACTION_RESERVE": ActionReserve, "PREALLOC_ACTION_ZERO": ActionZero,
	"PREALLOC_ACTION_WRITE_EDGES": ActionWriteEdges, "PREALLOC_ACTION_SYNC": ActionSync,
	"PREALLOC_BG_PACED": BackgroundPaced, "PREALLOC_BG_IDLE_PRIO": BackgroundIdlePrio,
	"PREALLOC_BG_ADAPTED":     BackgroundAdapted,
	"PREALLOC_WZ_NOT_WEIGHED": WriteZeroesNotWeighed, "PREALLOC_WZ_USED": WriteZeroesUsed,
	"PREALLOC_WZ_WOULD_TRY": WriteZeroesWouldTry, "PREALLOC_WZ_NO_DEVICE_FACTS": WriteZeroesNoDeviceFacts,
	"PREALLOC_WZ_NO_KERNEL": WriteZeroesNoKernel, "PREALLOC_WZ_FS_REFUSED": WriteZeroesFsRefused,
	"PREALLOC_WZ_DEVICE_CANNOT": WriteZeroesDeviceCannot, "PREALLOC_WZ_FS_OR_DEVICE": WriteZeroesFsOrDevice,
	"PREALLOC_WZ_INODE": WriteZeroesInode, "PREALLOC_WZ_KEEP_SIZE": WriteZeroesKeepSize,
	"PREALLOC_NO": No, "PREALLOC_YES": Yes, "PREALLOC_UNKNOWN": Unknown,
	"PREALLOC_FACT_NULL": FactNull, "PREALLOC_FACT_BOOL": FactBool,
	"PREALLOC_FACT_NUMBER": FactNumber, "PREALLOC_FACT_BYTES": FactBytes,
	"PREALLOC_FACT_FLAGS": FactFlags, "PREALLOC_FACT_STRING": FactString,
	"PREALLOC_POOL_FULL_SPEED":   "PoolConfig.FullSpeed",
	"PREALLOC_POOL_RECYCLE_ZERO": "-Pool.Recycle's zero argument",
	"PREALLOC_POOL_TAKE_NOWAIT":  "-Pool.TakeNowait",
	"PREALLOC_POOL_MAX_TARGET":   "-checked by the library (PoolConfig.Target says 4096)",
}

// What each C struct field is in Go: "Type.Field", or "-" and why not.
var boundFields = map[string]string{
	"prealloc_options.size": "-set by the binding", "prealloc_options.flags": "-Options' bools",
	"prealloc_options.method": "Options.Method", "prealloc_options.queue_depth": "-not bound",
	"prealloc_options.request_bytes": "-not bound", "prealloc_options.progress": "-no callbacks into Go",
	"prealloc_options.progress_data": "-no callbacks into Go", "prealloc_options.max_rate": "Options.MaxRate",
	"prealloc_options.ctx": "-no contexts in the Go binding",
	"prealloc_report.size": "-set by the binding", "prealloc_report.written": "Report.Written",
	"prealloc_report.cow": "Report.Cow", "prealloc_report.__pad": "-padding",
	"prealloc_report.method": "Report.Method", "prealloc_report.refused": "Report.Refused",
	"prealloc_report.bytes_zeroed": "Report.BytesZeroed", "prealloc_report.bytes_kept": "Report.BytesKept",
	"prealloc_report.bytes_reserved": "Report.BytesReserved", "prealloc_report.elapsed_ns": "Report.Elapsed",
	"prealloc_report.bytes_by_method": "Report.BytesByMethod",
	"prealloc_report.failed_phase":    "Report.FailedPhase", "prealloc_report.failed_step": "Report.FailedStep",
	"prealloc_report.failed_method": "Report.FailedMethod", "prealloc_report.bytes_unknown": "Report.BytesUnknown",
	"prealloc_report.background": "Report.Background", "prealloc_report.__pad2": "-padding",
	"prealloc_report.bytes_per_sec": "Report.BytesPerSec", "prealloc_report.undo_error": "Report.UndoError",
	"prealloc_report.__pad3": "-padding", "prealloc_report.lock_error": "Report.LockError",
	"prealloc_report.__pad4": "-padding", "prealloc_report.write_zeroes": "Report.WriteZeroes",
	"prealloc_report.__pad5": "-padding",
	"prealloc_census.size":   "-set by the binding", "prealloc_census.fiemap": "Census.Fiemap",
	"prealloc_census.written_bytes": "Census.WrittenBytes", "prealloc_census.unwritten_bytes": "Census.UnwrittenBytes",
	"prealloc_census.hole_bytes": "Census.HoleBytes", "prealloc_census.shared_bytes": "Census.SharedBytes",
	"prealloc_census.unknown_bytes": "Census.UnknownBytes",
	"prealloc_pool_config.size":     "-set by the binding", "prealloc_pool_config.flags": "PoolConfig.FullSpeed",
	"prealloc_pool_config.segment_size": "PoolConfig.SegmentSize", "prealloc_pool_config.target": "PoolConfig.Target",
	"prealloc_pool_config.mode": "PoolConfig.Mode", "prealloc_pool_config.free_floor": "PoolConfig.FreeFloor",
	"prealloc_pool_config.max_rate": "PoolConfig.MaxRate", "prealloc_pool_config.ctx": "-no contexts in the Go binding",
	"prealloc_pool_stats.size": "-set by the binding", "prealloc_pool_stats.ready": "PoolStats.Ready",
	"prealloc_pool_stats.target": "PoolStats.Target", "prealloc_pool_stats.last_error": "PoolStats.LastError",
	"prealloc_pool_stats.hits": "PoolStats.Hits", "prealloc_pool_stats.misses": "PoolStats.Misses",
	"prealloc_pool_stats.foreground_wait_ns": "PoolStats.ForegroundWait", "prealloc_pool_stats.created": "PoolStats.Created",
	"prealloc_pool_stats.recycled": "PoolStats.Recycled", "prealloc_pool_stats.removed": "PoolStats.Removed",
	"prealloc_pool_stats.bytes_zeroed": "PoolStats.BytesZeroed", "prealloc_pool_stats.enospc": "PoolStats.ENOSPC",
	"prealloc_pool_stats.worker_ns": "PoolStats.WorkerTime", "prealloc_pool_stats.prepared": "PoolStats.Prepared",
	"prealloc_pool_stats.cow_segments": "PoolStats.CowSegments",
}

var goTypes = map[string]reflect.Type{
	"Options": reflect.TypeOf(Options{}), "Report": reflect.TypeOf(Report{}),
	"Census": reflect.TypeOf(Census{}), "PoolConfig": reflect.TypeOf(PoolConfig{}),
	"PoolStats": reflect.TypeOf(PoolStats{}),
}

// headerAPI runs bindings/header-api.py over the header cgo uses.
func headerAPI(t *testing.T, mode string) string {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	cflags, err := exec.Command("pkg-config", "--cflags", "libprealloc").Output()
	if err != nil {
		t.Fatalf("pkg-config: %v", err)
	}
	cmd := exec.Command("python3", "../../header-api.py", "--cflags", string(bytes.TrimSpace(cflags)), mode)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("header-api.py %s: %v", mode, err)
	}
	return string(out)
}

func goField(t *testing.T, path string) (reflect.StructField, bool) {
	t.Helper()
	typ, field, _ := strings.Cut(path, ".")
	rt, ok := goTypes[typ]
	if !ok {
		t.Errorf("%s: no such Go type in the test's table", path)
		return reflect.StructField{}, false
	}
	f, ok := rt.FieldByName(field)
	if !ok {
		t.Errorf("%s: no such Go field", path)
	}
	return f, ok
}

func TestBindsEveryHeaderMember(t *testing.T) {
	values := map[string]uint64{}
	sc := bufio.NewScanner(strings.NewReader(headerAPI(t, "--values")))
	for sc.Scan() {
		i := strings.LastIndexByte(sc.Text(), ' ')
		v, err := strconv.ParseUint(sc.Text()[i+1:], 10, 64)
		if err != nil {
			t.Fatal(sc.Text())
		}
		values[sc.Text()[:i]] = v
	}
	seenV, seenF, n := map[string]bool{}, map[string]bool{}, 0
	for _, line := range strings.Split(strings.TrimSpace(headerAPI(t, "--list")), "\n") {
		w := strings.Fields(line)
		n++
		switch w[0] {
		case "value", "const":
			name := w[len(w)-1]
			seenV[name] = true
			switch b := boundValues[name].(type) {
			case nil:
				t.Errorf("%s: in the header, not in the Go binding (add it, and to boundValues)", name)
			case string:
				if !strings.HasPrefix(b, "-") {
					goField(t, b)
				}
			default:
				if got := reflect.ValueOf(b).Convert(reflect.TypeOf(uint64(0))).Uint(); got != values[name] {
					t.Errorf("%s: Go %d, C %d", name, got, values[name])
				}
			}
		case "field", "alias":
			name := w[1] + "." + w[2]
			seenF[name] = true
			b, ok := boundFields[name]
			if !ok {
				t.Errorf("%s: in the header, not in the Go binding (add it, and to boundFields)", name)
			} else if !strings.HasPrefix(b, "-") {
				goField(t, b)
			}
		}
	}
	if n < 100 {
		t.Fatalf("the header's list is too short: %d", n)
	}
	for name := range boundValues {
		if !seenV[name] {
			t.Errorf("%s: bound here, not in the header", name)
		}
	}
	for name := range boundFields {
		if !seenF[name] {
			t.Errorf("%s: bound here, not in the header", name)
		}
	}
	// Each report field reaches its Go field: the C report all zero but
	// that field's bytes gives a Go report zero but that field.
	size := values["sizeof prealloc_report"]
	if zero := reportFromBytes(make([]byte, size)); !reflect.ValueOf(zero).IsZero() {
		t.Errorf("a zero report is not a zero Report: %+v", zero)
	}
	for name, b := range boundFields {
		s, field, _ := strings.Cut(name, ".")
		if s != "prealloc_report" || strings.HasPrefix(b, "-") {
			continue
		}
		raw := make([]byte, size)
		off, n := values[name], values["sizeof "+name]
		for i := off; i < off+n; i++ {
			raw[i] = 0xff
		}
		got := reflect.ValueOf(reportFromBytes(raw))
		_, goName, _ := strings.Cut(b, ".")
		if got.FieldByName(goName).IsZero() {
			t.Errorf("report.%s set, Report.%s still zero", field, goName)
		}
	}
}

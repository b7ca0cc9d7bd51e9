#!/bin/bash
# Reliability checks, run by .ci/run after the main test run:
#   asan      ASan+UBSan build running the whole meson suite but 'vm' and
#             'bench' (unit, integration, probes, fuzz corpus replay)
#   valgrind  memcheck over the unit tests
#   fuzz      the libFuzzer targets (clang) for CHECKS_FUZZ_SECONDS each,
#             seeded with their fixture corpus
#   tsan      ThreadSanitizer build running tests/reliability/test-threads,
#             tests/reliability/test-overlap (fewer calls),
#             tests/reliability/test-background (the async handle's thread),
#             tests/pool/test-pool-* (the pool's worker) and
#             tests/fs/test-environment (a context's log hook unset while
#             another thread logs)
# Build directories: build-rel, build-asan, build-tsan, build-fuzz-clang.
# CHECKS_SKIP="fuzz tsan" skips steps; CHECKS_FUZZ_SECONDS (default 15).
# Exit status: 0 when every step that ran passed.
set -uo pipefail
cd "$(dirname "$0")/.."

fuzz_seconds=${CHECKS_FUZZ_SECONDS:-15}
skip=" ${CHECKS_SKIP:-} "
failed=()
t_all=$SECONDS

step() {
	local name=$1 t0=$SECONDS
	shift
	if [[ $skip == *" $name "* ]]; then
		echo "== $name: skipped (CHECKS_SKIP)"
		return
	fi
	echo "== $name"
	if "$@"; then
		echo "== $name: ok ($((SECONDS - t0)) s)"
	else
		echo "== $name: FAILED ($((SECONDS - t0)) s)"
		failed+=("$name")
	fi
}

# setup DIR ARGS...: configure once, reconfigure if the directory exists.
setup() {
	local dir=$1
	shift
	if [[ -f $dir/build.ninja ]]; then
		meson configure "$dir" "$@" >/dev/null
	else
		meson setup "$dir" "$@" >/dev/null
	fi
}

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1:print_summary=1
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
# die_after_fork=0: the library keeps its threads for 10 s after a call, so a
# test that forks after calling forks a process with threads, as programs do.
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:die_after_fork=0:suppressions=$PWD/tests/lib/tsan.supp"

run_asan() {
	# b_lundef=false: the sanitizer runtimes resolve symbols at load time.
	setup build-asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false \
		-Dfuzzers=true &&
	ninja -C build-asan >/dev/null &&
	# test-processes: one round per filesystem and mode (the main run has 3).
	PREALLOC_PROCESSES_ROUNDS=1 meson test -C build-asan --no-rebuild --no-suite vm --no-suite vm-crash --no-suite bench \
		--timeout-multiplier 3 --print-errorlogs
}

run_valgrind() {
	if ! command -v valgrind >/dev/null; then
		echo "valgrind not installed: skipped"
		return 0
	fi
	local tests
	setup build-rel -Dwerror=true && ninja -C build-rel >/dev/null || return 1
	# The unit tests that are our executables (not scripts: memcheck would
	# check the shell).
	tests=$(meson introspect build-rel --tests | python3 -c '
import json, sys
for t in json.load(sys.stdin):
    if any(s.endswith(":unit") for s in t["suite"]):
        with open(t["cmd"][0], "rb") as f:
            if f.read(4) == b"\x7fELF":
                print(t["name"])')
	# shellcheck disable=SC2086
	meson test -C build-rel --no-rebuild --timeout-multiplier 10 \
		--wrap='valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect --quiet' \
		--print-errorlogs $tests
}

# The corpus of a target: the fixtures its decoder reads (fuzz/meson.build).
corpus_of() {
	case $1 in
	fuzz-nvme-*) echo tests/probes/fixtures/nvme ;;
	fuzz-scsi-*) echo tests/probes/fixtures/scsi ;;
	esac
}

run_fuzz() {
	local bin name seeds work rc=0

	if [[ ! -f fuzz/meson.build ]]; then
		echo "no fuzz/ targets: skipped"
		return 0
	fi
	if ! command -v clang >/dev/null; then
		echo "clang not installed: libFuzzer runs skipped (the corpus replay ran in asan)"
		return 0
	fi
	CC=clang setup build-fuzz-clang -Dfuzzers=true -Dtests=false -Dwerror=true || return 1
	ninja -C build-fuzz-clang >/dev/null || return 1
	shopt -s nullglob
	local bins=(build-fuzz-clang/fuzz/*-libfuzzer)
	if ((${#bins[@]} == 0)); then
		echo "clang cannot link -fsanitize=fuzzer here: libFuzzer runs skipped"
		return 0
	fi
	for bin in "${bins[@]}"; do
		name=$(basename "$bin" -libfuzzer)
		seeds=$(corpus_of "$name")
		work=$(mktemp -d /tmp/prealloc-fuzz-XXXXXX)
		# New inputs go to $work; the checked-in seeds are only read.
		if "$bin" -max_total_time="$fuzz_seconds" -timeout=10 -rss_limit_mb=1024 \
			-print_final_stats=1 -artifact_prefix="$work/" "$work" ${seeds:+"$seeds"} >"$work.log" 2>&1; then
			echo "$name: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$work.log" |
				awk '{print $2}') runs, no crash"
		else
			echo "$name: FAILED; log and crash input:"
			tail -40 "$work.log"
			ls -l "$work" crash-* 2>/dev/null
			rc=1
		fi
		rm -rf "$work" "$work.log"
	done
	return $rc
}

run_tsan() {
	local tsan_run=()

	setup build-tsan -Dwerror=true -Db_sanitize=thread -Db_lundef=false || return 1
	local tsan_tests=(tests/reliability/test-threads tests/reliability/test-workers
		tests/reliability/test-overlap
		tests/reliability/test-background tests/fs/test-environment
		tests/pool/test-pool-{take,concurrent,prepare,recycle,scan,worker})
	ninja -C build-tsan "${tsan_tests[@]}" >/dev/null || return 1
	# TSan's shadow layout needs the classic address space on kernels with
	# high mmap randomization.
	if command -v setarch >/dev/null; then
		tsan_run=(setarch "$(uname -m)" -R)
	fi
	local t rc
	for t in "${tsan_tests[@]}"; do
		PREALLOC_OVERLAP_CALLS=20 PROBE_SCRIPTS=$PWD/tests/probes \
			"${tsan_run[@]}" "build-tsan/$t"
		rc=$?
		# 77 = skipped (not root / no loop devices).
		[[ $rc == 0 || $rc == 77 ]] || return 1
	done
}

step asan run_asan
step valgrind run_valgrind
step fuzz run_fuzz
step tsan run_tsan

echo "== checks: $((SECONDS - t_all)) s"
if ((${#failed[@]})); then
	echo "== checks FAILED: ${failed[*]}"
	exit 1
fi
echo "== checks passed"

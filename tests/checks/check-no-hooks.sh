#!/bin/sh
# The installed libraries carry no test hook: no *_set_io seam, no io_uring
# completion hook (cqe_hook), no hook variable and no test-only helper
# (pa_caps_get/pa_caps_invalidate on the default context), neither exported (nm -D)
# nor internal (nm of the .so's symbol table and of the static archive), so
# no code path can consult one.
# The test-only archive must have them, or this check proves nothing.
# Likewise the crash test's durability mutants (base/mutant.h): neither the
# pa_mutant symbol nor its environment variable's name in the installed
# libraries; both in MUTANT-LIBRARY.a.
# usage: check-no-hooks.sh LIBRARY.so LIBRARY.a TEST-LIBRARY.a [MUTANT-LIBRARY.a]
set -eu
pattern='_set_io$|(^|[^a-z_])test_io$|(cqe|event|submit)_hook$|^pa_caps_(get|invalidate)$'
status=0
check() {
	if "$@" 2>/dev/null | awk '{ print $NF }' | grep -E "$pattern"; then
		echo "hook symbols in: $*" >&2
		status=1
	fi
}
check nm -D --defined-only "$1"
check nm --defined-only "$1"
check nm --defined-only "$2"
if ! nm --defined-only "$3" | awk '{ print $NF }' | grep -qE "$pattern"; then
	echo "no hook symbols in the test library $3: the pattern is stale" >&2
	status=1
fi
mutant_sym='^pa_mutant$' mutant_env=PREALLOC_CRASH_MUTANT
bytes() { case $1 in *.a) ar p "$1" ;; *) cat "$1" ;; esac; }	# meson's archives are thin
for lib in "$1" "$2"; do
	if nm --defined-only "$lib" 2>/dev/null | awk '{ print $NF }' | grep -qE "$mutant_sym" ||
	   bytes "$lib" | grep -qa "$mutant_env"; then
		echo "durability mutant in: $lib" >&2
		status=1
	fi
done
if [ $# -ge 4 ] && ! { nm --defined-only "$4" | awk '{ print $NF }' | grep -qE "$mutant_sym" &&
		       bytes "$4" | grep -qa "$mutant_env"; }; then
	echo "no mutant in the mutant library $4: the pattern is stale" >&2
	status=1
fi
[ "$status" = 0 ] && echo "1 passed, 0 failed"
exit $status

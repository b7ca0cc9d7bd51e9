#!/bin/bash
# The Debian packages (debian/), as a distribution would ship them: built
# from a clean clone of HEAD by dpkg-buildpackage, checked by lintian,
# installed; then a C program through pkg-config and a CMake project
# (tests/checks/check-cmake.sh) against them, pg_prealloc loaded into a
# PostgreSQL cluster, and the packages purged with nothing of theirs left.
# As root, on a machine with the build dependencies (.ci/run installs them).
# The test suite ran before on the same tree: the build is nocheck.
# usage: .ci/debian.sh
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/prealloc-deb-XXXXXX)
chmod 755 "$work"
pg_version=$(cd "$src" && pg_buildext supported-versions)
pkgs=(libprealloc1 libprealloc-dev prealloc "postgresql-$pg_version-prealloc")
pg_bin=/usr/lib/postgresql/$pg_version/bin
pgdata=$work/pg/data sock=$work/pg
port=5497

cleanup() {
	local rc=$?
	if [ -f "$pgdata/postmaster.pid" ]; then
		runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pgdata" -m immediate stop >/dev/null || true
	fi
	dpkg --purge "${pkgs[@]}" >/dev/null 2>&1 || true
	rm -rf "$work"
	return $rc
}
trap cleanup EXIT
fail() {
	echo "debian: $*" >&2
	exit 1
}
step() { echo "== [$SECONDS s] $*"; }

step "dpkg-buildpackage -us -uc -b (nocheck), in a clean clone"
git clone --quiet "$src" "$work/src"
(cd "$work/src" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 ||
	{ tail -n 60 "$work/build.log"; fail "dpkg-buildpackage failed"; }
debs=()
for p in "${pkgs[@]}"; do
	debs+=("$work/${p}_"*.deb)
done

step "lintian (fails on an error or a warning; overrides shown)"
lintian --pedantic --display-info --show-overrides --fail-on error,warning \
	"$work"/libprealloc_*.changes >"$work/lintian.log" 2>&1 || lintian_rc=$?
grep -v 'running with root privileges' "$work/lintian.log" || true
[ "${lintian_rc:-0}" = 0 ] || fail "lintian reports errors or warnings"

step "install ${pkgs[*]}"
apt-get install -y --no-install-recommends "${debs[@]}" >"$work/apt.log" 2>&1 ||
	{ cat "$work/apt.log"; fail "the packages do not install"; }
for p in "${pkgs[@]}"; do
	dpkg -L "$p" >>"$work/listed"
done
while read -r f; do
	[ -e "$f" ] || fail "$f listed but not installed"
done <"$work/listed"
[ "$(prealloc --version)" = "prealloc $(dpkg-query -W -f '${Version}' prealloc)" ] ||
	fail "prealloc --version: $(prealloc --version)"
for page in "1 prealloc" "3 prealloc_file" "3type prealloc_report" "7 libprealloc"; do
	# shellcheck disable=SC2086
	man -w $page >/dev/null || fail "no manual page $page"
done

step "a C program through pkg-config, shared and static"
example=$src/examples/zeroing-plan.c
# shellcheck disable=SC2046
cc -Wall -Wextra -Werror -o "$work/zp" "$example" $(pkg-config --cflags --libs libprealloc)
# shellcheck disable=SC2046
cc -Wall -Wextra -Werror -o "$work/zp-static" "$example" \
	$(pkg-config --cflags libprealloc) -Wl,-Bstatic -lprealloc -Wl,-Bdynamic \
	$(pkg-config --libs-only-l --static libprealloc | sed 's/-lprealloc//')
for exe in zp zp-static; do
	out=$("$work/$exe" "$example")
	case $out in
	*"zeroing offloaded: "*"1 GiB: "*) echo "$exe: $out" ;;
	*) fail "$exe: unexpected output: $out" ;;
	esac
done
# grep reads all of it: under pipefail a grep -q that stops at the first
# match can kill ldd with SIGPIPE and fail the pipe.
ldd "$work/zp" | grep -E 'libprealloc.so.1 => (/usr)?/lib/' >/dev/null || fail "zp does not load the packaged library"
! ldd "$work/zp-static" | grep -q libprealloc || fail "zp-static loads libprealloc.so"

step "prealloc exec with the packaged interposer: util-linux's fallocate(1), unchanged"
# Dynamically linked: the interposer at the path the packaged tool knows.
# Vouched for: fallocate(1) writes nothing while it calls fallocate(), and
# the zeros are ordered only on xfs with exchange-range.
prealloc exec --quiet --unordered "$work/exec-test" -- fallocate -l 8M "$work/exec-test"
prealloc verify "$work/exec-test" >/dev/null || fail "fallocate(1) under prealloc exec left the file unwritten"

step "a CMake project: find_package(libprealloc 0.3 REQUIRED)"
"$src/tests/checks/check-cmake.sh" "$src" none --system

step "pg_prealloc in a PostgreSQL $pg_version cluster"
mkdir -p "$pgdata"
chown -R postgres: "$work/pg"
runuser -u postgres -- "$pg_bin/initdb" -A trust -D "$pgdata" >"$work/initdb.log" 2>&1 ||
	{ cat "$work/initdb.log"; fail "initdb failed"; }
cat >>"$pgdata/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$sock'
port = $port
shared_preload_libraries = 'pg_prealloc'
pg_prealloc.naptime = 20ms
CONF
runuser -u postgres -- "$pg_bin/pg_ctl" -w -t 60 -D "$pgdata" -l "$work/pg/log" start >/dev/null ||
	{ cat "$work/pg/log"; fail "the cluster does not start with pg_prealloc"; }
q() { runuser -u postgres -- "$pg_bin/psql" -X -qAt -v ON_ERROR_STOP=1 -h "$sock" -p $port -d postgres -c "$1"; }
q "CREATE EXTENSION pg_prealloc"
# The worker's first rounds: wait for it (bounded), not for a time.
for _ in $(seq 600); do
	[ "$(q 'SELECT rounds > 0 AND worker_pid > 0 FROM pg_prealloc')" = t ] && break
	sleep 0.1
done
[ "$(q 'SELECT rounds > 0 AND worker_pid > 0 FROM pg_prealloc')" = t ] ||
	{ q 'SELECT * FROM pg_prealloc'; cat "$work/pg/log"; fail "the worker did not run a round in 60 s"; }
# The worker the view names is the postmaster's child, titled as such.
wpid=$(q 'SELECT worker_pid FROM pg_prealloc')
[ "$(ps -o ppid= -p "$wpid" | tr -d ' ')" = "$(head -n1 "$pgdata/postmaster.pid")" ] &&
	ps -o args= -p "$wpid" | grep 'pg_prealloc' >/dev/null ||
	fail "worker $wpid is not the postmaster's pg_prealloc: $(ps -o ppid=,args= -p "$wpid")"
echo "worker: $(q 'SELECT worker_pid, rounds, plan FROM pg_prealloc')"
runuser -u postgres -- "$pg_bin/pg_ctl" -w -D "$pgdata" stop >/dev/null

step "purge: nothing the packages installed is left"
dpkg --purge "${pkgs[@]}" >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; fail "purge failed"; }
for p in "${pkgs[@]}"; do
	[ -z "$(dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null)" ] ||
		[ "$(dpkg-query -W -f '${db:Status-Status}' "$p")" = not-installed ] ||
		fail "$p is still known to dpkg"
done
left=0
while read -r f; do
	[ -e "$f" ] || [ -L "$f" ] || continue
	# A directory stays when another package owns it or holds files in it.
	if [ -d "$f" ] && ! [ -L "$f" ] && { dpkg -S "$f" >/dev/null 2>&1 || [ -n "$(ls -A "$f")" ]; }; then
		continue
	fi
	echo "left behind: $f" >&2
	left=1
done <"$work/listed"
[ $left = 0 ] || fail "files left behind after purge"
echo "debian: $(wc -l <"$work/listed") paths of ${#pkgs[@]} packages installed and purged, all passed"

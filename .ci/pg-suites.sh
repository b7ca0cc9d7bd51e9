#!/bin/bash
# CI: PostgreSQL 18's own pg_waldump and pg_rewind suites with pg_prealloc
# loaded (examples/postgresql/tests/pg-suites.sh), PostgreSQL built from
# Debian sid's source package.  pg_waldump's suite is the one a zero-filled
# segment ahead used to break; pg_rewind's is the one that copied the pool.
# The other suites and majors take hours here: examples/postgresql/README.md,
# "PostgreSQL's own suites with pg_prealloc loaded".  When the source cannot be downloaded, says so and passes.
set -euo pipefail
cd "$(dirname "$0")/.."
W=/var/tmp/prealloc-ci-pg A=/var/tmp/prealloc-ci-pg/apt
rm -rf "$W"
mkdir -p "$A/empty" "$A/state/lists/partial" "$A/cache/archives/partial"
touch "$A/state/status"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
	"http://deb.debian.org/debian sid main" > "$A/sources.list"
apt_private=(-o "Dir::Etc::SourceList=$A/sources.list" -o "Dir::Etc::SourceParts=$A/empty"
	-o "Dir::State=$A/state" -o "Dir::State::status=$A/state/status"
	-o "Dir::Cache=$A/cache" -o Acquire::Languages=none -o APT::Sandbox::User=root)
if ! { apt-get "${apt_private[@]}" update &&
       (cd "$W" && apt-get "${apt_private[@]}" source --download-only postgresql-18); } \
	> "$W/apt.log" 2>&1; then
	tail -5 "$W/apt.log"
	echo "pg-suites: PostgreSQL 18's source package could not be downloaded: not run"
	exit 0
fi
dsc=$(ls "$W"/postgresql-18_*.dsc)
rc=0
SUITES="pg_waldump pg_rewind" MODES=with \
	examples/postgresql/tests/pg-suites.sh "$dsc" "$W/work" || rc=$?
[ "$rc" != 77 ] || { echo "pg-suites: cannot run here (see above): skipped"; rc=0; }
exit "$rc"

# SPDX-License-Identifier: MIT
# Helpers for pg_prealloc's tests and bench, sourced: a PostgreSQL cluster
# run by the postgres user on a loop filesystem, in this process's private
# mount namespace.  Needs PG_BINDIR, PGP_MODULE, PGP_SQL set by the caller.

pg() { runuser -u postgres -- "$PG_BINDIR/$@"; }

# q PORT SQL: one value (or rows), unaligned.
q() { pg psql -X -qAt -v ON_ERROR_STOP=1 -h "$SOCK" -p "$1" -d postgres -c "$2"; }

# A filesystem of TYPE and SIZE (MiB) mounted at $WORK/mnt; the loop device
# is autocleared at unmount.  DIRECT=1: a direct-I/O loop device (bench).
make_fs() {
	truncate -s "$2"M "$WORK/img"
	case $1 in
	ext4) mkfs.ext4 -q -F "$WORK/img" ;;
	xfs) mkfs.xfs -q -f "$WORK/img" ;;
	esac
	mkdir -p "$WORK/mnt"
	if [ "${DIRECT:-0}" = 1 ]; then
		LOOP=$(losetup -f --show --direct-io=on "$WORK/img")
		mount "$LOOP" "$WORK/mnt"
		losetup -d "$LOOP"	# autoclear once unmounted
	else
		mount -o loop "$WORK/img" "$WORK/mnt"
	fi
	SOCK=$WORK/sock LOGS=$WORK/log
	mkdir -p "$SOCK" "$LOGS"
	chown postgres: "$WORK/mnt" "$SOCK" "$LOGS"
}

# new_cluster NAME PORT [initdb args...]: initdb'ed, configured, not started.
new_cluster() {
	local name=$1 port=$2
	shift 2
	pg initdb -A trust -D "$WORK/mnt/$name" "$@" >/dev/null
	cat >> "$WORK/mnt/$name/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$SOCK'
port = $port
shared_buffers = 32MB
max_wal_size = 4GB
checkpoint_timeout = 30min
CONF
}

with_module() {
	cat >> "$WORK/mnt/$1/postgresql.conf" <<CONF
shared_preload_libraries = '$PGP_MODULE'
CONF
}

start() { pg pg_ctl -w -t 120 -D "$WORK/mnt/$1" -l "$LOGS/$1.log" start >/dev/null; }
stop() { pg pg_ctl -w -t 120 -D "$WORK/mnt/$1" -m "${2:-fast}" stop >/dev/null; }

# The extension's SQL, as CREATE EXTENSION would run it from the install.
create_ext() {
	sed -e "s|MODULE_PATHNAME|$PGP_MODULE|" -e '/^\\echo/d' "$PGP_SQL" |
		pg psql -X -q -v ON_ERROR_STOP=1 -h "$SOCK" -p "$1" -d postgres >/dev/null
}

# until_true PORT SQL: poll a condition, at most 60 s.
until_true() {
	local i
	for i in $(seq 600); do
		[ "$(q "$1" "$2" 2>/dev/null)" = t ] && return 0
		sleep 0.1
	done
	echo "timed out waiting for: $2" >&2
	q "$1" "SELECT * FROM pg_prealloc" >&2 || true
	return 1
}

# Stop every cluster still running under $WORK/mnt, unmount, remove.
cleanup() {
	local status=$? d
	[ $status = 0 ] || tail -n 30 "$WORK"/log/*.log >&2 2>/dev/null || true
	for d in "$WORK"/mnt/*/; do
		[ -f "$d/postmaster.pid" ] &&
			pg pg_ctl -D "$d" -m immediate stop >/dev/null 2>&1
	done
	mountpoint -q "$WORK/mnt" && umount "$WORK/mnt"
	rm -rf "$WORK"
}

# The WAL-heavy script: 50 rows of 2 KiB hex from random() per transaction
# (pglz finds nothing to compress in it).
walheavy_setup() {
	q "$1" "CREATE TABLE IF NOT EXISTS walheavy (id int, t text)"
	cat > "$WORK/walheavy.sql" <<'SQL'
INSERT INTO walheavy SELECT g, (SELECT string_agg(md5(random()::text || g || i), '') FROM generate_series(1, 64) i) FROM generate_series(1, 50) g;
SQL
	chmod 644 "$WORK/walheavy.sql"
}

# WALInit wait events seen in N samples of pg_stat_activity, ~10 ms apart.
sampler_setup() {
	q "$1" "CREATE OR REPLACE FUNCTION walinit_samples(n int) RETURNS int AS \$\$
DECLARE c int := 0; k int;
BEGIN
	FOR i IN 1..n LOOP
		PERFORM pg_stat_clear_snapshot();
		SELECT count(*) INTO k FROM pg_stat_activity
		 WHERE wait_event IN ('WALInitWrite', 'WALInitSync');
		c := c + k;
		PERFORM pg_sleep(0.01);
	END LOOP;
	RETURN c;
END \$\$ LANGUAGE plpgsql"
}

\echo Use "CREATE EXTENSION pg_prealloc" to load this file. \quit

CREATE FUNCTION pg_prealloc_stats(
	OUT worker_pid integer,
	OUT timeline bigint,
	OUT segments_ahead integer,
	OUT present_ahead integer,
	OUT installed_ahead integer,
	OUT installed bigint,
	OUT switched_installed bigint,
	OUT misses bigint,
	OUT pool_empty bigint,
	OUT rounds bigint,
	OUT pool_ready integer,
	OUT pool_target integer,
	OUT created bigint,
	OUT removed bigint,
	OUT bytes_zeroed bigint,
	OUT enospc bigint,
	OUT last_error text,
	OUT plan text)
RETURNS record
AS 'MODULE_PATHNAME', 'pg_prealloc_stats'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE VIEW pg_prealloc AS SELECT * FROM pg_prealloc_stats();

REVOKE ALL ON FUNCTION pg_prealloc_stats() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pg_prealloc_stats() TO pg_monitor;
REVOKE ALL ON pg_prealloc FROM PUBLIC;
GRANT SELECT ON pg_prealloc TO pg_monitor;

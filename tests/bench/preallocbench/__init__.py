# SPDX-License-Identifier: MIT
"""libprealloc's benchmarks (tests/bench/RESULTS.md).

  cli        run-bench.py: options, sections per filesystem, results
  fs         ext4/xfs on direct-I/O loop devices, or --dir; the machine
  driver     one sample: prealloc-bench, dd, fio
  stats      medians, per-run ratios and their IQRs
  sections   zero, frag, overwrite, probe, scale, sweep
  background preallocating beside a foreground fio job
  cache      the page cache a call leaves; a working set beside a call
  report     run-bench.py's markdown report
  wal        run-wal-bench.py: WAL commit latency with the segment pool
  rocksdb    run-rocksdb-bench.py: db_bench with the RocksDB plugin

The entry points are the scripts beside this folder; only the Python
standard library is used.
"""

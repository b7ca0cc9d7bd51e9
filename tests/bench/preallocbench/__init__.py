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
  guest      run-vm-bench.py: the report of tests/vm/bg-guest.sh's trials
  calls      run-call-bench.py: one call's cost against an older version
  pgbench    pg-bench.sh's figures and report (python3 -m preallocbench.pgbench)
  etcd       etcd-bench.sh's figures and report (python3 -m preallocbench.etcd)
  markdown   the reports' tables
  session    what every runner does first and last

The entry points are the scripts beside this folder (pg-bench.sh and
etcd-bench.sh drive their databases in shell and hand the numbers to their
modules); only the Python standard library is used.
"""

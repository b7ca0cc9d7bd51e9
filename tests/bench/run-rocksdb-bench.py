#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""RocksDB's db_bench with and without libprealloc-rocksdb.so
(preallocbench/rocksdb.py; --help)."""
from preallocbench.rocksdb import main

main()

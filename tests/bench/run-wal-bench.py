#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""WAL commit latency: the ready-segment pool against what databases do
(preallocbench/wal.py; --help)."""
from preallocbench.wal import main

main()

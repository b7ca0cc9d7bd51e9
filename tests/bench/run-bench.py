#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Benchmark libprealloc against what databases do today
(preallocbench/cli.py; --help)."""
from preallocbench.cli import main

main()

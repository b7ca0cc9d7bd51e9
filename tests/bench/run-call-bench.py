#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One call's cost, this tree against an older version built beside it
(preallocbench/calls.py; --help)."""
from preallocbench.calls import main

main()

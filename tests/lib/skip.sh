#!/bin/sh
# A test whose program is not there (a database, a toolchain) is still
# registered, and skips (77) saying why and what brings it in.
# usage: skip.sh REASON...
echo "$*: skipped"
exit 77

# Masks what changes from run to run in the prealloc tool's output before it
# is compared with tests/fs/expected/*.out (sed -E; see tests/fs/test-cli-golden.c).
# Elapsed times and rates.
s/[0-9]+\.[0-9]+ s$/N.NNN s/
s/"seconds":[-+.e0-9]+/"seconds":N/g
s/"bytes_per_sec":[0-9]+/"bytes_per_sec":N/g
# Device numbers and loop device names (the test's own loop devices).
s/\b[0-9]+:[0-9]+\b/MAJ:MIN/g
s/loop[0-9]+/loopN/g
# The kernel release the answers come from.
s/\(Linux [^)]*\)/(Linux RELEASE)/g
s/("kernel_release":")[^"]*"/\1RELEASE"/
s/^(  kernel_release: ).*/\1RELEASE/
# What became of FALLOC_FL_WRITE_ZEROES on the test's loop device: the
# kernel's to say (no such mode before 6.17, a loop cannot unmap-zero after).
s/(write-zeroes: |"write_zeroes":")(no-kernel|device-cannot)/\1LOOP/g
# JSON: one member per line, so that a difference is one line of the diff.
s/,"/,\n"/g

# shellcheck shell=bash
# Sourced: dropin_options CONF puts the options the systemd drop-in CONF of
# this folder gives `prealloc exec` (its ExecStart= between "prealloc exec"
# and "--", quoted alike for systemd and the shell) in the array
# dropin_opts, so the tests and benchmarks run with what is shipped.
dropin_options() {
	local line
	line=$(grep -m1 '^ExecStart=.*prealloc exec ' "$1") || return 1
	line=${line#*prealloc exec }
	line=${line%% -- *}
	eval "dropin_opts=($line)"
}

#!/bin/sh
# An option that more than one command of the tool takes means one thing in
# each (util-linux's habit), as every command's --help lists it: one long
# name per letter and one letter per long name, an argument in all or in
# none, and the same default (the parenthesis ending its line).  Two
# exceptions, which prealloc(1) explains: --length (run requires it, probe
# plans 1 MiB without it, verify counts to the end of the file) and
# --zero-data on a block device (run requires it, probe implies it).
# usage: check-cli-options.sh TOOL
set -eu
tool=$1
cmds=$("$tool" --help | awk '/^Commands:/ { f = 1; next } f && /^ [a-z]/ { print $1 } /^$/ { f = 0 }')
[ -n "$cmds" ] || { echo "no commands in $tool --help" >&2; exit 1; }
for c in $cmds; do
	# " -o, --offset N   text (default 0)" -> "run o offset N (default 0)"
	"$tool" "$c" --help | sed -nE "s/^ -(.), --([a-z-]+)( [A-Z])? +(.*)$/$c \1 \2 \3|\4/p" |
		awk -F'|' '{ d = ""
		             if (match($2, /\([^)]*\)$/)) d = substr($2, RSTART, RLENGTH)
		             split($1, f, " "); print f[1], f[2], f[3], (f[4] == "" ? "-" : f[4]), d }'
done | awk '
	{ cmd = $1; short = $2; long = $3; arg = $4; $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); def = $0
	  n++
	  if (short in long_of && long_of[short] != long) {
		printf "-%s is --%s in %s but --%s in %s\n", short, long_of[short], where_s[short], long, cmd; bad = 1 }
	  if (long in short_of && short_of[long] != short) {
		printf "--%s is -%s in %s but -%s in %s\n", long, short_of[long], where_l[long], short, cmd; bad = 1 }
	  if (long in arg_of && arg_of[long] != arg) {
		printf "--%s takes %s in %s but %s in %s\n", long, arg_of[long], where_l[long], arg, cmd; bad = 1 }
	  if (long != "length" && long != "zero-data" && long in def_of && def_of[long] != def) {
		printf "--%s: \"%s\" in %s but \"%s\" in %s\n", long, def_of[long], where_l[long], def, cmd; bad = 1 }
	  if (!(short in long_of)) { long_of[short] = long; where_s[short] = cmd }
	  if (!(long in short_of)) { short_of[long] = short; arg_of[long] = arg; def_of[long] = def; where_l[long] = cmd }
	}
	END { if (n < 10) { print "only " n " options found in the commands'"'"' --help" ; bad = 1 }
	      if (bad) exit 1; print "1 passed, 0 failed" }'

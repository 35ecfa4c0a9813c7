#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The test harness's own judges (scripts/common.sh), on synthetic input:
#
# - ressd_our_warnings finds a warning of ours in a build log whose build
#   directory is named after a kernel release with a '+' in it
#   (6.12.117+deb12), and nothing else;
# - ressd_kunit_judge, on the kernel log of the KUnit suites of the tree as
#   6.1 prints it (no top-level header) and as 6.12 prints it (one per
#   module), passes every case when all passed, and fails the layer when a
#   case failed, when the last suite was cut short, when a whole suite is
#   missing, and when a suite says "not ok" although its cases passed.
#
# The KTAP parser is the kernel's own kunit.py (from linux-source-6.1).
# Prints what it checks; exits non-zero on the first failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/common.sh
. "$top/scripts/common.sh"

fail() {
	echo "FAIL: $*"
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- ressd_our_warnings ----
b=$tmp/debian-6.12.117+deb12-amd64
mkdir -p "$b"
{
	echo "$b/dm-ressd.c:12:3: warning: unused variable 'x' [-Wunused-variable]"
	echo "$b/dm-ressd.c: In function 'ressd_ctr':"
	echo "/usr/src/linux-headers-6.12.117+deb12-common/include/linux/foo.h:1:1: warning: not ours"
	echo "$b/dm-ressd-log.c:7: error: expected ';'"
} >"$b.log"
n=$(ressd_our_warnings "$b" "$b.log" | wc -l)
[ "$n" = 2 ] || fail "ressd_our_warnings found $n of our 2 diagnostics under $b"
echo "ok: ressd_our_warnings finds our 2 diagnostics under a build directory with '+' in its name"

# ---- ressd_kunit_judge ----
src=$(ressd_source_tree 6.1) || fail "linux-source-6.1 is not installed (run scripts/deps.sh)"
kunitpy=$src/tools/testing/kunit/kunit.py
mapfile -t suites < <(ressd_kunit_suites)
[ ${#suites[@]} -ge 2 ] || fail "ressd_kunit_suites found ${#suites[@]} suites"
echo "ok: the tree has ${#suites[@]} KUnit suites: ${suites[*]}"

# gen <6.1|6.12> <mutation>: the kernel log of two modules (the first
# suite in one, the others in the second), each suite with two cases.
gen() {
	local form=$1 mut=$2 m i s n last=$((${#suites[@]} - 1)) first
	echo "[    1.000000] dm_ftlsim: loading out-of-tree module taints kernel."
	for m in 0 1; do
		if [ $m = 0 ]; then first=0 n=1; else first=1 n=$last; fi
		if [ "$form" = 6.12 ]; then
			echo "[    1.100000] KTAP version 1"
			echo "[    1.100000] 1..$n"
		fi
		for ((i = first; i < first + n; i++)); do
			s=${suites[$i]}
			[ "$mut" = missing ] && [ $i = 1 ] && continue
			echo "[    1.200000]     KTAP version 1"
			echo "[    1.200000]     # Subtest: $s"
			echo "[    1.200000]     1..2"
			echo "[    1.200000]     ok 1 ${s}_case_a"
			if [ "$mut" = cut ] && [ $i = $last ]; then
				return
			fi
			if [ "$mut" = failcase ] && [ $i = 2 ]; then
				echo "[    1.200000]     # ${s}_case_b: EXPECTATION FAILED at x.c:1"
				echo "[    1.200000]     not ok 2 ${s}_case_b"
				echo "[    1.200000] # $s: pass:1 fail:1 skip:0 total:2"
				echo "[    1.200000] not ok $((i - first + 1)) $s"
				continue
			fi
			echo "[    1.200000]     ok 2 ${s}_case_b"
			echo "[    1.200000] # $s: pass:2 fail:0 skip:0 total:2"
			if [ "$mut" = suitenotok ] && [ $i = 3 ]; then
				echo "[    1.200000] not ok $((i - first + 1)) $s"
			else
				echo "[    1.200000] ok $((i - first + 1)) $s"
			fi
		done
	done
}

judge() {	# <form> <mutation>: sets P and F
	mkdir -p "$tmp/$1-$2"
	gen "$1" "$2" >"$tmp/$1-$2/kunit.dmesg"
	RESSD_PASSED=0 RESSD_FAILED=0
	ressd_kunit_judge "kunit-$1" "$tmp/$1-$2/kunit.dmesg" "$tmp/$1-$2" "$kunitpy" >"$tmp/$1-$2/judge.txt" 2>&1
	P=$RESSD_PASSED F=$RESSD_FAILED
}

cases=$((2 * ${#suites[@]}))
for form in 6.1 6.12; do
	judge $form none
	[ "$P" = $cases ] && [ "$F" = 0 ] ||
		{ cat "$tmp/$form-none/judge.txt"; fail "$form form, all passed: $P passed, $F failed (want $cases, 0)"; }
	echo "ok: $form form, all passed: $P passed, 0 failed"
	for mut in failcase cut missing suitenotok; do
		judge $form $mut
		[ "$F" -gt 0 ] ||
			{ cat "$tmp/$form-$mut/judge.txt"; fail "$form form, $mut: $P passed, 0 failed"; }
		echo "ok: $form form, $mut: $P passed, $F failed"
	done
done

# SPDX-License-Identifier: GPL-2.0-only
# What the host tests (tests/host/*.sh) share; sourced after
# scripts/common.sh.  fail: the test's first failure ends it; ok: a check
# passed (counted in $passed); skip: a check that cannot run on this host
# (counted in $skipped: the test fails at its end when any was skipped).
passed=0 skipped=0

fail() {
	echo "FAIL: $*"
	exit 1
}
ok() {
	echo "ok: $*"
	passed=$((passed + 1))
}
skip() {
	echo "SKIP: $*"
	skipped=$((skipped + 1))
}

#!/bin/bash
# Host tests (tests/host/*.sh): tools and packaging checked without a VM.
# One PASS/FAIL line each, then "N passed, N failed".
#
#   scripts/test-host.sh [name...]
set -uo pipefail
. "$(dirname "$0")/common.sh"
out=$RESSD_TOP/.out/host
rm -rf "$out"
mkdir -p "$out"
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
	for t in "$RESSD_TOP"/tests/host/*.sh; do
		tests+=("$(basename "$t" .sh)")
	done
fi
passed=0 failed=0
for name in "${tests[@]}"; do
	if bash "$RESSD_TOP/tests/host/$name.sh" >"$out/$name.log" 2>&1; then
		echo "PASS [host] $name"
		passed=$((passed + 1))
	else
		echo "FAIL [host] $name"
		tail -n 20 "$out/$name.log" | sed 's/^/    /'
		failed=$((failed + 1))
	fi
done
echo "$passed $failed" >"$out/counts"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

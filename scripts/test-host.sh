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
for name in "${tests[@]}"; do
	if bash "$RESSD_TOP/tests/host/$name.sh" >"$out/$name.log" 2>&1; then
		ressd_pass host "$name"
	else
		ressd_fail host "$name"
		tail -n 20 "$out/$name.log" | sed 's/^/    /'
	fi
done
ressd_report "$out/counts"

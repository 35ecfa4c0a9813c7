#!/bin/bash
# make soak: the soak test (tests/soak/soak.sh) in the UML debug kernel
# (KASAN, lockdep) for SOAK_SECONDS (default 1800), then the usual guest
# checks of the kernel log.  Prints the guest's "N passed, N failed".
#
#   SOAK_SECONDS=3600 SOAK_SEED=42 bash scripts/soak.sh
set -uo pipefail
. "$(dirname "$0")/common.sh"
export SOAK_SECONDS=${SOAK_SECONDS:-1800}
# the test's own limit, and the guest's: the soak plus time to verify
export RESSD_TEST_TIMEOUT=$((SOAK_SECONDS + 900))
export RESSD_GUEST_TIMEOUT=$((SOAK_SECONDS + 1800))
ressd_log "soak: $SOAK_SECONDS s in the UML debug kernel"
bash "$RESSD_TOP/scripts/test-guest.sh" uml "$RESSD_TOP/tests/soak/soak.sh"
rc=$?
log=$RESSD_TOP/.out/uml-$RESSD_KERNEL/results/soak.log
[ -r "$log" ] && grep -E '^(soak|FAIL)' "$log"
exit $rc

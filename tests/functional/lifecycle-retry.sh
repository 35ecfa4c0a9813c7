#!/bin/bash
# A resume retried after recovery failed (issue 12, defect 12).  Recovery
# replays the log into the index and then writes the checkpoint; when that
# write fails (the log behind dm-flakey error_writes), the resume fails.
# A second resume, with the log working again, must recover from an empty
# index: before the fix it replayed into the index the first attempt had
# filled (a WARN in the index, a panic with panic_on_warn).
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B SA=$DISK_A_SECTORS SB=$DISK_B_SECTORS
dm_create rr_log "0 $SB flakey $B 0 1 0"
L=/dev/mapper/rr_log D=/dev/mapper/rr
zero_at $L 8 0
T="0 $SA ressd $A 0 $L 0 4096"
dm_create rr "$T"
blocks=(40 33 47 38 51)
for b in "${blocks[@]}"; do
	make_block retry $b | dd of=$D bs=4096 seek=$b oflag=direct conv=notrunc status=none ||
		fail "write $b"
done
dmsetup message rr 0 commit || fail "commit"
dm_remove rr

dm_switch rr_log "0 $SB flakey $B 0 0 1 1 error_writes"
dmsetup create rr --notable || fail "create"
dmsetup load rr --table "$T" || fail "load"
dmsetup resume rr 2>/dev/null && fail "resume succeeded with a log that fails writes"
dmesg | grep -q "Error writing the checkpoint" || fail "recovery did not fail at the checkpoint"
dm_switch rr_log "0 $SB flakey $B 0 1 0"
dmsetup resume rr || fail "the second resume"
dmsetup mknodes rr >/dev/null 2>&1
echo "status: $(dmsetup status rr)"
[ "$(status_field rr 2)" = ${#blocks[@]} ] || fail "expected ${#blocks[@]} logged blocks"
for b in "${blocks[@]}"; do
	cmp -s <(dd if=$D bs=4096 skip=$b count=1 iflag=direct status=none) <(make_block retry $b) ||
		fail "block $b"
done
kmsg_take "the retried resume"
dm_remove rr
dm_remove rr_log
echo "a retried resume recovered into an empty index"

#!/bin/bash
# Data integrity through the target with fio's own checksums: random writes
# of mixed sizes from several jobs, each block verified (crc32c) after the
# write phase and again after the target is removed and re-created.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
SIZE=${FIO_SIZE:-48M}
zero_at "$B" 8 0
T="0 $DISK_A_SECTORS ressd $A 0 $B 0 65536"
dm_create fv "$T"
dev=/dev/mapper/fv

common=(--filename=$dev --ioengine=libaio --direct=1 --size=$SIZE
	--verify=crc32c --verify_state_save=0 --group_reporting)
note "write phase with inline verify: 4 jobs, 4-64 KiB random writes"
fio --name=w --rw=randwrite --bsrange=4k-64k --iodepth=8 --numjobs=4 \
	--offset_increment=$SIZE --do_verify=1 --verify_fatal=1 "${common[@]}" \
	>"$TMPDIR/fio-w.txt" 2>&1 || { tail -n 30 "$TMPDIR/fio-w.txt"; fail "fio write+verify"; }
grep -E "WRITE:|READ:" "$TMPDIR/fio-w.txt"

writes=$(status_field fv 5)
[ "$writes" -gt 0 ] || fail "direct_writes did not move ($writes)"

note "re-create the target and verify the same data again"
dm_remove fv
dm_create fv "$T"
fio --name=w --rw=randwrite --bsrange=4k-64k --iodepth=8 --numjobs=4 \
	--offset_increment=$SIZE --verify_only=1 --verify_fatal=1 "${common[@]}" \
	>"$TMPDIR/fio-v.txt" 2>&1 || { tail -n 30 "$TMPDIR/fio-v.txt"; fail "fio verify after re-create"; }
grep -E "READ:" "$TMPDIR/fio-v.txt"
dm_remove fv
echo "fio verify passed"

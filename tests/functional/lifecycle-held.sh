#!/bin/bash
# Writes held for room to record their invalidation, and a mode change
# (issue 12, defect 9).  As in suspend-full.sh, the mover is paused, the log
# full and the invalidation reserve used up by FUA records, so that O_DSYNC
# writes over logged blocks complete at home and wait for a record to take
# their invalidation; only the mover can make room.  Here the log's reads
# fail (dm-delay in front of dm-error for reads), so the mover fails and the
# target goes read-only.  The mover runs only in rw: before the fix the held
# writes waited for ever.  Now they fail (their invalidation can never be
# recorded, so the older logged copy stays the one a read returns).
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B SA=$DISK_A_SECTORS
delay_log hw_log $B
L=/dev/mapper/hw_log D=/dev/mapper/hw
dm_create hw "0 $SA ressd $A 0 $L 0 1024 2 high_watermark 100"
dmsetup message hw 0 mover pause || fail "mover pause"
fio --name=fill --filename=$D --rw=randwrite --bs=4k --size=1M --number_ios=240 \
	--direct=1 --ioengine=psync --randseed=5 --output="$TMPDIR/fio.txt" ||
	{ cat "$TMPDIR/fio.txt"; fail "fio fill"; }
[ "$(status_field hw 11)" -gt 0 ] || fail "the log did not fill: $(dmsetup status hw)"

note "log reads fail; O_DSYNC writes over logged blocks until some are held"
delay_log_reads_fail hw_log $B 0
(
	ok=0 bad=0
	for ((i = 0; i < 40; i++)); do
		if make_block "h$i" $((i * 5)) | dd of=$D bs=4096 seek=$((i * 5)) count=1 \
			oflag=direct,dsync conv=notrunc status=none 2>/dev/null; then
			ok=$((ok + 1))
		else
			bad=$((bad + 1))
		fi
	done
	echo "$ok $bad" >"$TMPDIR/held.counts"
) &
wpid=$!
wait_pid $wpid 90 || stuck "writes over logged blocks still wait 90 s after the mode change: $(dmsetup status hw)"
read -r ok bad <"$TMPDIR/held.counts"
echo "writes: $ok completed, $bad failed; status: $(dmsetup status hw)"
[ "$(status_field hw 10)" = ro ] || fail "the mover's failure did not latch ro"
[ "$bad" -gt 0 ] || fail "no write was held and failed"
kmsg_take "held writes across the mode change"
dm_remove hw
dm_remove hw_log
dm_remove hw_log_err
echo "held writes failed with the mode change instead of waiting for ever"

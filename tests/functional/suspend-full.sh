#!/bin/bash
# Writes over logged blocks with a full log and a paused mover, and a
# suspend meanwhile (found by the soak, tests/soak/soak.sh).  A write over a
# logged block goes home and is held until a log record can take its
# invalidation; with the log full (the mover paused, the invalidation
# reserve used up by FUA records) only the mover can make room.  The mover
# must then run, paused or not and also during a suspend (which waits for
# the held writes), and must be able to free a region whose blocks have
# newer data at home (their held writes).  Before the fix the writes and a
# suspend waited for ever.  Afterwards every block holds its newest data,
# also after the target is re-created.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
LOG=1024			# 512 KiB: 126 slots
zero_at "$B" 8 0
T="0 $DISK_A_SECTORS ressd $A 0 $B 0 $LOG 2 high_watermark 100"
dm_create sf "$T"
D=/dev/mapper/sf
dmsetup message sf 0 mover pause || fail "mover pause"
declare -A tag=()

note "fill the log with 4 KiB random writes (mover paused)"
fio --name=fill --filename=$D --rw=randwrite --bs=4k --size=1M --number_ios=240 \
	--direct=1 --ioengine=psync --randseed=5 --output="$TMPDIR/fio.txt" ||
	{ cat "$TMPDIR/fio.txt"; fail "fio fill"; }
echo "  status: $(dmsetup status sf)"
[ "$(status_field sf 11)" -gt 0 ] || fail "the log did not fill (no full writes)"

note "O_DSYNC writes over logged blocks, mover paused, a suspend meanwhile"
(
	for ((i = 0; i < 40; i++)); do
		b=$((i * 5))
		make_block "b$i" "$b" | dd of=$D bs=4096 seek="$b" count=1 \
			oflag=direct,dsync conv=notrunc status=none || exit 1
	done
) &
opid=$!
sleep 2
timeout 120 dmsetup suspend sf || {
	echo w >/proc/sysrq-trigger
	fail "suspend did not finish in 120 s with writes waiting for room"
}
dmsetup resume sf || fail "resume"
for ((t = 0; t < 120; t++)); do
	kill -0 $opid 2>/dev/null || break
	sleep 1
done
kill -0 $opid 2>/dev/null && { echo w >/proc/sysrq-trigger; fail "the writes over logged blocks still wait after 120 s"; }
wait $opid || fail "the overwrites failed"
for ((i = 0; i < 40; i++)); do
	tag[$((i * 5))]=b$i
done
echo "  after: $(dmsetup status sf)"
[ "$(status_field sf 11)" -gt 0 ] || fail "no write found the log full"
[ "$(status_field sf 7)" -gt 0 ] || fail "the paused mover did not make room"
dmsetup message sf 0 mover resume || fail "mover resume"

check_all() {
	local b
	for b in "${!tag[@]}"; do
		cmp -s <(dd if=$D bs=4096 skip="$b" count=1 iflag=direct status=none) \
			<(make_block "${tag[$b]}" "$b") || fail "$1: block $b does not hold ${tag[$b]}"
	done
	echo "  $1: ${#tag[@]} blocks hold their newest data"
}
check_all "after the suspend"
dm_remove sf
dm_create sf "$T"
check_all "after re-creation"
dm_remove sf
echo "writes and a suspend with a full log and a paused mover passed"

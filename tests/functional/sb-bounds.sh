#!/bin/bash
# Superblocks whose numbers are valid but at the end of their range
# (behind a good checksum: only a forged or badly damaged log has them),
# activated twice (I8: never silent damage).  Replay takes sequence numbers
# and epochs up to 2^62 - 1 and the copy with the larger generation: a log
# activated read-write from such a superblock
#  - epoch 2^62 - 1: recovery wrote epoch 2^62, which the next load
#    refused, falling back to the older copy, whose epoch refuses every
#    record written since;
#  - generation 2^64 - 1: the next superblock write wrapped to generation
#    0 and never won a load again (the same loss); with generations
#    bounded at 2^62 - 1, a copy there would write one no load takes;
#  - checkpoint sequence 2^62 - 1: records written after it took numbers
#    replay refuses.
# Writes acknowledged with FUA were lost at the second activation.  Now the
# first refuses a writable table with a message (a read-only table still
# loads), or the copy is invalid.  corrupt-log.sh activates each image once
# and never saw it.
# Oracle: per image, either a refusal with the target's own message, or
# three FUA writes made in the first activation read back in the second.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B SA=$DISK_A_SECTORS
LOGSZ=2048			# a 1 MiB log
T="0 $SA ressd $A 0 $B 0 $LOGSZ 2 high_watermark 100"
IMG=$TMPDIR/sb-bounds.img
corrupt_build
D=/dev/mapper/sbb

zero_at "$B" 8 0
dm_create sbb "$T"
for b in 0 1 2 3 4 5 6 7; do
	make_block base $b | dd of=$D bs=4096 seek=$b oflag=direct,dsync status=none || fail "write $b"
done
dm_remove sbb
dd if="$B" of="$IMG" bs=512 count=$LOGSZ iflag=direct status=none || fail "copying the log"
"$MUT" list "$IMG" >"$TMPDIR/mutations" 2>/dev/null || fail "ressd-corrupt list"

refused=0
for name in sb-both-sealed-epoch=2^62-1 sb-both-sealed-generation=2^64-1 \
	sb-both-sealed-generation=2^62-1 sb-both-sealed-generation=2^62 \
	sb-both-sealed-tail_seq=2^62-1; do
	i=$(awk -v n="$name" '$2 == n { print $1 }' "$TMPDIR/mutations")
	[ -n "$i" ] || fail "ressd-corrupt has no mutation $name"
	"$MUT" apply "$IMG" "$i" "$B" 0 >/dev/null || fail "ressd-corrupt apply $name"
	kmsg_take "before $name"
	if ! timeout -k 5 60 dmsetup create sbb --table "$T" 2>/dev/null; then
		kmsg_take "$name"
		msg=$(sed -n 's/.*device-mapper: table: [0-9]*:[0-9]*: ressd: //p' <<<"$KMSG" | head -n 1)
		[ -n "$msg" ] || { tail -n 5 <<<"$KMSG"; fail "$name: refused without a message"; }
		dmsetup info sbb >/dev/null 2>&1 && fail "$name: refused, but the device is there"
		echo "$name: refused: ${msg% (-*)}"
		refused=$((refused + 1))
		if [[ $msg == "Log sequence numbers exhausted"* ]]; then
			timeout -k 5 60 dmsetup create sbb --readonly --table "$T" ||
				fail "$name: a read-only table is refused too"
			dmsetup remove --retry sbb || fail "remove sbb"
			echo "$name: a read-only table loads"
		fi
		continue
	fi
	dmsetup mknodes sbb >/dev/null 2>&1
	for b in 100 101 102; do
		make_block "$name" $b | dd of=$D bs=4096 seek=$b oflag=direct,dsync status=none ||
			fail "$name: write $b"
	done
	dm_remove sbb
	dm_create sbb "$T"
	for b in 100 101 102; do
		cmp -s <(dd if=$D bs=4096 skip=$b count=1 iflag=direct status=none) \
			<(make_block "$name" $b) ||
			fail "$name: block $b, written with FUA, is gone after the next activation"
	done
	dm_remove sbb
	echo "$name: activated; the FUA writes read back after the next activation"
done
[ $refused -gt 0 ] || fail "no image was refused"
echo "ok: superblocks at the end of their numbers are refused or lose nothing"

#!/bin/bash
# data_csum 0: data written to the log before its trailer carries no
# crc32c ("ordered" entries); the trailer that commits it goes out with
# PREFLUSH (Documentation/dm-ressd.rst, Documentation/dm-ressd-design.rst):
#
#  - the default (data_csum 1) writes no ordered entry and leaves the
#    superblocks' incompat field 0, so that older modules load the log;
#  - "set data_csum 0" writes both superblock copies with the ordered
#    feature at once; lone writes then go to the log ordered (recovery
#    counts them) and read back, live and after re-create;
#  - a table with data_csum 1 over a log that still holds ordered entries
#    keeps the feature; once the log is drained, the next activation
#    clears it;
#  - the self-checking writer (FUA, fsync, discards, the mover running)
#    with data_csum 0 on a log device that a power cut stops: every write
#    a flush or FUA made durable reads back after re-create.  (dm-flakey
#    has no volatile cache: a completed write is on the medium, so a
#    missing PREFLUSH shows only in the crash harness, whose replays of
#    dm-log-writes' log keep to flush order: `ressd-replay trailers`.)
. "$RESSD_TOP/tests/lib/testlib.sh"
. "$RESSD_TOP/tests/lib/writer.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
SB=$DISK_B_SECTORS
ORIGIN=65536		# 32 MiB
LOGSZ=16384		# an 8 MiB log
NBLK=2048		# the writer's blocks: the first 8 MiB
N=48			# lone writes
SECS=${DATA_CSUM_WRITER_SECONDS:-6}
SBT="python3 $RESSD_TOP/tests/lib/sbtool.py"
[ "$DISK_A_SECTORS" -ge $ORIGIN ] || fail "$A is too small"
[ "$SB" -ge $LOGSZ ] || fail "$B is too small"
writer_build

# incompat <copy>: the incompat field of a superblock copy on the log device.
incompat() { $SBT show /dev/mapper/dc_b 0 "$1" | sed -n 's/^incompat=//p'; }
both_incompat() {
	local a b
	a=$(incompat 0) b=$(incompat 1)
	[ "$a" = "$1" ] && [ "$b" = "$1" ] || fail "$2: incompat $a and $b, expected $1 in both copies"
}
put() { block_put /dev/mapper/dc "$@" || fail "write of block $2"; }
expect() { block_expect /dev/mapper/dc "$@"; }
# recovered_ordered <what>: got = the ordered entries the last recovery
# replayed (it names them only when there are some).
recovered_ordered() {
	kmsg_take "$1"
	grep -q "recovered [0-9]* records:" <<<"$KMSG" || fail "$1: no recovery in the kernel log"
	got=$(sed -n 's/.*recovered \([0-9]*\) ordered entries.*/\1/p' <<<"$KMSG" | tail -n 1)
	got=${got:-0}
}

dm_create dc_b "$(flakey_pass "$B" "$SB")"
zero_at /dev/mapper/dc_b 8 0
T="0 $ORIGIN ressd $A 0 /dev/mapper/dc_b 0 $LOGSZ"
mapfile -t blocks < <(shuf -i $NBLK-$((2 * NBLK - 1)) -n $N --random-source=<(yes 3))

note "data_csum 1 (the default): no ordered entry, no feature"
kmsg_take "setup"
dm_create dc "$T"
dmsetup message dc 0 mover pause || fail "mover pause"
for b in "${blocks[@]:0:8}"; do
	put one "$b"
done
dmsetup message dc 0 commit || fail "commit"
dmsetup table dc | grep -q data_csum && fail "data_csum shown at its default: $(dmsetup table dc)"
both_incompat 0 "data_csum 1"
dm_remove dc
dm_create dc "$T"
recovered_ordered "re-create with data_csum 1"
[ "$got" = 0 ] || fail "recovery found '$got' ordered entries in a data_csum 1 log"

note "set data_csum 0: the feature on disk at once, lone writes ordered"
dmsetup message dc 0 mover pause || fail "mover pause"
dmsetup message dc 0 set data_csum 0 || fail "set data_csum 0"
both_incompat 1 "after set data_csum 0"
dmsetup table dc | grep -q " data_csum 0" || fail "data_csum 0 not in the table: $(dmsetup table dc)"
for b in "${blocks[@]}"; do
	put two "$b"
	expect two "$b" "just written"
done
dmsetup message dc 0 commit || fail "commit"
dm_remove dc
dm_create dc "$T 2 data_csum 0"
dmsetup message dc 0 mover pause || fail "mover pause"
recovered_ordered "re-create with data_csum 0"
echo "recovery: $got ordered entries"
[ -n "$got" ] && [ "$got" -ge $((N - 8)) ] ||
	fail "recovery found '$got' ordered entries after $N lone writes with data_csum 0"
for b in "${blocks[@]}"; do
	expect two "$b" "after re-create"
done
both_incompat 1 "re-created with data_csum 0"

note "data_csum 1 over ordered entries keeps the feature; after a drain it goes"
dm_remove dc
dm_create dc "$T"
recovered_ordered "re-create with data_csum 1 over ordered entries"
[ "$got" -ge $((N - 8)) ] || fail "recovery found '$got' ordered entries"
both_incompat 1 "data_csum 1, ordered entries in the log"
for b in "${blocks[@]}"; do
	expect two "$b" "data_csum 1 over ordered entries"
done
dmsetup message dc 0 drain || fail "drain"
dm_remove dc
dm_create dc "$T"
both_incompat 0 "data_csum 1 after a drain"
for b in "${blocks[@]}"; do
	expect two "$b" "after the drain"
done
dm_remove dc

note "the writer with data_csum 0, then a power cut of the log device"
dm_create dc "$T 2 data_csum 0"
J=$TMPDIR/data-csum.journal
rm -f "$J"
writer_run dc "$J" 5151 "writer"
[ "$(status_field dc 7)" -gt 0 ] || fail "the mover did not run: $(dmsetup status dc)"
# Acknowledged, not all flushed: the cut may lose what no flush covered.
dmsetup reload dc_b --table "$(flakey_drop "$B" "$SB")" || fail "reload dc_b"
cut=$("$WRITER" now)
dmsetup suspend --nolockfs dc_b && dmsetup resume dc_b || fail "switching dc_b to dropping"
dm_remove dc
dm_switch dc_b "$(flakey_pass "$B" "$SB")"
dm_create dc "$T 2 data_csum 0"
recovered_ordered "re-create after the cut"
echo "recovery after the cut: $got ordered entries"
[ -n "$got" ] && [ "$got" -gt 0 ] || fail "no ordered entry to recover after the cut"
writer_verify /dev/mapper/dc "$J" "after the cut" crash "$cut"
dm_remove dc
dm_remove dc_b
echo "data-csum passed"

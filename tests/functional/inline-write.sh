#!/bin/bash
# Small writes that find the log idle are remapped to their slots by map()
# itself, without the worker (status extra 25, inline_log_writes;
# Documentation/dm-ressd-design.rst, "Small random writes"):
#
#  - lone 4 KiB direct writes, one at a time, mover paused: every one is
#    redirected and all but a few are inline (the write that fills a record
#    seals it, and the next may find that record being written); each reads
#    back its own data at once, and again after the target is re-created
#    (recovery replays them);
#  - with the module parameter commit_delay_us set, none is inline;
#  - the self-checking writer (4 threads: inline and gathered writes mixed,
#    FUA, fsync, discards) with the mover running, verified live and after
#    re-create;
#  - a log write that fails on the inline path: that write fails with EIO,
#    the mode latches fail (I8), and once the fault is cleared and the
#    target re-created, every block written and committed before reads back
#    and the failed block holds its previous data.
. "$RESSD_TOP/tests/lib/testlib.sh"
. "$RESSD_TOP/tests/lib/writer.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
SB=$DISK_B_SECTORS
ORIGIN=65536		# 32 MiB
LOGSZ=16384		# an 8 MiB log
NBLK=2048		# the writer's blocks: the first 8 MiB
SECS=${INLINE_WRITER_SECONDS:-8}
N=64			# lone writes
CD=/sys/module/dm_ressd/parameters/commit_delay_us
[ "$DISK_A_SECTORS" -ge $ORIGIN ] || fail "$A is too small"
[ "$SB" -ge $LOGSZ ] || fail "$B is too small"
writer_build

cd0=$(cat $CD) || fail "no $CD"
cleanup() {
	echo "$cd0" >$CD
	dmsetup resume il_b >/dev/null 2>&1
}
trap cleanup EXIT

inline() { status_field il 25; }
redir() { status_field il 4; }
# put <tag> <block>: one 4 KiB direct write of make_block's pattern.
put() { block_put /dev/mapper/il "$@"; }
# expect <tag> <block> <what>: the block reads back as that pattern.
expect() { block_expect /dev/mapper/il "$@"; }

dm_create il_b "$(flakey_pass "$B" "$SB")"
zero_at /dev/mapper/il_b 8 0
T="0 $ORIGIN ressd $A 0 /dev/mapper/il_b 0 $LOGSZ"
dm_create il "$T"
[ -n "$(inline)" ] || fail "no status extra 25 (inline_log_writes): $(dmsetup status il)"
dmsetup message il 0 mover pause || fail "mover pause"

note "$N lone writes, one at a time"
# beyond the writer's blocks, so that its run leaves them alone
mapfile -t blocks < <(shuf -i $NBLK-$((2 * NBLK - 1)) -n $N --random-source=<(yes 7))
i0=$(inline) r0=$(redir)
for b in "${blocks[@]}"; do
	put one "$b" || fail "write of block $b"
	expect one "$b" "just written"
done
di=$(($(inline) - i0)) dr=$(($(redir) - r0))
show_status il "after the lone writes"
echo "lone writes: $dr redirected, $di of them inline"
[ "$dr" = $N ] || fail "$dr of $N lone writes were redirected to the log"
[ "$di" -ge $((N - 4)) ] || fail "only $di of $N lone writes to an idle log were inline"
[ "$(status_field il 2)" -ge $N ] || fail "the lone writes are not mapped: $(dmsetup status il)"

note "re-create: recovery replays them"
dm_remove il
dm_create il "$T"
dmsetup message il 0 mover pause || fail "mover pause"
for b in "${blocks[@]}"; do
	expect one "$b" "after re-create"
done
[ "$(status_field il 2)" -ge $N ] || fail "recovery mapped too few blocks: $(dmsetup status il)"

note "commit_delay_us 200: no write is inline"
echo 200 >$CD || fail "setting commit_delay_us"
i0=$(inline) r0=$(redir)
for b in "${blocks[@]:0:16}"; do
	put two "$b" || fail "write of block $b"
	expect two "$b" "with commit_delay_us"
done
echo "$cd0" >$CD
[ $(($(redir) - r0)) = 16 ] || fail "writes with commit_delay_us were not redirected"
[ "$(inline)" = "$i0" ] || fail "$(($(inline) - i0)) writes inline with commit_delay_us 200"

note "the writer, mover running"
dm_remove il
dm_create il "$T"
i0=$(inline)
J=$TMPDIR/inline.journal
rm -f "$J"
writer_run il "$J" 4242 "writer"
[ "$(status_field il 7)" -gt 0 ] || fail "the mover did not run: $(dmsetup status il)"
di=$(($(inline) - i0))
echo "writer: $di inline of $(redir) redirected writes"
[ "$di" -gt 0 ] || fail "no writer write was inline"
[ "$di" -lt "$(redir)" ] || fail "every writer write was inline: none gathered"
dm_remove il
dm_create il "$T"
writer_verify /dev/mapper/il "$J" "after re-create"

note "a failing log write on the inline path"
dmsetup message il 0 mover pause || fail "mover pause"
for b in "${blocks[@]:0:16}"; do
	put three "$b" || fail "write of block $b"
done
dmsetup message il 0 commit || fail "commit"
bad=${blocks[20]}
dmsetup reload il_b --table "0 $SB flakey $B 0 0 1 1 error_writes" || fail "reload il_b"
dmsetup suspend il_b && dmsetup resume il_b || fail "switching il_b to error_writes"
i0=$(inline)
put four "$bad" 2>"$TMPDIR/dd.err" && fail "a write over a failing log succeeded"
grep -q "Input/output error" "$TMPDIR/dd.err" || fail "not EIO: $(cat "$TMPDIR/dd.err")"
[ $(($(inline) - i0)) = 1 ] || fail "the failed write did not take the inline path"
[ "$(status_field il 10)" = fail ] || fail "mode did not latch fail: $(dmsetup status il)"
timeout 60 dmsetup remove il || fail "remove after the failure"
dm_switch il_b "$(flakey_pass "$B" "$SB")"
dm_create il "$T"
show_status il "after recovery"
for b in "${blocks[@]:0:16}"; do
	expect three "$b" "committed before the failure"
done
for b in "${blocks[@]:16}"; do
	expect one "$b" "written before the failure"
done
dm_remove il
dm_remove il_b
echo "inline-write passed"

#!/bin/bash
# Live power cuts (I1 durability, I2 no stale resurrection, I3 no foreign
# data): dm-flakey under the target for both the origin and the log.  The
# self-checking writer runs; at a random moment both flakey devices switch to
# dropping every write (flushes included), the writer keeps going for a
# while, so that acknowledged but dropped writes exist, then stops.  The
# target is removed, the flakey devices pass everything again, the target is
# re-created (recovery), and every block must hold a crc-valid copy of
# itself no older than its newest write that was durable at the cut: one
# whose flush, or O_DSYNC write, completed before the cut time.
#
# Crashes come in chains of two and three on one log (POWERCUT_CHAINS,
# default 4: depths 3, 2, 3, 2): after each recovery the writer's journal
# records what the target presented, the next run continues the journal,
# and the next crash must keep that and never bring back what an earlier
# crash lost (ressd-writer "Crash after crash").  The middle crash of a
# three-crash chain comes right after a recovery and a mover checkpoint,
# before the next log write.
#
# The cut: both new tables are loaded first; then the cut time is taken and
# both devices are suspended (the origin first), then both resumed with the
# dropping tables.  A write that reached either device before its suspend
# persists; anything after it is dropped; I/O issued to a suspended device
# waits and is dropped.  So no write can persist that depends on one that
# completed after the cut began: a crash at the log's suspend, with the
# origin's later writes still in its volatile cache.
#
# Each chain runs on one of four geometries (POWERCUT_SEED, printed, picks
# the order; four chains cover all of them): a 2 MiB log on its own device,
# with sd-card's device model and mover_policy density, so that the mover
# writes whole 64 KiB erase units, filled from home, and copies the blocks of
# sparse units forward;
# the smallest log the target accepts (72 KiB) with mover_batch 16, so that
# every record holds one block and every FUA write fills its record; records
# of up to 519 blocks (mover_batch 4160, more than one bio's 256 vectors)
# with data_csum 0 (chunks without crc32c, their trailer with PREFLUSH);
# and the log at the end of the origin's device, 509 slots (records end at
# odd places near the end of the log: one-slot records and padding).
. "$RESSD_TOP/tests/lib/testlib.sh"
. "$RESSD_TOP/tests/lib/writer.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
SA=$DISK_A_SECTORS SB=$DISK_B_SECTORS
NBLK=16384		# the first 64 MiB of the normal area
CHAINS=${POWERCUT_CHAINS:-4}
GSEED=${POWERCUT_SEED:-$RANDOM}
wpid=

cleanup() {	# leave no writer and no suspended device behind
	[ -n "$wpid" ] && kill -KILL "$wpid" 2>/dev/null
	dmsetup resume pc_a >/dev/null 2>&1
	dmsetup resume pc_b >/dev/null 2>&1
}
trap cleanup EXIT

writer_build
dm_create pc_a "$(flakey_pass $A $SA)"
dm_create pc_b "$(flakey_pass $B $SB)"
FA=/dev/mapper/pc_a FB=/dev/mapper/pc_b
lost_total=0
echo "geometry seed $GSEED (POWERCUT_SEED)"

# geometry <n>: sets T (the table) and zeroes its log's superblocks.
geometry() {
	local shared_log=4088 olen
	case $1 in
	0) GEO="separate log, 4096 sectors, sd-card's model, mover_policy density (units filled, blocks copied forward)"
	   T="0 $SA ressd $FA 0 $FB 0 4096 6 high_watermark 50 dev_model $MODEL_SD_CARD mover_policy density"
	   zero_at $FB 8 0 ;;
	1) GEO="smallest log (144 sectors), mover_batch 16, small_write_max 8"
	   T="0 $SA ressd $FA 0 $FB 0 144 6 high_watermark 50 mover_batch 16 small_write_max 8"
	   zero_at $FB 8 0 ;;
	2) GEO="separate log, 16384 sectors, mover_batch 4160, data_csum 0"
	   T="0 $SA ressd $FA 0 $FB 0 16384 6 high_watermark 50 mover_batch 4160 data_csum 0"
	   zero_at $FB 8 0 ;;
	3) olen=$(( (SA - shared_log) / 8 * 8 ))
	   GEO="shared device, log of $shared_log sectors after $olen"
	   T="0 $olen ressd $FA 0 $FA $olen $shared_log 2 high_watermark 50"
	   zero_at $FA 8 "$olen" ;;
	esac
}

# power_cut <what>: the power cut.  Both dropping tables are loaded first; then
# the cut time is taken, both devices are suspended and resumed dropping.
power_cut() {
	power_cut_load pc_a $A $SA pc_b $B $SB
	[ -z "$wpid" ] || kill -0 $wpid 2>/dev/null || { cat "$W"; fail "the writer died before the cut"; }
	cut=$("$WRITER" now)
	power_cut_switch pc_a pc_b
	echo "cut $1 at $cut (switch took $(( ($("$WRITER" now) - cut) / 1000000 )) ms)"
}
# stop_writer <signal>: stop it; after the cut anything goes (the target may
# see its own dropped writes, latch an error mode and fail I/O: exit 2), but
# never a violation.
stop_writer() {
	kill -"$1" $wpid 2>/dev/null
	wait $wpid
	local rc=$?
	wpid=
	cat "$W"
	echo "writer stopped by SIG$1, exit $rc"
	[ $rc -ne 1 ] || fail "writer reported a violation"
}
ms() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

# A chain: crashes one after another on one log, the writer's journal going
# on across them.  After each recovery, verify --seen records what the target
# presented: a later crash must neither lose it nor bring back what an
# earlier crash lost.  Link 1 and the last link cut while the writer runs;
# the middle link of a three-crash chain cuts right after a recovery and a
# mover checkpoint ("drain": the recovered blocks go home and the superblock
# moves on), before the next log write, which the cut drops.
cycle=0 modelled=0 filled=0 copied=0 inlined=0 submitted=0
for chain in $(seq 1 "$CHAINS"); do
	depth=$((2 + chain % 2))		# 3, 2, 3, 2, ...
	geometry $(( (GSEED + chain) % 4 ))
	J=$TMPDIR/powercut-$chain.journal
	note "chain $chain: $GEO; $depth crashes"
	rm -f "$J"
	dm_create pc "$T"
	show_status pc "at start"
	for link in $(seq 1 "$depth"); do
		cycle=$((cycle + 1))
		seed=$((1000 + cycle))
		W=$TMPDIR/powercut-$cycle.writer
		run_ms=$((1500 + RANDOM % 3500))	# when to cut
		after_ms=$((800 + RANDOM % 1200))	# how long to write into the void
		if [ "$link" = 2 ] && [ "$depth" = 3 ]; then
			note "crash $link of chain $chain: after a checkpoint, before the next log write (seed $seed)"
			dmsetup message pc 0 drain || fail "drain after recovery"
			show_status pc "after drain"
			power_cut "after the checkpoint"
			# no reads: they may see the dropped writes
			"$WRITER" write --dev /dev/mapper/pc --blocks $NBLK --seconds 300 \
				--seed $seed --journal "$J" \
				--mix w4=30,w8=12,seq=8,dsync=6,fua=6,discard=4,fsync=3 >"$W" 2>&1 &
			wpid=$!
			wait_for_line "$W" '^started' 120 $wpid
			sleep "$(ms $after_ms)"
		else
			note "crash $link of chain $chain: seed $seed, cut after $run_ms ms, writes dropped for $after_ms ms"
			"$WRITER" write --dev /dev/mapper/pc --blocks $NBLK --seconds 300 \
				--seed $seed --journal "$J" \
				--mix w4=30,w8=12,seq=8,dsync=6,discard=4,read=30,fsync=3,wb=4,wc=4 \
				>"$W" 2>&1 &
			wpid=$!
			wait_for_line "$W" '^started' 120 $wpid
			sleep "$(ms $run_ms)"
			# Stop checking reads: after the cut they may see dropped writes.
			kill -USR1 $wpid
			wait_for_line "$W" '^reads-off' 30 $wpid
			power_cut "with the writer running"
			sleep "$(ms $after_ms)"
		fi
		sig=TERM
		[ $((cycle % 2)) -eq 0 ] && sig=KILL	# the journal must survive SIGKILL
		stop_writer $sig
		show_status pc "after the cut"
		if [[ $T == *dev_model* ]]; then
			modelled=1
			filled=$((filled + $(status_field pc 17) + $(status_field pc 18)))
			copied=$((copied + $(status_field pc 19)))
		fi
		inlined=$((inlined + $(status_field pc 25)))
		submitted=$((submitted + $(status_field pc 26)))
		dm_remove pc

		# Power back: everything passes again; creating the target recovers.
		dmsetup reload pc_a --table "$(flakey_pass $A $SA)" && dmsetup resume pc_a &&
			dmsetup reload pc_b --table "$(flakey_pass $B $SB)" && dmsetup resume pc_b ||
			fail "restoring flakey"
		dm_create pc "$T"
		show_status pc "after recovery"
		writer_verify /dev/mapper/pc "$J" "chain $chain, crash $link" crash "$cut" seen
		lost=$(writer_field "$TMPDIR/verify.out" "older")
		lost_total=$((lost_total + ${lost:-0}))
	done
	dm_remove pc
done

# The cut must have bitten: some acknowledged writes were dropped.
[ $lost_total -gt 0 ] || fail "no acknowledged write was lost: the cut did not drop writes"
# Small writes remapped to the log by map() itself were cut too.
[ "$inlined" -gt 0 ] || fail "no small write took the inline path"
echo "inline log writes before the cuts: $inlined"
# And log writes the writer's tasks issued (the end of a plug, a flush).
[ "$submitted" -gt 0 ] || fail "no log write was issued by a writer's task"
echo "submitter log writes before the cuts: $submitted"
# And the chain with a device model must have filled erase units.
if [ "$modelled" = 1 ]; then
	[ "$filled" -gt 0 ] || fail "sd-card's model, but no erase unit was filled"
	[ "$copied" -gt 0 ] || fail "mover_policy density, but no block was copied forward"
	echo "erase units filled before the cuts: $filled; blocks copied forward: $copied"
fi
dm_remove pc_a
dm_remove pc_b
echo "powercut passed: $CHAINS chains, $cycle crashes, $lost_total acknowledged non-durable blocks lost as allowed"

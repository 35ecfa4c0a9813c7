#!/bin/bash
# Replay crash harness (I1 durability, I2 no stale resurrection, I3 no
# foreign data, I6 repeatable recovery), in the manner of xfstests
# generic/455 and 482 and of CrashMonkey.
#
#   writer -> dm-ressd -> dm-log-writes -> disk A        (log on disk B)
#
# (dm-log-writes here is tests/crash/dm-log-writes-ordered.ko, target
# lw-ordered: the kernel's, but a flush logs every write completed before
# its map that no flush logged yet, not only those it took at its map.  With
# the kernel's, two flushes in flight could log a flushed write after a
# later flush and a writer mark, and the replay of the prefix up to that
# mark reported the acknowledged write as lost.)
#
# dm-ressd uses one device for the normal area and the log (the log after the
# normal area), so one dm-log-writes device records every write, flush and
# FUA of the target in completion order.  The self-checking writer
# (tests/tools/ressd-writer.c) journals its writes and marks the log-writes
# log after each completed flush and O_DSYNC write (--mark-dm), so a replay
# point maps to a cut time for `ressd-writer verify --mode crash`.  The
# workload runs in phases: the mover at a low watermark, small writes that
# wrap the log several times, the mover paused so the log fills and writes
# pass through, discards and large writes over logged blocks, and table
# reloads during the writes.
#
# tests/crash/ressd-replay.c then plans crash states from the log: every kind
# of point (FLUSH, FUA, writer mark, random cut, just after a checkpoint:
# a superblock write that moves the tail, also between two parts of a
# density round), random
# subsets of the writes after a point in random order, and multi-block
# writes torn at a 4 KiB boundary.  The log prefix is replayed forward onto a base device
# (a copy of the disk as it was when logging began); each state is a
# non-persistent dm-snapshot of the base, plus the state's extra writes.
# On each: create dm-ressd (recovery) and verify every block against the
# journal.  On every fourth state also crash during recovery: recover under
# a second dm-log-writes (with the mover running), take the contents, replay
# a random prefix of that second log onto a fresh snapshot of the same state,
# recover again, verify, and require the same contents as the first
# recovery (I6).
#
# Geometries: each run takes CRASH_GEOMETRIES (default 2) of five, chosen
# by the seed and printed, and splits the states between them, each with
# its own workload: a 4 MiB log with the default tunables; the smallest log
# the target accepts (144 sectors) with mover_batch 16 (one block a record:
# every FUA write fills its record); a 4104-sector log with mover_batch
# 4160 (records of more than one bio, ends of the log at odd places) and
# data_csum 0 (data written before its trailer carries no crc32c; the
# trailer goes with PREFLUSH); a
# 4 MiB log with mover_batch 16 (the second and fourth with a device model:
# the mover fills erase units; the fourth with mover_policy density, so that
# it also copies blocks forward and moves dense units' blocks from anywhere
# in the log); a 4 MiB log with mover_batch 32 and data_csum 0 (records of
# three blocks: a lone write goes to the log ahead of its trailer, which its
# record filling writes without a flush from above).  Every workload mixes in "fua" writes
# (FUA with no flush after them, as from a journal commit) beside O_DSYNC
# writes, which the kernel always follows with a flush, and "wb" and "wc"
# writes (4 KiB writes plugged by one io_submit; writes through the page
# cache written back in a plug as an fsync does, which the target writes in
# the writer's task); CRASH_GEO picks one geometry by number.
#
# Sizes: CRASH_STATES states (default 120), CRASH_OPS writer operations per
# workload unit (default 600; 7.5 units in all); CRASH_SEED.  A recovery
# that fails, a verify violation or an I6 mismatch is a violation; the test
# fails on any, and also when the plan has no state of some kind.
. "$RESSD_TOP/tests/lib/testlib.sh"
. "$RESSD_TOP/tests/lib/writer.sh"

STATES=${CRASH_STATES:-120}
OPS=${CRASH_OPS:-600}
SEED=${CRASH_SEED:-$((RANDOM * 32768 + RANDOM))}
I6_EVERY=${CRASH_I6_EVERY:-4}
A=$RESSD_DISK_A B=$RESSD_DISK_B
MIB=2048				# sectors
NORMAL=$((64 * MIB))			# dm-ressd normal area
LOGS_MAX=$((4 * MIB + 8))		# the largest log of the geometries
SRC=$((NORMAL + LOGS_MAX))
NGEO=${CRASH_GEOMETRIES:-2}
[ -n "${CRASH_GEO:-}" ] && NGEO=1
NBLK=8192				# writer blocks (32 MiB)
L1=$((320 * MIB)) L2=$((64 * MIB)) COW=$((64 * MIB))
[ $((2 * SRC)) -le "$DISK_A_SECTORS" ] || fail "disk A too small"
[ $((L1 + L2 + 2 * COW)) -le "$DISK_B_SECTORS" ] || fail "disk B too small"
M=/dev/mapper
wpid=
trap '[ -n "$wpid" ] && kill -KILL $wpid 2>/dev/null' EXIT

writer_build
replay_build
LW=lw-ordered
if ! dmsetup targets | grep -q "^$LW "; then
	insmod "$RESSD_MOD/tests/crash/dm-log-writes-ordered.ko" || fail "loading dm-log-writes-ordered"
fi

# geometry <n>: LOGS (the log, after the normal area), GEO_OPTS (tunables
# every table of it gets) and GEO (its name).  Geometries 1 and 3 carry a
# device model, so that the mover fills erase units (whole 64 KiB units
# with sd-card's, sparse, prefix and whole ones with ssd-a's), and any two
# neighbours (the seed takes CRASH_GEOMETRIES in a row) but 4 and 0 hold one
# with and one without.  Geometries 2 and 4 have data_csum 0.
geometry() {
	case $1 in
	0) LOGS=$((4 * MIB)) GEO_OPTS=() GEO="4 MiB log, default tunables" ;;
	1) LOGS=144 GEO_OPTS=(mover_batch 16 small_write_max 8 dev_model $MODEL_SD_CARD)
	   GEO="smallest log (144 sectors), mover_batch 16, sd-card's model" ;;
	2) LOGS=4104 GEO_OPTS=(mover_batch 4160 data_csum 0)
	   GEO="4104-sector log, mover_batch 4160, data_csum 0" ;;
	3) LOGS=$((4 * MIB)) GEO_OPTS=(mover_batch 16 small_write_max 8 dev_model $MODEL_SSD_A
	   mover_policy density)
	   GEO="4 MiB log, mover_batch 16, ssd-a's model, mover_policy density" ;;
	4) LOGS=$((4 * MIB)) GEO_OPTS=(mover_batch 32 small_write_max 8 data_csum 0)
	   GEO="4 MiB log, mover_batch 32, data_csum 0" ;;
	esac
}
# ressd_table <dev> [opt args...]: the single-device layout on <dev>.
ressd_table() {
	local dev=$1
	shift
	set -- "$@" "${GEO_OPTS[@]}"
	echo "0 $NORMAL ressd $dev 0 $dev $NORMAL $LOGS $# $*"
}
# quiet_create <name> <table>: returns non-zero instead of failing the test.
quiet_create() {
	dmsetup create "$1" --table "$2" >"$TMPDIR/create.err" 2>&1 &&
		dmsetup mknodes "$1" >/dev/null 2>&1 && [ -b "$M/$1" ]
}
snap_table() { echo "0 $SRC snapshot $M/cr_base $M/$1 N 8"; }

note "seed $SEED, $STATES states, $OPS ops per workload unit"
dm_create cr_src "0 $SRC linear $A 0"
dm_create cr_base "0 $SRC linear $A $SRC"
dm_create cr_l1 "0 $L1 linear $B 0"
dm_create cr_l2 "0 $L2 linear $B $L1"
dm_create cr_cow1 "0 $COW linear $B $((L1 + L2))"
dm_create cr_cow2 "0 $COW linear $B $((L1 + L2 + COW))"

# ---- one geometry: its workload and its share of the states ----
declare -A nstate nviol
kinds="flush fua mark cut checkpoint subset torn"
for k in $kinds i6; do nstate[$k]=0 nviol[$k]=0; done
run_geometry() {
# The disk as logging begins: the target's log formats afresh (first 8 KiB
# zero) and the writer's blocks are zero (so that even a state before its
# zero-fill is checkable); whatever else the disk held stays, and the base is
# a copy of it.
zero_at $M/cr_src 8 $NORMAL
dd if=/dev/zero of=$M/cr_src bs=1M count=$((NBLK / 256)) oflag=direct status=none ||
	fail "zeroing the writer's blocks"
dd if=$M/cr_src of=$M/cr_base bs=1M iflag=direct oflag=direct status=none ||
	fail "copying the disk to the base"
zero_at $M/cr_l1 8 0
dm_create cr_lw "0 $SRC $LW $M/cr_src $M/cr_l1"

# ---- the workload ----
J=$TMPDIR/crash.journal
rm -f "$J"
dm_create cr_ressd "$(ressd_table $M/cr_lw high_watermark 50)"
phase=0
# run_phase <what> <ops> <mix> [background command]
run_phase() {
	local what=$1 ops=$2 mix=$3 out=$TMPDIR/crash-writer.out
	phase=$((phase + 1))
	note "workload $phase: $what ($ops ops)"
	local len=(--ops "$ops")
	[[ $ops == *s ]] && len=(--seconds "${ops%s}")	# "3s": for 3 seconds
	"$WRITER" write --dev $M/cr_ressd --blocks $NBLK "${len[@]}" \
		--seed $((SEED + phase)) --journal "$J" --mix "$mix" \
		--mark-dm cr_lw >"$out" 2>&1 &
	wpid=$!
	if [ -n "${4:-}" ]; then
		wait_for_line "$out" '^started' 120 $wpid
		eval "$4"
	fi
	wait $wpid
	local rc=$?
	wpid=
	cat "$out"
	[ $rc -eq 0 ] || fail "writer exit $rc in workload $phase"
	show_status cr_ressd "after workload $phase"
}
DEFAULT=w4=30,w8=12,seq=8,dsync=6,fua=6,discard=4,read=10,fsync=3,wb=3,wc=3
SMALL=w4=50,w8=20,dsync=8,fua=8,read=5,fsync=3,wb=4,wc=4
dmsetup message cr_ressd 0 set high_watermark 5 || fail "set high_watermark"
run_phase "the mover running (high_watermark 5)" "$OPS" "$DEFAULT"
dmsetup message cr_ressd 0 set high_watermark 50 || fail "set high_watermark"
run_phase "small writes: the log wraps" $((3 * OPS)) "$SMALL"
moved1=$(status_field cr_ressd 7)
dmsetup message cr_ressd 0 mover pause || fail "mover pause"
full0=$(status_field cr_ressd 11)
run_phase "mover paused: the log fills, writes pass through" $((2 * OPS)) "$SMALL"
full1=$(status_field cr_ressd 11)
dmsetup message cr_ressd 0 mover resume || fail "mover resume"
run_phase "discards and large writes over logged blocks" $((OPS / 2)) \
	w4=30,w8=10,seq=30,discard=15,dsync=5,fua=5,fsync=5,read=5,wb=3,wc=3
alive() {	# <pid>: running, not a zombie waiting for its parent
	local s
	s=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) && [ "$s" != Z ]
}
reloads=0
reload() {	# reload the same table while the writer runs
	# (a reload started while it runs counts: the suspend holds its writes,
	# however long the new table takes to load; in UML that can be seconds)
	while sleep 0.1 && alive $wpid; do
		dmsetup reload cr_ressd --table "$(dmsetup table cr_ressd)" &&
			dmsetup resume cr_ressd || fail "table reload"
		reloads=$((reloads + 1))
	done
}
# (the target's counters start afresh with each table: read them first)
moved2=$(status_field cr_ressd 7)
redir=$(status_field cr_ressd 4)
filled=$(( $(status_field cr_ressd 17) + $(status_field cr_ressd 18) ))
copied=$(status_field cr_ressd 19) far=$(status_field cr_ressd 20)
inlined=$(status_field cr_ressd 25)
submitted=$(status_field cr_ressd 26)
# by time, not by count: a reload takes longer than a few hundred writes
run_phase "table reloads during the writes" "${CRASH_RELOAD_SECONDS:-6}s" "$SMALL" reload
echo "$reloads table reloads during the writes"
[ $reloads -ge 1 ] || fail "no table reload happened during the writes"
used=$(status_field cr_ressd 1)
dm_remove cr_ressd
echo "log-writes: $(dmsetup status cr_lw)"
dm_remove cr_lw
# What the workload must have covered, from the target's own counters.
[ "$moved1" -gt 0 ] || fail "the mover did not run"
[ "$full1" -gt "$full0" ] || fail "no write passed through a full log ($full0 -> $full1)"
[ "$moved2" -gt "$moved1" ] || fail "the mover did not run after the pause"
if [[ " ${GEO_OPTS[*]} " == *" dev_model "* ]]; then
	[ "$filled" -gt 0 ] || fail "a device model, but no erase unit was filled"
	echo "erase units filled: $filled"
fi
if [[ " ${GEO_OPTS[*]} " == *" mover_policy density "* ]]; then
	[ "$copied" -gt 0 ] || fail "mover_policy density, but no block was copied forward"
	[ "$far" -gt 0 ] || fail "mover_policy density, but no block was moved from beyond a region"
	echo "copied forward: $copied, moved from beyond the region: $far"
fi
# Small writes remapped to the log by map() itself, when it was idle; with
# mover_batch 16 a record holds one block, and the write that fills its
# record seals it, so none may be.
# Log writes the writers' tasks issue (the end of a plug of "wc" writes, a
# flush's record) need an open record: with records of one block only one
# of invalidations alone, for a flush.
if [[ " ${GEO_OPTS[*]} " == *" mover_batch 16 "* ]]; then
	[ "$inlined" = 0 ] || fail "$inlined inline writes with records of one block"
else
	[ "$inlined" -gt 0 ] || fail "no small write took the inline path"
	[ "$submitted" -gt 0 ] || fail "no log write was issued by a writer's task"
fi
echo "inline log writes: $inlined of $redir; submitter log writes: $submitted"
# 1.5 log sizes of writes (of 1-2 blocks, and a header per record): 2 laps
[ "$redir" -gt $((3 * LOGS / 16)) ] || fail "only $redir writes to a log of $((LOGS / 8)) blocks: it did not wrap"
echo "redirected writes: $redir, moved blocks: $moved2 (log of $((LOGS / 8)) blocks)," \
	"full writes: $full1, log at the end $used"

"$REPLAY" info --log $M/cr_l1 || fail "the log-writes log cannot be read"
# data_csum 0: the data of every trailer's ordered entries was flushed first.
"$REPLAY" trailers --log $M/cr_l1 >"$TMPDIR/trailers"
rc=$?
cat "$TMPDIR/trailers"
[ $rc = 0 ] || fail "a trailer of ordered entries written before their data was flushed"
if [[ " ${GEO_OPTS[*]} " == *" data_csum 0 "* ]]; then
	grep -q "trailers: [0-9]*, [1-9][0-9]* naming ordered" "$TMPDIR/trailers" ||
		fail "data_csum 0, and no trailer names an ordered entry"
else
	grep -q "trailers: [0-9]*, 0 naming ordered" "$TMPDIR/trailers" ||
		fail "data_csum 1, and trailers name ordered entries"
fi
"$REPLAY" plan --log $M/cr_l1 --states "$GSTATES" --seed "$((SEED + gi))" \
	--i6-every "$I6_EVERY" --sb "$NORMAL" >"$TMPDIR/plan" || fail "ressd-replay plan"
for k in $kinds; do
	grep -q " $k " "$TMPDIR/plan" || fail "the plan has no $k state"
done

# ---- the states ----
violation() {	# <kind> <message>
	nviol[$1]=$((${nviol[$1]} + 1))
	nbad=$((nbad + 1))
	echo "VIOLATION state $id ($kind p=$p cut=$cut extras=$extras): $2"
	# the first one again at the end, where a test's last lines are shown
	[ -s "$FIRST" ] && return
	{
		echo "first violation: geometry $g, state $id ($kind p=$p cut=$cut extras=$extras): $2"
		[ -r "$TMPDIR/verify.out" ] && grep -E '^VIOLATION' "$TMPDIR/verify.out" | head -n 4
	} >"$FIRST"
}
# check <device> <what>: verify a recovered target; 0 if all held.
check() {
	if ! "$WRITER" verify --dev "$1" --journal "$J" --mode crash --cut "$cut" \
		>"$TMPDIR/verify.out" 2>&1; then
		grep -E '^(VIOLATION|verify|ressd-writer)' "$TMPDIR/verify.out" | head -n 8
		return 1
	fi
}
digest() { dd if="$1" bs=1M count=$((NBLK / 256)) iflag=direct status=none | md5sum; }
# state_on <snapshot name> <cow>: a fresh snapshot of the base plus the extras.
state_on() {
	quiet_create "$1" "$(snap_table "$2")" || fail "snapshot $1: $(cat "$TMPDIR/create.err")"
	[ "$extras" = - ] || "$REPLAY" apply --log $M/cr_l1 --dev "$M/$1" --list "$extras" ||
		fail "applying the extras of state $id"
}

# keep_evidence: the first violating state's disk before recovery, the
# journal, the plan and the verify output, in the results directory.
keep_evidence() {
	local ev=$RESSD_RES/crash-evidence
	kept=1
	mkdir -p "$ev" || return
	state_on cr_ev cr_cow2
	dd if=$M/cr_ev of="$ev/state-$id.img" bs=1M iflag=direct conv=sparse status=none
	dm_remove cr_ev
	cp "$J" "$TMPDIR/plan" "$TMPDIR/verify.out" "$ev/" 2>/dev/null
	echo "state $id $kind p=$p cut=$cut extras=$extras seed $SEED" >"$ev/README"
	echo "evidence of state $id kept in $ev"
}

cur=0
while read -r -u 3 id kind p cut i6 extras; do
	nbad=0
	rm -f "$TMPDIR/verify.out"
	if [ "$p" -gt "$cur" ]; then
		"$REPLAY" apply --log $M/cr_l1 --dev $M/cr_base --range "$cur:$p" ||
			fail "replaying entries $cur..$p onto the base"
		cur=$p
	fi
	nstate[$kind]=$((${nstate[$kind]} + 1))
	state_on cr_s1 cr_cow1
	if [ "$i6" = 0 ]; then
		if ! quiet_create cr_r "$(ressd_table $M/cr_s1 high_watermark 50)"; then
			violation "$kind" "recovery failed: $(tail -n 1 "$TMPDIR/create.err")"
		else
			check $M/cr_r || violation "$kind" "verify"
			dm_remove cr_r
		fi
		dm_remove cr_s1
		[ $nbad -gt 0 ] && [ $kept = 0 ] && keep_evidence
		continue
	fi

	# I6: recover under a second log-writes device, the mover running ...
	nstate[i6]=$((${nstate[i6]} + 1))
	zero_at $M/cr_l2 8 0
	dm_create cr_lw2 "0 $SRC $LW $M/cr_s1 $M/cr_l2"
	if ! quiet_create cr_r "$(ressd_table $M/cr_lw2 high_watermark 1 low_watermark 0)"; then
		violation "$kind" "recovery failed: $(tail -n 1 "$TMPDIR/create.err")"
		dm_remove cr_lw2
		dm_remove cr_s1
		[ $kept = 0 ] && keep_evidence
		continue
	fi
	check $M/cr_r || violation "$kind" "verify"
	d1=$(digest $M/cr_r)
	dm_remove cr_r
	dm_remove cr_lw2
	dm_remove cr_s1
	# ... then crash during that recovery: a random prefix of its log.
	n2=$("$REPLAY" info --log $M/cr_l2 | sed -n 's/^log: \([0-9]*\) entries.*/\1/p')
	[ -n "$n2" ] || fail "the second log cannot be read"
	k2=$((RANDOM % (n2 + 1)))
	state_on cr_s2 cr_cow2
	"$REPLAY" apply --log $M/cr_l2 --dev $M/cr_s2 --range "0:$k2" ||
		fail "replaying the second log"
	if ! quiet_create cr_r "$(ressd_table $M/cr_s2 high_watermark 50)"; then
		violation i6 "second recovery failed after $k2/$n2 entries: $(tail -n 1 "$TMPDIR/create.err")"
	else
		check $M/cr_r || violation i6 "verify after a crash at $k2/$n2 of recovery"
		d2=$(digest $M/cr_r)
		[ "$d1" = "$d2" ] || violation i6 "contents differ from the first recovery (crash at $k2/$n2)"
		dm_remove cr_r
	fi
	dm_remove cr_s2
	[ $nbad -gt 0 ] && [ $kept = 0 ] && keep_evidence
done 3<"$TMPDIR/plan"
}

note "geometry seed $SEED: $NGEO of 5 geometries, $STATES states in all"
t0=$(date +%s) kept=0 per_geo=()
FIRST=$TMPDIR/first-violation
rm -f "$FIRST"
for ((gi = 0; gi < NGEO; gi++)); do
	g=$(( (SEED + gi) % 5 ))
	[ -n "${CRASH_GEO:-}" ] && g=$CRASH_GEO
	geometry $g
	GSTATES=$(( STATES / NGEO + (gi < STATES % NGEO) ))
	note "geometry $g: $GEO ($GSTATES states)"
	sb=0 vb=0
	for k in $kinds i6; do sb=$((sb + ${nstate[$k]})) vb=$((vb + ${nviol[$k]})); done
	ib=${nstate[i6]}
	run_geometry
	sa=0 va=0
	for k in $kinds i6; do sa=$((sa + ${nstate[$k]})) va=$((va + ${nviol[$k]})); done
	n6=$((${nstate[i6]} - ib))
	per_geo+=("geometry $g ($GEO): $((sa - sb - n6)) states (+$n6 crashed during recovery), $((va - vb)) violations")
done
printf '%s\n' "${per_geo[@]}"
secs=$(( $(date +%s) - t0 ))

total=0 bad=0
for k in $kinds i6; do
	printf '%-10s %5d states checked, %d violations\n' "$k" "${nstate[$k]}" "${nviol[$k]}"
	[ $k = i6 ] || total=$((total + ${nstate[$k]}))
	bad=$((bad + ${nviol[$k]}))
done
[ -s "$FIRST" ] && cat "$FIRST"
echo "crash states: $total checked (+${nstate[i6]} crashed during recovery) in $secs s, $bad violations (seed $SEED)"
[ "$total" -gt 0 ] || fail "no state was checked"
[ $bad -eq 0 ] || fail "$bad violations (seed $SEED)"

#!/bin/bash
# An invalidation must not reach the medium before the home write it
# records (I2).  Block X is logged and flushed; a large write over X goes
# home (it completes in the device's volatile cache) and its invalidation
# joins the open record; an O_DSYNC small write then seals that record with
# FUA.  Had the record gone out without a flush of the home write before it,
# a power cut right after it keeps the invalidation and loses the home
# write: X would read what home held before, older than its durable logged
# copy.  dm-log-writes below the target records the order, and the disk is
# rebuilt as it was just after the FUA write, recovered and read.  Twice:
# the normal area and the log on one device (the record's PREFLUSH flushes
# the home write) and on two (the origin is flushed before the record):
# dm-log-writes then records one device that two dm-linear devices split.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
MIB=2048
NORMAL=$((64 * MIB)) LOGS=$((4 * MIB))
SRC=$((NORMAL + LOGS))
M=/dev/mapper
X=100 Y=5000			# 4 KiB blocks of the target
replay_build
# layout_create <name> <dev>: dm-ressd <name> on <dev> in $layout; for two
# devices, <name>_o and <name>_l split <dev> into the normal area and the log.
layout_create() {
	local name=$1 dev=$2
	if [ "$layout" = one ]; then
		dm_create "$name" "0 $NORMAL ressd $dev 0 $dev $NORMAL $LOGS 0"
		return
	fi
	dm_create "${name}_o" "0 $NORMAL linear $dev 0"
	dm_create "${name}_l" "0 $LOGS linear $dev $NORMAL"
	dm_create "$name" "0 $NORMAL ressd $M/${name}_o 0 $M/${name}_l 0 $LOGS 0"
}
layout_remove() {	# <name>
	dm_remove "$1"
	if [ "$layout" = two ]; then
		dm_remove "${1}_o"
		dm_remove "${1}_l"
	fi
}
block_at() {	# <dev> <block>: its 4 KiB on stdout
	dd if="$1" bs=4096 skip="$2" count=1 iflag=direct status=none
}

# run_case <one|two>
run_case() {
	local m p got
	layout=$1
	note "layout: $layout device(s)"
	dm_create io_src "0 $SRC linear $A 0"
	dm_create io_base "0 $SRC linear $A $SRC"
	zero_at $M/io_src 8 $NORMAL
	dd if=/dev/zero of=$M/io_src bs=1M count=64 oflag=direct status=none ||
		fail "zeroing the normal area"
	dd if=$M/io_src of=$M/io_base bs=1M iflag=direct oflag=direct status=none ||
		fail "copying the disk to the base"
	zero_at "$B" 8 0
	dm_create io_lw "0 $SRC log-writes $M/io_src $B"
	layout_create io_r $M/io_lw
	D=$M/io_r

	make_block old "$X" >"$TMPDIR/old"
	dd if="$TMPDIR/old" of=$D bs=4096 seek=$X oflag=direct conv=fsync status=none ||
		fail "writing X"
	[ "$(status_field io_r 4)" = 1 ] || fail "X was not logged: $(dmsetup status io_r)"
	echo "  X logged and flushed"

	for ((b = X - 4; b < X + 60; b++)); do make_block new "$b"; done >"$TMPDIR/big"
	dd if="$TMPDIR/big" of=$D bs=256K seek=$(((X - 4) * 4096)) count=1 \
		oflag=direct,seek_bytes status=none || fail "the large write"
	[ "$(status_field io_r 4)" = 1 ] || fail "the large write was logged: $(dmsetup status io_r)"
	cmp -s <(block_at $D $X) <(make_block new $X) || fail "X does not read the new data"
	echo "  a 256 KiB write over X went home (no flush)"

	dmsetup message io_lw 0 mark home-written || fail "log-writes mark"
	make_block y "$Y" | dd of=$D bs=4096 seek=$Y oflag=direct,dsync conv=notrunc status=none ||
		fail "the O_DSYNC write"
	[ "$(status_field io_r 4)" = 2 ] || fail "the O_DSYNC write was not logged: $(dmsetup status io_r)"
	echo "  an O_DSYNC small write sealed the record with X's invalidation"
	echo "  status: $(dmsetup status io_r)"
	layout_remove io_r
	dm_remove io_lw

	# The state to rebuild: just after the record that the O_DSYNC write
	# sealed (the first FUA write to the log area after the mark; the
	# kernel follows an O_DSYNC write on a block device with a flush,
	# which comes later).
	fua_after_mark "$B" $NORMAL
	p=$P_FUA
	echo "  $("$REPLAY" info --log "$B")"
	echo "  the disk just after the record (log entries 0..$p), recovered:"
	"$REPLAY" apply --log "$B" --dev $M/io_base --range "0:$p" || fail "replay"
	layout_create io_c $M/io_base
	got=$(block_at $M/io_c $X | head -c 64 | tr -d ' \n\0')
	echo "  X reads '$got'"
	cmp -s <(block_at $M/io_c $Y) <(make_block y $Y) || fail "the O_DSYNC write was lost"
	# X: its durable logged copy or the newer home write, nothing older.
	if ! cmp -s <(block_at $M/io_c $X) "$TMPDIR/old" &&
		! cmp -s <(block_at $M/io_c $X) <(make_block new $X); then
		fail "$layout device(s): X reads '$got': older than its durable logged copy (I2)"
	fi
	layout_remove io_c
	dm_remove io_base
	dm_remove io_src
}

run_case one
run_case two
echo "X holds durable data after the power cut, in both layouts"

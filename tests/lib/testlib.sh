# Helpers for the functional tests in tests/functional/.  Sourced by each test, which
# runs inside a guest (see tests/guest-init.sh) as root with:
#   RESSD_DISK_A, RESSD_DISK_B   scratch disks (1 GiB and 512 MiB)
#   RESSD_KIND                   vm (Debian kernel) or uml (debug kernel)
#   TMPDIR                       a tmpfs for the test's own files
# A test prints what it checks, calls fail() on the first broken expectation,
# and exits 0 when everything held.
set -u
# shellcheck source=scripts/common.sh
. "${RESSD_TOP:?set by tests/guest-init.sh}/scripts/common.sh"

fail() {
	echo "FAIL: $*"
	exit 1
}
note() { echo "-- $*"; }

# sectors of a block device
dev_sectors() { blockdev --getsz "$1"; }

# Size of $RESSD_DISK_A and B in sectors.
DISK_A_SECTORS=$(dev_sectors "$RESSD_DISK_A")
DISK_B_SECTORS=$(dev_sectors "$RESSD_DISK_B")

# dm-ftlsim presets' device models, as the table's dev_model key takes them
# (Documentation/dm-ressd.rst; tests/bench/lib.sh's FTL_MODEL has them all).
# shellcheck disable=SC2034  # used by the tests that source this
MODEL_SSD_A=1024:0:8:50000:36500:52100:1500000:210000:41000:0:0
# shellcheck disable=SC2034
MODEL_SSD_B=4096:0:4:50000:47900:436600:2000000:441000:41000:0:0
# shellcheck disable=SC2034
MODEL_SD_CARD=128:0:4:50000:187300:279900:1000000:830000:43000:0:0

# Zero the first $2 KiB (default 8) at sector $3 of device $1.
zero_at() {
	dd if=/dev/zero of="$1" bs=1k count="${2:-8}" seek=$(( ${3:-0} / 2 )) \
		conv=notrunc oflag=direct status=none
}

# dm_create <name> <table>: create or fail the test with the kernel's reason.
dm_create() {
	local name=$1 table=$2
	if ! dmsetup create "$name" --table "$table" 2>"$TMPDIR/dmsetup.err"; then
		cat "$TMPDIR/dmsetup.err"
		dmesg | tail -n 5
		fail "could not create $name with: $table"
	fi
	dmsetup mknodes "$name" >/dev/null 2>&1
	[ -b "/dev/mapper/$name" ] || fail "/dev/mapper/$name did not appear"
}

dm_remove() {
	dmsetup remove --retry "$1" || fail "could not remove $1"
}

# expect_ctr_error <table> <message>: creating must fail and the kernel must
# say exactly why.
expect_ctr_error() {
	local table=$1 want=$2
	kmsg_take "the steps before this table"
	if dmsetup create ressd_bad --table "$table" >/dev/null 2>&1; then
		dmsetup remove --retry ressd_bad
		fail "accepted bad table: '$table'"
	fi
	if ! dmesg | grep -qF -- "$want"; then
		echo "kernel said:"
		dmesg | tail -n 5
		fail "table '$table': expected error '$want'"
	fi
	echo "ok: '$table' -> $want"
}

# status_field <name> <n>: the n-th (1-based) field of the INFO status line,
# after the "<start> <len> ressd" prefix.
status_field() {
	dmsetup status "$1" | awk -v n="$2" '{ print $(n + 3) }'
}

# A self-checking 4 KiB block pattern: "<tag> <block>" repeated.  Used by
# tests that need to know what each block should hold.
make_block() {	# <tag> <block> -> 4096 bytes on stdout
	local line
	line=$(printf '%-63s\n' "$1 $2")
	yes "$line" 2>/dev/null | head -c 4096
}
# block_put <dev> <tag> <block>: one 4 KiB direct write of make_block's pattern.
block_put() {
	make_block "$2" "$3" | dd of="$1" bs=4k seek="$3" oflag=direct conv=notrunc status=none
}
# block_expect <dev> <tag> <block> <what>: the block reads back as that pattern.
block_expect() {
	cmp -s <(make_block "$2" "$3") \
		<(dd if="$1" bs=4k skip="$3" count=1 iflag=direct status=none) ||
		fail "$4: block $3 does not read back as '$2 $3'"
}

# corrupt_build: the log mutator tests/tools/ressd-corrupt.c, into $MUT
# (prebuilt when the guest has it, as writer_build's writer).
corrupt_build() {
	if [ -n "${RESSD_PREBUILT:-}" ]; then
		MUT=$RESSD_PREBUILT/ressd-corrupt
		return
	fi
	MUT=$TMPDIR/ressd-corrupt
	cc -O2 -Wall -Wextra -I"$RESSD_TOP/tools/ressdsetup" -o "$MUT" \
		"$RESSD_TOP/tests/tools/ressd-corrupt.c" "$RESSD_TOP/tools/ressdsetup/crc32c.c" \
		"$RESSD_TOP/tools/lib/crc32c.c" || fail "could not build ressd-corrupt"
}

# run_watched <seconds> <dm name> <command...>: run a command, printing the
# target's status every 10 s; if it is still running after <seconds>, show
# the blocked tasks and the kernel log, kill it and fail.
run_watched() {
	local limit=$1 name=$2 pid t=0
	shift 2
	"$@" &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		sleep 2
		t=$((t + 2))
		[ $((t % 10)) -eq 0 ] && echo "  t=${t}s: $(dmsetup status "$name" 2>&1)"
		if [ $t -ge "$limit" ]; then
			echo "stalled after ${limit}s: $(dmsetup status "$name" 2>&1)"
			echo w >/proc/sysrq-trigger 2>/dev/null
			dmesg | tail -n 80
			kill -9 $pid
			fail "stalled: $*"
		fi
	done
	wait $pid || fail "failed: $*"
}

# kmsg_take <what>: the kernel log since the last call into $KMSG, then
# cleared (so that a message found in it belongs to <what>).  A test that
# clears the log must call this instead of dmesg -C: an oops, a warning, a
# KASAN or lockdep report in it fails the test here, as guest-init.sh would
# have at the end (RESSD_BAD_KERNEL_LOG, scripts/common.sh).
kmsg_take() {
	KMSG=$(dmesg -c)
	if [[ $KMSG =~ $RESSD_BAD_KERNEL_LOG ]]; then
		echo "$KMSG" | tail -n 60
		fail "kernel log after $1: ${BASH_REMATCH[0]}"
	fi
}

# dm_switch <name> <table>: replace the table of a live device (suspend,
# load, resume), failing the test on any error.
dm_switch() {
	dmsetup suspend "$1" && dmsetup reload "$1" --table "$2" && dmsetup resume "$1" ||
		fail "could not switch $1 to: $2"
}

# dm-flakey tables over <dev> of <sectors> sectors [from <offset>]: always
# up, and always down (every write dropped, as from a power cut on).
flakey_pass() { echo "0 $2 flakey $1 ${3:-0} 1 0"; }
flakey_drop() { echo "0 $2 flakey $1 ${3:-0} 0 1 1 drop_writes"; }

# A power cut under two dm-flakey devices, in two steps so that a test can
# take the cut time between them.  power_cut_load <name> <dev> <sectors>
# <name> <dev> <sectors>: load the dropping tables (inactive for now).
# power_cut_switch <name> <name>: the cut itself: both devices suspended
# together and resumed dropping writes.
power_cut_load() {
	dmsetup reload "$1" --table "$(flakey_drop "$2" "$3")" &&
		dmsetup reload "$4" --table "$(flakey_drop "$5" "$6")" ||
		fail "loading the power cut into $1 and $4"
}
power_cut_switch() {
	dmsetup suspend "$1" "$2" && dmsetup resume "$1" "$2" || fail "the power cut"
	dmsetup table "$1" | grep -q drop_writes || fail "$1 does not drop writes after the cut"
}

# wait_pid <pid> <seconds>: true once the process has exited, false if it
# still runs after <seconds> (it is left running: a process stuck in the
# kernel cannot be killed anyway).
wait_pid() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# stuck <what>: fail with the blocked tasks in the log.
stuck() {
	echo w >/proc/sysrq-trigger 2>/dev/null
	dmesg | tail -n 60
	fail "$*"
}

# delay_log <name> <dev>: /dev/mapper/<name>, a dm-delay device over all of
# <dev> (no delay yet), with /dev/mapper/<name>_err (dm-error) beside it,
# its superblocks zeroed: a log device whose reads can be made to fail
# (delay_log_reads_fail) while its writes still work.
delay_log() {
	local sz
	sz=$(dev_sectors "$2")
	dm_create "$1_err" "0 $sz error"
	dm_create "$1" "0 $sz delay $2 0 0 $2 0 0"
	zero_at "/dev/mapper/$1" 8 0
}
# delay_log_reads_fail <name> <dev> <write delay ms>
delay_log_reads_fail() {
	local sz
	sz=$(dev_sectors "$2")
	dm_switch "$1" "0 $sz delay /dev/mapper/$1_err 0 0 $2 0 $3"
}

# replay_build: compile the log-writes replayer (tests/crash/ressd-replay.c)
# into $TMPDIR, once a boot, and set $REPLAY.
replay_build() {
	local src=$RESSD_TOP/tests/crash/ressd-replay.c
	if [ -n "${RESSD_PREBUILT:-}" ]; then	# (writer_build)
		REPLAY=$RESSD_PREBUILT/ressd-replay
		[ -x "$REPLAY" ] || fail "no $REPLAY"
		return
	fi
	REPLAY=$TMPDIR/ressd-replay
	if [ ! -x "$REPLAY" ] || [ "$src" -nt "$REPLAY" ]; then
		cc -O2 -Wall -Wextra -o "$REPLAY.new" "$src" ||
			fail "could not build $src"
		mv "$REPLAY.new" "$REPLAY"
	fi
}

# fua_after_mark <log-writes log> <first log sector>: in a dm-log-writes log
# with a "home-written" mark, sets M_AT to the mark's entry and P_FUA to the
# number of entries up to and including the first FUA write (not a mark) to a
# sector at or after <first log sector> that follows the mark: the disk
# just after the record that write sealed is entries 0..P_FUA.  The entries
# are left in $TMPDIR/entries.  Fails when either is missing.
fua_after_mark() {
	M_AT=$("$REPLAY" marks --log "$1" | awk '$2 == "home-written" { print $1 }')
	[ -n "$M_AT" ] || fail "the mark is not in the log"
	"$REPLAY" list --log "$1" >"$TMPDIR/entries" || fail "ressd-replay list"
	# flags: FLUSH 1, FUA 2, DISCARD 4, MARK 8
	P_FUA=$(awk -v m="$M_AT" -v n="$2" '$1 >= m && $2 >= n && $3 > 0 &&
		int($4 / 2) % 2 == 1 && int($4 / 8) % 2 == 0 {
		print $1 + 1; exit }' "$TMPDIR/entries")
	[ -n "$P_FUA" ] || { cat "$TMPDIR/entries"; fail "no FUA write to the log after the mark"; }
}

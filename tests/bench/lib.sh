# Guest-side helpers for the demo (tests/bench/demo-guest.sh) and the
# benchmarks (tests/bench/bench-guest.sh).  Sourced inside the Debian guest
# that scripts/demo.sh or scripts/bench.sh boots, as root, with:
#   BENCH_OUT   a directory shared with the host (results, traces, logs)
#   BENCH_MOD   the module build directory (dm_ressd.ko, tools/ftlsim/...)
#   BENCH_DISK  the scratch disk (the guest's /dev/vda)
#
# Every stack sits on ONE dm-ftlsim device "ftl" (virtual time) over
# BENCH_DISK, S sectors long.  The upper layer gets the first L = S - R
# sectors; the last R sectors are the reserved area (dm-ressd's log) or the
# cache (dm-writecache, dm-writeboost, bcache); raw ext4 and f2fs leave them
# unused.  So every stack gets the same space, and merges across the user
# area and the log or cache are modelled.
#
# Measurements are written as one line each to $BENCH_OUT/records.txt:
#   REC key=value key=value ...
# (values without spaces).  The host turns them into tables and plots.
set -u
# shellcheck source=scripts/common.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/common.sh"
export DM_DISABLE_UDEV=1
export LC_ALL=C
BENCH_MNT=/run/bench-mnt
BENCH_TMP=/run/bench-tmp
export BENCH_OUT BENCH_TMP
mkdir -p "$BENCH_MNT" "$BENCH_TMP"
FTL=/dev/mapper/ftl

say() { echo "[$(date +%H:%M:%S)] $*"; }
bench_die() {
	echo "BENCH-ERROR: $*"
	dmesg | tail -n 30
	echo "BENCH-ERROR: $*" >>"$BENCH_OUT/errors.txt"
	exit 1
}

# dmsetup without libdevmapper's note that udev is bypassed.
dmq() {
	dmsetup "$@" 2> >(grep -v 'Udev is running' >&2)
}
dm_create() {	# <name> <table>
	dmq create "$1" --table "$2" || bench_die "dmsetup create $1 '$2': $(dmesg | tail -n 3)"
	dmsetup mknodes "$1" >/dev/null 2>&1
	[ -b "/dev/mapper/$1" ] || bench_die "/dev/mapper/$1 did not appear"
}
dm_remove() {	# <name>...
	local n
	for n in "$@"; do
		[ -e "/dev/mapper/$n" ] || continue
		dmq remove --retry "$n" || bench_die "dmsetup remove $n"
	done
}
udev_settle() {
	command -v udevadm >/dev/null && udevadm settle --timeout=30 2>/dev/null
	return 0
}

# Kernel log: anything alarming stops the run (RESSD_BAD_KERNEL_LOG, as for
# the tests).
check_kernel_log() {	# <where>
	local bad
	if bad=$(dmesg | ressd_kernel_log_bad); then
		dmesg >"$BENCH_OUT/dmesg-$1.txt"
		bench_die "kernel log after $1: $bad (full log: dmesg-$1.txt)"
	fi
}

# Dirty page cache is written back once 1 MiB is dirty or after 1 s
# (instead of 10 % of memory or 30 s): the scaled-down workloads would
# otherwise live and die in the page cache, and how much of a buffered
# workload reaches the device would depend on the wall time of the run.
bench_sysctl() {
	echo 1048576 >/proc/sys/vm/dirty_background_bytes
	echo 100 >/proc/sys/vm/dirty_expire_centisecs
	echo 100 >/proc/sys/vm/dirty_writeback_centisecs
}

bench_load_modules() {
	modprobe -a dm-mod libcrc32c crc32c ext4 2>/dev/null
	insmod "$BENCH_MOD/tools/ftlsim/dm_ftlsim.ko" || bench_die "insmod dm_ftlsim.ko"
	insmod "$BENCH_MOD/dm_ressd.ko" || bench_die "insmod dm_ressd.ko"
}

# ---- the emulated SSD ----

# ftl_create <preset> [<#opt> <opts>...]: the ftlsim device over the whole disk.
ftl_create() {
	local preset=$1
	shift
	S=$(blockdev --getsz "$BENCH_DISK")
	dm_create ftl "0 $S ftlsim $BENCH_DISK 0 $preset $*"
	FTL_PRESET=$preset
}
ftl_stat() {	# <key>
	dmsetup status ftl | tr ' ' '\n' | sed -n "s/^$1=//p"
}
ftl_fields() {	# the INFO key=value fields, prefixed ftl_
	dmsetup status ftl | cut -d' ' -f4- | tr ' ' '\n' | sed -n 's/^\([a-z_]*\)=/ftl_\1=/p' | tr '\n' ' '
}
ftl_reset() {	# zero the counters (a stack's own background I/O after this counts)
	udev_settle
	dmq message ftl 0 reset || bench_die "ftlsim reset"
}
ftl_reset_all() {	# a fresh, empty FTL (log-block: no open logs; page map empty)
	udev_settle
	dmq message ftl 0 reset all || bench_die "ftlsim reset all"
}

# precondition <preset>: the FTL in the same state before each stack (the
# caller runs it before each).  The page-mapped FTL (ssd-c) in its steady
# state: from an empty FTL, fill the whole device sequentially, then
# $PRECOND_RANDW random 4 KiB writes (a fixed seed) over all of it (its
# garbage collection's cost depends on everything written before: a stack
# run after another would inherit the other's valid-page layout; side by
# side, one stack's workloads passed through unchanged cost 7 % more than
# raw's for that alone).  The log-block presets keep no per-block state,
# only their N open logs: a fresh model (reset all) is their steady state.
precondition() {
	ftl_reset_all
	case $1 in
	ssd-c)
		say "precondition $1: an empty FTL, a sequential fill, then ${PRECOND_RANDW:-32768} random writes"
		dd if=/dev/zero of=$FTL bs=1M oflag=direct status=none 2>/dev/null
		fio --name=precond --filename=$FTL --rw=randwrite --bs=4k --direct=1 \
			--ioengine=libaio --iodepth=16 --number_ios="${PRECOND_RANDW:-32768}" \
			--randrepeat=0 --randseed=7 --norandommap --random_generator=tausworthe64 \
			--output=/dev/null || bench_die "precondition fio"
		;;
	esac
}

# ---- stacks ----
# Each sets TOP (the block device the file system goes on) and FS.

# Settings of the peers (reported with the results).
RESSD_OPTS=${RESSD_OPTS:-}
# Each preset's own cost model (dm-ressd.rst, dev_model): the variant
# "ressd:dev_model=preset" gives it to dm-ressd.
declare -A FTL_MODEL=(
	[ssd-a]=1024:0:8:50000:36500:52100:1500000:210000:41000:0:0
	[ssd-b]=4096:0:4:50000:47900:436600:2000000:441000:41000:0:0
	[ssd-c]=0:0:0:50000:31000:62000:1500000:176000:27000:0:0
	[sd-card]=128:0:4:50000:187300:279900:1000000:830000:43000:0:0
	[sd-worst]=8192:0:2:50000:407600:407600:2000000:600000:60000:0:0
)
WC_OPTS=${WC_OPTS:-}			# dm-writecache optional arguments
WB_OPTS=${WB_OPTS:-}			# dm-writeboost optional arguments
BCACHE_BUCKET=${BCACHE_BUCKET:-}		# default: reserved area / 256
EXT4_MKFS_OPTS="-q -F -b 4096 -E nodiscard,lazy_itable_init=0,lazy_journal_init=0"

zero_4k() {	# <dev> <sector> [<4 KiB blocks>, default 1]
	dd if=/dev/zero of="$1" bs=4k count="${3:-1}" seek=$(($2 / 8)) oflag=direct conv=notrunc \
		status=none || bench_die "zeroing ${3:-1} x 4 KiB at $2 of $1"
}

# stack_create <stack>: needs S and R (sectors) set.
stack_create() {
	STACK=$1
	# "ressd:high_watermark=80,low_watermark=0": dm-ressd with these
	# settings (a variant, reported under this name).
	STACK_KIND=${STACK%%:*}
	local variant=
	[ "$STACK_KIND" != "$STACK" ] && variant=$(tr ',=' '  ' <<<"${STACK#*:}")
	L=$((S - R))
	FS=ext4
	STACK_SETTINGS=""
	case $STACK_KIND in
	raw)
		dm_create org "0 $L linear $FTL 0"
		TOP=/dev/mapper/org
		STACK_SETTINGS="ext4 on dm-linear over the first L sectors; reserved area unused"
		;;
	f2fs)
		dm_create org "0 $L linear $FTL 0"
		TOP=/dev/mapper/org
		FS=f2fs
		STACK_SETTINGS="f2fs (mkfs.f2fs defaults, nodiscard at mkfs; mount defaults) on dm-linear over the first L sectors"
		;;
	ressd)
		zero_4k $FTL "$L" 2	# both superblock copies: the target formats the log
		local n=0 opts="$RESSD_OPTS $variant" setup=BENCH_SETUP_${FTL_PRESET//-/_}
		# "dev_model preset": the model of the emulated device itself
		opts=${opts/dev_model preset/dev_model ${FTL_MODEL[$FTL_PRESET]}}
		# "setup": what ressdsetup's probe recommends (scripts/bench.sh)
		if [ "$variant" = setup ]; then
			[ -n "${!setup:-}" ] || bench_die "ressd:setup: no $setup (scripts/bench.sh sets it)"
			opts="$RESSD_OPTS ${!setup}"
		fi
		n=$(wc -w <<<"$opts")
		dm_create ressd "0 $L ressd $FTL 0 $FTL $L $R $n $opts"
		TOP=/dev/mapper/ressd
		STACK_SETTINGS="table: $(dmsetup table ressd | cut -d' ' -f3- | sed -E "s,$FTL,ftl,g; s, [0-9]+:[0-9]+( |\$), ftl\1,g")"
		# one line for all presets: each preset's own model
		local own="dev_model (each preset its own: FTL_MODEL in tests/bench/lib.sh)"
		STACK_SETTINGS=${STACK_SETTINGS/"dev_model ${FTL_MODEL[$FTL_PRESET]}"/$own}
		if [ "$variant" = setup ]; then
			say "$FTL_PRESET ressd:setup: $(dmsetup table ressd)"
			STACK_SETTINGS="each preset what 'ressdsetup probe --model <preset>' recommends (bench-guest.log: each preset's table); on $FTL_PRESET: $STACK_SETTINGS"
		fi
		;;
	writecache)
		modprobe dm-writecache || bench_die "modprobe dm-writecache"
		dm_create org "0 $L linear $FTL 0"
		dm_create cache "0 $R linear $FTL $L"
		zero_4k /dev/mapper/cache 0
		local n=0
		[ -n "$WC_OPTS" ] && n=$(wc -w <<<"$WC_OPTS")
		dm_create wc "0 $L writecache s /dev/mapper/org /dev/mapper/cache 4096 $n $WC_OPTS"
		TOP=/dev/mapper/wc
		STACK_SETTINGS="table: $(dmsetup table wc | cut -d' ' -f3- | sed 's,^writecache s [0-9:]* [0-9:]*,writecache s <origin> <cache>,'); SSD mode, 4 KiB blocks, cache = the reserved area; defaults high_watermark 50 low_watermark 45 autocommit_blocks 65536 autocommit_time 1000 ms unless listed"
		;;
	writeboost)
		[ -n "${BENCH_WB_KO:-}" ] || bench_die "dm-writeboost.ko was not built"
		grep -q '^dm_writeboost ' /proc/modules || insmod "$BENCH_WB_KO" || bench_die "insmod $BENCH_WB_KO"
		dm_create org "0 $L linear $FTL 0"
		dm_create cache "0 $R linear $FTL $L"
		dd if=/dev/zero of=/dev/mapper/cache bs=4k count=1 oflag=direct status=none
		local n=0
		[ -n "$WB_OPTS" ] && n=$(wc -w <<<"$WB_OPTS")
		if [ $n -gt 0 ]; then
			dm_create wb "0 $L writeboost /dev/mapper/org /dev/mapper/cache $n $WB_OPTS"
		else
			dm_create wb "0 $L writeboost /dev/mapper/org /dev/mapper/cache"
		fi
		TOP=/dev/mapper/wb
		STACK_SETTINGS="table: $(dmsetup table wb | cut -d' ' -f3- | sed 's,^writeboost [0-9:]* [0-9:]*,writeboost <origin> <cache>,'); dm-writeboost ${BENCH_WB_VERSION:-}, cache = the reserved area; writeback_threshold 0 (default: write back only when the cache needs a segment), nr_max_batched_writeback 32, read caching off"
		;;
	bcache)
		modprobe bcache || bench_die "modprobe bcache"
		# The kernel wants more than 512 buckets (cache_alloc(): "cache
		# device is too small"): 1024 of them by default.
		[ -n "$BCACHE_BUCKET" ] || BCACHE_BUCKET=$((R / 2 / 1024))k
		dm_create org "0 $L linear $FTL 0"
		dm_create cache "0 $R linear $FTL $L"
		wipefs -a -q /dev/mapper/org /dev/mapper/cache 2>/dev/null
		make-bcache --block 4k --bucket "$BCACHE_BUCKET" --writeback --wipe-bcache \
			-B /dev/mapper/org -C /dev/mapper/cache >"$BENCH_TMP/make-bcache.log" 2>&1 ||
			{ cat "$BENCH_TMP/make-bcache.log"; bench_die "make-bcache"; }
		local d
		for d in /dev/mapper/cache /dev/mapper/org; do
			echo "$d" >/sys/fs/bcache/register 2>/dev/null
		done
		local i
		for i in $(seq 50); do
			[ -e /sys/block/bcache0/bcache/state ] && break
			sleep 0.2
		done
		[ -e /sys/block/bcache0/bcache/state ] || bench_die "bcache0 did not appear"
		for i in $(seq 50); do
			[ -e /sys/block/bcache0/bcache/cache ] && break
			sleep 0.2
		done
		[ -e /sys/block/bcache0/bcache/cache ] || bench_die "bcache0 is not attached to its cache set"
		# mkfs goes around the cache (it took 90 s of emulated wall time
		# through it); the workloads run in writeback mode (fs_make).
		echo writearound >/sys/block/bcache0/bcache/cache_mode
		local cs
		cs=$(readlink -f /sys/block/bcache0/bcache/cache)
		echo 0 >"$cs/congested_read_threshold_us"
		echo 0 >"$cs/congested_write_threshold_us"
		# writeback_delay (default 30 s) is how long the writeback thread
		# sleeps after each full pass; it made every drain wait up to 30 s
		# of wall time (virtual time has no idle, so the figures do not
		# depend on it, only the order of the requests).
		echo "${BCACHE_WRITEBACK_DELAY:-1}" >/sys/block/bcache0/bcache/writeback_delay
		[ -b /dev/bcache0 ] || mknod /dev/bcache0 b "$(cut -d: -f1 /sys/block/bcache0/dev)" "$(cut -d: -f2 /sys/block/bcache0/dev)"
		TOP=/dev/bcache0
		STACK_SETTINGS="make-bcache --block 4k --bucket $BCACHE_BUCKET --writeback, cache = the reserved area; cache_mode writeback (writearound during mkfs.ext4), sequential_cutoff $(cat /sys/block/bcache0/bcache/sequential_cutoff), writeback_percent $(cat /sys/block/bcache0/bcache/writeback_percent), congested_read/write_threshold_us $(cat "$cs/congested_read_threshold_us")/$(cat "$cs/congested_write_threshold_us"), writeback_delay $(cat /sys/block/bcache0/bcache/writeback_delay) s (default 30), data offset 16 sectors; drained by writeback_percent 0 until dirty_data is 0"
		;;
	*) bench_die "unknown stack $STACK" ;;
	esac
}

fs_make() {
	udev_settle
	if [ "$FS" = f2fs ]; then
		modprobe f2fs
		mkfs.f2fs -f -t 0 "$TOP" >"$BENCH_TMP/mkfs.log" 2>&1 ||
			{ cat "$BENCH_TMP/mkfs.log"; bench_die "mkfs.f2fs on $TOP"; }
		mount -t f2fs "$TOP" $BENCH_MNT || bench_die "mount f2fs"
	else
		mkfs.ext4 $EXT4_MKFS_OPTS "$TOP" || bench_die "mkfs.ext4 on $TOP"
		if [ "$STACK_KIND" = bcache ]; then
			sync
			echo writeback >/sys/block/bcache0/bcache/cache_mode
		fi
		mount -t ext4 "$TOP" $BENCH_MNT || bench_die "mount ext4"
	fi
}

# stack_settle: make the stack's pending work happen now: sync the file
# system, then write everything home (dm-ressd drain; dm-writecache,
# dm-writeboost and bcache: write back every dirty block).
stack_settle() {
	sync
	case $STACK_KIND in
	ressd)
		dmq message ressd 0 drain || bench_die "ressd drain failed: $(dmsetup status ressd)"
		;;
	writecache)
		dmq message wc 0 flush_on_suspend || bench_die "writecache flush_on_suspend"
		dmq suspend wc || bench_die "suspend wc"
		dmq resume wc || bench_die "resume wc"
		;;
	writeboost)
		dmq suspend wb && dmq resume wb || bench_die "suspend/resume wb"
		dmq message wb 0 drop_caches || bench_die "writeboost drop_caches"
		;;
	bcache)
		local d=/sys/block/bcache0/bcache i
		echo 0 >$d/writeback_percent
		for i in $(seq 3000); do
			[ "$(cat $d/dirty_data)" = "0.0k" ] && break
			sleep 0.1
		done
		[ "$(cat $d/dirty_data)" = "0.0k" ] || bench_die "bcache still has $(cat $d/dirty_data) dirty"
		echo 10 >$d/writeback_percent
		;;
	esac
	udev_settle
}

# stack_status: the stack's own counters, one word.
stack_status() {
	case $STACK_KIND in
	ressd) dmsetup status ressd | cut -d' ' -f4- | tr ' ' ',' ;;
	writecache) dmsetup status wc | cut -d' ' -f4- | tr ' ' ',' ;;
	writeboost) dmsetup status wb | cut -d' ' -f4- | tr ' ' ',' ;;
	bcache)
		echo "dirty_data=$(cat /sys/block/bcache0/bcache/dirty_data),bypassed=$(cat /sys/block/bcache0/bcache/stats_total/bypassed),hits=$(cat /sys/block/bcache0/bcache/stats_total/cache_hits),misses=$(cat /sys/block/bcache0/bcache/stats_total/cache_misses)"
		;;
	*) echo "-" ;;
	esac
}

# Memory the kernel holds (slab + vmalloc), KiB: a rough view of a stack's
# footprint (delta from before the stack was created).
kmem_kib() {
	awk '/^Slab:/ { s = $2 } /^VmallocUsed:/ { v = $2 } END { print s + v }' /proc/meminfo
}
stack_memory() {	# bytes the target reports it holds, or -
	case $STACK_KIND in
	ressd) dmsetup status ressd | awk '{ print $6 }' ;;
	*) echo "-" ;;
	esac
}

stack_remove() {
	udev_settle
	if grep -q " $BENCH_MNT " /proc/mounts; then
		umount $BENCH_MNT || { sleep 1; umount $BENCH_MNT; } || bench_die "umount"
	fi
	case $STACK_KIND in
	bcache)
		local cs i
		cs=$(readlink -f /sys/block/bcache0/bcache/cache 2>/dev/null)
		echo 1 >/sys/block/bcache0/bcache/stop 2>/dev/null
		[ -n "$cs" ] && echo 1 >"$cs/unregister" 2>/dev/null
		for i in $(seq 150); do
			[ ! -e /sys/block/bcache0 ] && { [ -z "$cs" ] || [ ! -e "$cs" ]; } && break
			sleep 0.2
		done
		[ ! -e /sys/block/bcache0 ] || bench_die "bcache0 did not go away"
		# Else udev registers them again when the next stack reuses the space.
		wipefs -a -q /dev/mapper/org /dev/mapper/cache || bench_die "wipefs after bcache"
		;;
	esac
	dm_remove ressd wc wb org cache
}

# ---- measuring ----

# run_counted <cmd...>: run a command; sets RUN_WCHAR/RUN_RCHAR (bytes it
# passed to write/read calls, its children included) and RUN_WALL.
run_counted() {
	local t0 t1 io
	t0=$(date +%s.%N)
	io=$(bash -c '"$@" >>"$BENCH_TMP/cmd.log" 2>&1 || echo "RC=$?"; cat /proc/$$/io' _ "$@")
	t1=$(date +%s.%N)
	if grep -q '^RC=' <<<"$io"; then
		tail -n 20 "$BENCH_TMP/cmd.log"
		bench_die "command failed ($(grep '^RC=' <<<"$io")): $*"
	fi
	RUN_WCHAR=$(awk '/^wchar:/ { print $2 }' <<<"$io")
	RUN_RCHAR=$(awk '/^rchar:/ { print $2 }' <<<"$io")
	RUN_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
}

# record <phase> [key=value...]: one measurement line.
record() {
	local phase=$1
	shift
	echo "REC preset=$FTL_PRESET stack=$STACK workload=$WORKLOAD phase=$phase ${SWEEP:+sweep=$SWEEP }$* $(ftl_fields) stack_status=$(stack_status) target_mem=$(stack_memory)" >>"$BENCH_OUT/records.txt"
}

# drop caches, settle udev, zero the ftlsim counters: a phase starts clean.
phase_start() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	ftl_reset
}

# trace_start / trace_stop <file>: blktrace the writes queued to the ftlsim
# device in between; <file> gets "time sector bytes" per write.
trace_start() {
	rm -f "$BENCH_TMP"/bt.*
	blktrace -d $FTL -a write -o bt -D "$BENCH_TMP" >"$BENCH_TMP/blktrace.log" 2>&1 &
	TRACE_PID=$!
	sleep 1
}
trace_stop() {
	sleep 0.5
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID"
	blkparse -i bt -D "$BENCH_TMP" -q -f '%a %d %T.%9t %S %n\n' 2>/dev/null |
		awk '$1 == "Q" && $2 ~ /W/ && $5 > 0 { print $3, $4, $5 * 512 }' >"$1"
	[ -s "$1" ] || bench_die "blktrace recorded no writes ($(tail -n 3 "$BENCH_TMP/blktrace.log"))"
}

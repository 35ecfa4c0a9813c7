#!/bin/bash
# dm-ftlsim, the emulated low-end SSD (tools/ftlsim/README.md): each preset
# meets its published figures (Documentation ftlsim.md: sequential 1 MiB
# writes, 4 KiB random writes, 4 KiB random reads) within 10 %, measured as
# bytes / modelled busy time in virtual mode; bad table lines are refused
# with their own message; TABLE status round-trips; messages, determinism
# and realtime mode work.
#
# Protocol per preset, on an ftlsim device of $SPAN_MIB over $RESSD_DISK_A
# (as hlb_model.py's bench): fill it with 1 MiB sequential writes, then
#   seq     1 MiB sequential writes over the first $SEQ_MIB
#   randw   random 4 KiB writes over the whole device: a warm-up that brings
#           ssd-c's garbage collection to steady state, then $RANDW measured
#   randr   $RANDR random 4 KiB reads
# with the counters reset ("dmsetup message <dev> 0 reset") before each
# measured phase.  O_DIRECT, libaio, iodepth 1.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A
SPAN_MIB=${FTLSIM_SPAN_MIB:-256}
SEQ_MIB=${FTLSIM_SEQ_MIB:-64}
RANDW=${FTLSIM_RANDW:-2000}
RANDR=${FTLSIM_RANDR:-1000}
SPAN=$((SPAN_MIB * 2048))
DEV=ftl
command -v fio >/dev/null || fail "fio is not installed"
[ "$DISK_A_SECTORS" -ge "$SPAN" ] || fail "$A is smaller than $SPAN_MIB MiB"

# Published figures (MB/s, MB = 10^6 bytes): seq randw randr.
declare -A TARGET=(
	[ssd-a]="85 0.42 16.3"
	[ssd-b]="79 0.018 8.5"
	[ssd-c]="129 6.5 20.2"
	[sd-card]="16.4 0.61 4.69"
	[sd-worst]="10 0.01 6"
)
PRESETS="ssd-a ssd-b ssd-c sd-card sd-worst"

# ftl_stat <dev> <key>: one key=value field of the INFO status.
ftl_stat() {
	dmsetup status "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# run_fio <name> <rw> <bs> <io_size> [fio args...]: fio 3.33 ignores
# randseed under randrepeat=1, so each random phase names its own seed.
run_fio() {
	local name=$1 rw=$2 bs=$3 size=$4
	shift 4
	fio --name="$name" --filename="/dev/mapper/$DEV" --rw="$rw" --bs="$bs" \
		--direct=1 --ioengine=libaio --iodepth=1 --size="${SPAN_MIB}M" \
		--io_size="$size" --randrepeat=0 --norandommap \
		--random_generator=tausworthe64 "$@" \
		--output="$TMPDIR/fio-$name.log" ||
		{ cat "$TMPDIR/fio-$name.log"; fail "fio $name on $DEV"; }
}

# Zero the counters once nothing but the test uses the device (the Debian
# guest runs udev, which probes new devices).
reset_counters() {
	command -v udevadm >/dev/null && udevadm settle 2>/dev/null
	dmsetup message "$DEV" 0 reset || fail "message reset"
	[ "$(ftl_stat "$DEV" busy_us)" = 0 ] || fail "reset left busy_us=$(ftl_stat "$DEV" busy_us)"
}

# measure <bytes key> <expected bytes> <other bytes key>: MB/s = bytes /
# busy microseconds; the phase must have been the only I/O.
measure() {
	local bytes busy
	bytes=$(ftl_stat "$DEV" "$1")
	busy=$(ftl_stat "$DEV" busy_us)
	[ "$bytes" = "$2" ] || fail "$DEV: $1=$bytes, expected $2"
	[ "$(ftl_stat "$DEV" "$3")" = 0 ] || fail "$DEV: $3=$(ftl_stat "$DEV" "$3") during the phase"
	[ "$busy" -gt 0 ] || fail "$DEV: no busy time"
	awk -v b="$bytes" -v t="$busy" 'BEGIN { printf "%.4f", b / t }'
}

RESULTS=$TMPDIR/calibration.txt
: >"$RESULTS"
record() {	# <preset> <workload> <target> <measured>
	awk -v p="$1" -v w="$2" -v t="$3" -v m="$4" 'BEGIN {
		e = (m - t) * 100 / t
		printf "%-9s %-6s %9s %10s %+7.1f%s\n", p, w, t, m, e,
		       (e > 10 || e < -10) ? "  FAIL" : ""
	}' >>"$RESULTS"
}

note "calibration: $SPAN_MIB MiB per device, seq $SEQ_MIB MiB, $RANDW random writes, $RANDR random reads"
for p in $PRESETS; do
	read -r t_seq t_randw t_randr <<<"${TARGET[$p]}"
	dm_create "$DEV" "0 $SPAN ftlsim $A 0 $p"
	start=$(date +%s)

	run_fio fill write 1M "${SPAN_MIB}M"
	reset_counters
	run_fio seq write 1M "${SEQ_MIB}M"
	seq=$(measure write_bytes $((SEQ_MIB << 20)) read_bytes)
	note "$p seq: $(dmsetup status $DEV | cut -d' ' -f4-)"

	# ssd-c needs about half its capacity of random writes to reach
	# steady state; the log-block presets need no warm-up.
	warm=1000
	[ "$p" = ssd-c ] && warm=$((SPAN_MIB * 128))
	run_fio warm randwrite 4k $((warm * 4))k --randseed=1
	reset_counters
	run_fio randw randwrite 4k $((RANDW * 4))k --randseed=2
	randw=$(measure write_bytes $((RANDW * 4096)) read_bytes)
	note "$p randw: $(dmsetup status $DEV | cut -d' ' -f4-)"

	reset_counters
	run_fio randr randread 4k $((RANDR * 4))k --randseed=3
	randr=$(measure read_bytes $((RANDR * 4096)) write_bytes)

	record "$p" seq "$t_seq" "$seq"
	record "$p" randw "$t_randw" "$randw"
	record "$p" randr "$t_randr" "$randr"
	note "$p done in $(($(date +%s) - start)) s"
	dm_remove "$DEV"
done

echo
echo "preset    workload   target   measured  error %  (MB/s, virtual time)"
cat "$RESULTS"
echo
if grep -q FAIL "$RESULTS"; then
	fail "$(grep -c FAIL "$RESULTS") figure(s) more than 10 % off their target"
fi

note "determinism: the same request stream gives the same busy time"
dm_create "$DEV" "0 $SPAN ftlsim $A 0 sd-card"
for i in 1 2; do
	reset_counters
	dmsetup message "$DEV" 0 reset all || fail "message reset all"
	run_fio det$i randwrite 4k 2M --randseed=5
	det_busy[i]=$(ftl_stat "$DEV" busy_us)
	merges[i]=$(ftl_stat "$DEV" full_merges)
done
echo "busy_us ${det_busy[1]} ${det_busy[2]}, full merges ${merges[1]} ${merges[2]}"
[ "${det_busy[1]}" = "${det_busy[2]}" ] && [ "${merges[1]}" = "${merges[2]}" ] ||
	fail "two runs of the same stream differ"
dmsetup message "$DEV" 0 reset everything 2>/dev/null && fail "accepted message 'reset everything'"
dmsetup message "$DEV" 0 frobnicate 2>/dev/null && fail "accepted message 'frobnicate'"
st=$(dmsetup status "$DEV")
for k in preset=sd-card mode=virtual busy_us= reads= writes= read_bytes= write_bytes= \
	switch_merges= partial_merges= full_merges= erases= copied_pages= wa=; do
	grep -q " $k" <<<"$st" || fail "status lacks $k: $st"
done
grep -qE ' wa=[0-9]+\.[0-9]{3}$' <<<"$st" || fail "wa is not printed with 3 decimals: $st"
dm_remove "$DEV"

note "bad table lines"
L=$((64 * 2048))
base="0 $L ftlsim $A 0"
expect_ctr_error "0 $L ftlsim" "Not enough arguments"
expect_ctr_error "0 $L ftlsim $A 0" "Not enough arguments"
expect_ctr_error "0 $L ftlsim /dev/nonexistent 0 ssd-a" "Error opening device"
expect_ctr_error "0 $L ftlsim $A x ssd-a" "Invalid device offset"
expect_ctr_error "0 $L ftlsim $A +8 ssd-a" "Invalid device offset"
expect_ctr_error "0 $L ftlsim $A $((DISK_A_SECTORS - 8)) ssd-a" "Target range exceeds the device"
expect_ctr_error "$base ssd-z" "Unknown preset"
expect_ctr_error "$base ssd-a 3 unit_kib 8" "Invalid number of optional arguments"
expect_ctr_error "$base ssd-a 4294967298 unit_kib 8" "Invalid number of optional arguments"
expect_ctr_error "$base ssd-a 1 unit_kib" "Optional arguments must be key value pairs"
expect_ctr_error "$base ssd-a 2 foo 1" "Unknown optional argument"
expect_ctr_error "$base ssd-a 2 unit_kib 6" "unit_kib must be a multiple of 4 from 8 to 65536"
expect_ctr_error "$base ssd-a 2 unit_kib 0x10" "Invalid unit_kib"
expect_ctr_error "$base ssd-a 2 open_logs 0" "open_logs must be 1 to 256"
expect_ctr_error "$base ssd-c 2 open_logs 4" "open_logs needs a log-block preset"
expect_ctr_error "$base sd-card 2 spare_pct 7" "spare_pct needs a page-mapped preset"
expect_ctr_error "$base ssd-c 2 spare_pct 101" "spare_pct must be 1 to 100"
expect_ctr_error "$base ssd-a 2 erase_us 1.2345" "Invalid erase_us"
expect_ctr_error "$base ssd-a 2 write_us -1" "Invalid write_us"
expect_ctr_error "$base ssd-a 2 copy_us 2000000" "copy_us must be at most 1000000"
expect_ctr_error "$base ssd-a 2 discard trim" "Invalid discard mode"
expect_ctr_error "$base ssd-a 2 mode fast" "Invalid mode"
expect_ctr_error "$base ssd-a 2 scale 50" "scale needs mode realtime"
expect_ctr_error "$base ssd-a 4 mode realtime scale 0" "scale must be 1 to 10000"
expect_ctr_error "$base ssd-a 4 mode realtime scale 1x" "Invalid scale"
expect_ctr_error "$base ssd-a 4 erase_us 1 ERASE_US 2" "Duplicate optional argument"
expect_ctr_error "$base ssd-a 0 extra" "Too many arguments"

note "TABLE status round-trips"
mm=$(lsblk -dno MAJ:MIN "$A" | tr -d ' ')
roundtrip() {	# <table> <expected TABLE status>
	local t
	dm_create "$DEV" "$1"
	t=$(dmsetup table "$DEV")
	[ "$t" = "$2" ] || fail "table '$t', expected '$2'"
	dmsetup reload "$DEV" --table "$t" || fail "reload with '$t'"
	dmsetup resume "$DEV" || fail "resume after reload"
	[ "$(dmsetup table "$DEV")" = "$t" ] || fail "table changed after reload"
	dm_remove "$DEV"
	dm_create "$DEV" "$t"
	[ "$(dmsetup table "$DEV")" = "$t" ] || fail "table changed after re-create"
	dm_remove "$DEV"
	echo "ok: $t"
}
roundtrip "0 $L ftlsim $A 8 ssd-b" "0 $L ftlsim $mm 8 ssd-b"
roundtrip "0 $L ftlsim $A 0 ssd-a 10 Discard INVALIDATE flush_us 20 write_us 36.60 open_logs 4 erase_us 1500" \
	"0 $L ftlsim $mm 0 ssd-a 8 open_logs 4 write_us 36.6 flush_us 20 discard invalidate"
roundtrip "0 $L ftlsim $A 0 ssd-c 8 spare_pct 28 copy_us 0.055 mode realtime scale 50" \
	"0 $L ftlsim $mm 0 ssd-c 8 spare_pct 28 copy_us 0.055 mode realtime scale 50"
roundtrip "0 $L ftlsim $A 0 sd-worst 4 mode virtual unit_kib 4096" "0 $L ftlsim $mm 0 sd-worst"

note "realtime: completions wait for the modelled finish time"
# sd-card reads take 873 us each; scale 200 makes them 1.746 ms.
dm_create "$DEV" "0 $L ftlsim $A 0 sd-card 4 mode realtime scale 200"
reset_counters
t0=$(date +%s%N)
fio --name=rt --filename=/dev/mapper/$DEV --rw=randread --bs=4k --direct=1 \
	--ioengine=libaio --iodepth=4 --size=64M --io_size=800k --norandommap \
	--output="$TMPDIR/fio-rt.log" || fail "fio realtime"
elapsed=$((($(date +%s%N) - t0) / 1000))
busy=$(ftl_stat "$DEV" busy_us)
wait_us=$(ftl_stat "$DEV" wait_us)
# fio's own run time, without its start-up: "run=<min>-<max>msec".
run_ms=$(grep -o 'run=[0-9]*-[0-9]*msec' "$TMPDIR/fio-rt.log" | sed 's/.*-\([0-9]*\)msec/\1/')
echo "200 reads: modelled busy ${busy} us (x2 = $((busy * 2))), fio ran ${run_ms} ms, wall ${elapsed} us, waited ${wait_us} us"
grep -E '^ +(clat|lat) \(' "$TMPDIR/fio-rt.log" | head -n 2
[ "$(ftl_stat "$DEV" reads)" = 200 ] || fail "$(ftl_stat "$DEV" reads) reads, expected 200"
[ "$busy" -eq $((200 * 873)) ] || fail "busy_us $busy, expected $((200 * 873))"
[ "$elapsed" -ge $((busy * 2)) ] || fail "realtime run took ${elapsed} us, less than 2 x $busy"
# Generous: emulated guests are slow, but not 3 times the model.
[ "$((run_ms * 1000))" -le $((busy * 2 * 3)) ] || fail "realtime run took ${run_ms} ms, over 3 x 2 x $busy us"
[ "$wait_us" -gt 0 ] || fail "iodepth 4 never waited for the device"
dm_remove "$DEV"

echo "all ftlsim checks passed"

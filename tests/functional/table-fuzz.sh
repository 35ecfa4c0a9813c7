#!/bin/bash
# Table fuzzing (I8, bad input) for the ressd and ftlsim targets: a seeded
# generator builds table lines from valid arguments mixed with random tokens,
# numbers near the limits (2^32, 2^63, 2^64 - 1, 2^64, negative, hex, octal,
# signs, decimals), unknown and repeated option names, huge optional
# argument counts and tunables at and just beyond their bounds.  Every line
# must either
#   - be refused, the kernel naming the reason (a "device-mapper: table:"
#     line), the device gone afterwards and no device held open below, or
#   - be accepted and then usable: the first 4 KiB block reads, status and
#     table status work, and the device removes and releases what it held.
# Any oops, KASAN report, lockdep report or hang fails the run (guest-init.sh
# reads the kernel log; every command here runs under a timeout).
#
# TABLE_FUZZ_SEED reproduces a run (the seed is printed first);
# TABLE_FUZZ_LINES sets the lines per target (default 100).
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
SA=$DISK_A_SECTORS SB=$DISK_B_SECTORS
SEED=${TABLE_FUZZ_SEED:-$(( $(date +%s) % 100000 ))}
LINES=${TABLE_FUZZ_LINES:-100}
LOGSZ=65536
LOGOFF=$((SA - LOGSZ))		# the same-device layout: the log at the end of A
echo "table-fuzz: seed $SEED, $LINES lines per target (TABLE_FUZZ_SEED=$SEED reproduces)"
# The generator runs in this shell only (bash reseeds $RANDOM in subshells):
# rnd <n> sets R to a number in [0, n) from a 64-bit LCG seeded with $SEED;
# pick <array> sets P to one of its elements; every builder appends words to
# the array W.
STATE=$SEED
rnd() {
	STATE=$(( (STATE * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff ))
	R=$(( (STATE >> 20) % $1 ))
}
pick() { local -n a=$1; rnd ${#a[@]}; P=${a[R]}; }
# maybe <percent> <good> <pool>: P is the good value or a wild one.  A line is
# calm (bounded values only: many are accepted) or not.
CALM=0
maybe() {
	rnd 100
	if [ $CALM = 1 ] || [ $R -lt "$1" ]; then P=$2; else pick "$3"; fi
}

# Devices below: nothing may hold them after a line is done.
HOLDERS=()
for d in "$A" "$B"; do
	HOLDERS+=("/sys/block/$(basename "$(readlink -f "$d")")/holders")
done

# Numbers near limits and malformed numbers.
WILD=(0 1 7 8 -1 -8 +8 0x10 0x8 010 08 8.0 1e3 "" abc 8abc
	2147483647 2147483648 4294967295 4294967296 4294967304
	9223372036854775800 9223372036854775807 9223372036854775808
	18446744073709551608 18446744073709551615 18446744073709551616
	99999999999999999999999 -9223372036854775808)
R_DEV=("$A" "$B" /dev/nonexistent /dev/null 0:0 "${A}x" "")
R_LEN=(8 16 1000 1001 4096 $((SA + 8)) $((LOGOFF + 8)) 2147483648 4294967296)

# opt_args <key pool> <value function>: W gets "<count> key value ...",
# sometimes with a wrong count, a key without its value, or nothing.
opt_args() {
	local keys=$1 valfn=$2 n i words=()
	rnd 6
	n=$R
	for ((i = 0; i < n; i++)); do
		pick "$keys"
		words+=("$P")
		$valfn "$P"
		words+=("$P")
	done
	if [ $CALM = 0 ]; then
		rnd 10
		[ $R = 0 ] && [ $n -gt 0 ] && unset 'words[-1]'
	fi
	local cnt=${#words[@]}
	rnd 10
	[ $CALM = 1 ] && R=9
	case $R in
	0) pick WILD; cnt=$P ;;
	1) rnd 3; cnt=$((cnt + 1 + R)) ;;
	2) cnt=$((cnt > 0 ? cnt - 1 : 0)) ;;
	esac
	rnd 4
	if [ $n -gt 0 ] || [ $R = 0 ]; then
		W+=("$cnt" "${words[@]}")
	fi
	if [ $CALM = 0 ]; then
		rnd 25
		[ $R = 0 ] && W+=(extra)
	fi
}

# ---- ressd ----
R_KEYS=(small_write_max high_watermark low_watermark mover_batch SMALL_WRITE_MAX
	High_Watermark foo small_write high_watermark_ "" 0 -)
R_GOODKEYS=(small_write_max high_watermark low_watermark mover_batch SMALL_WRITE_MAX
	High_Watermark)
R_SWM=(0 8 12 16 24 1016 1024 4088 8184 8192 8200)
R_HW=(0 1 2 49 50 51 99 100 101)
R_LW=(0 1 49 50 98 99 100)
R_MB=(0 8 12 16 24 512 1024 8184 8192 8200 16384)
R_LS=(0 8 16 24 32 40 12 4096 $LOGSZ $((LOGSZ + 8)) $SB $((SB + 8)) 268435456 2147483664)
ressd_value() {	# <key>
	case ${1,,} in
	small_write_max) pick R_SWM; maybe 80 "$P" WILD ;;
	high_watermark) pick R_HW; maybe 80 "$P" WILD ;;
	low_watermark) pick R_LW; maybe 80 "$P" WILD ;;
	mover_batch) pick R_MB; maybe 80 "$P" WILD ;;
	*) pick WILD ;;
	esac
}
ressd_line() {
	local len=$SA od=$A oo=0 ld=$B lo=0 ls=$LOGSZ keys=R_KEYS
	[ $CALM = 1 ] && keys=R_GOODKEYS
	rnd 2
	if [ $R = 0 ]; then	# one device, the log at its end
		ld=$A lo=$LOGOFF len=$LOGOFF
	fi
	rnd 8
	case $R in
	0) rnd 64; len=$((len - 8 * R)) ;;
	1) [ $CALM = 0 ] && { pick R_LEN; len=$P; } ;;
	esac
	maybe 92 "$od" R_DEV; od=$P
	maybe 92 "$ld" R_DEV; ld=$P
	maybe 85 "$oo" WILD; oo=$P
	maybe 85 "$lo" WILD; lo=$P
	maybe 75 "$ls" R_LS; ls=$P
	maybe 90 "$ls" WILD; ls=$P
	W=(0 "$len" ressd "$od" "$oo" "$ld" "$lo" "$ls")
	opt_args $keys ressd_value
}

# ---- ftlsim ----
F_KEYS=(unit_kib open_logs spare_pct write_base_us write_us copy_us erase_us
	read_base_us read_us flush_us discard mode scale UNIT_KIB Mode foo "")
F_GOODKEYS=(unit_kib open_logs spare_pct write_base_us write_us copy_us erase_us
	flush_us discard mode scale UNIT_KIB Mode)
F_PRESET=(ssd-a ssd-b ssd-c sd-card sd-worst SSD-A ssd-d "" 0)
F_GOODPRESET=(ssd-a ssd-b ssd-c sd-card sd-worst SSD-A)
F_US=(0 0.5 1 36.5 36.25 36.125 36.1234 999999.999 1000000 1000000.001 1000001
	.5 5. 1.2.3 1,5 -1 0x10)
F_READ_US=(0 0.5 1 41 100.25 1000.0001 1000001 -0 abc)	# realtime reads stay short
F_UNIT=(0 4 8 12 64 512 65536 65540 131072)
F_LOGS=(0 1 2 8 256 257)
F_SPARE=(0 1 7 100 101)
F_SCALE=(0 1 50 100 101 10000 10001)
F_WORDS=(noop invalidate virtual realtime NOOP Realtime none "")
ftlsim_value() {	# <key>
	case ${1,,} in
	unit_kib) pick F_UNIT; maybe 80 "$P" WILD ;;
	open_logs) pick F_LOGS; maybe 80 "$P" WILD ;;
	spare_pct) pick F_SPARE; maybe 80 "$P" WILD ;;
	scale) pick F_SCALE; maybe 80 "$P" WILD ;;
	read_base_us | read_us) pick F_READ_US ;;
	*_us) pick F_US; maybe 80 "$P" WILD ;;
	discard | mode) pick F_WORDS ;;
	*) pick WILD ;;
	esac
}
ftlsim_line() {
	local dev=$A len=$SA off=0 keys=F_KEYS
	[ $CALM = 1 ] && keys=F_GOODKEYS
	rnd 2
	[ $R = 0 ] && dev=$B len=$SB
	rnd 6
	case $R in
	0) rnd 1000; len=$((len - 8 * R)) ;;
	1) [ $CALM = 0 ] && { pick R_LEN; len=$P; } ;;
	2) rnd 32768; off=$((R * 8)) len=$((len - off)) ;;
	esac
	maybe 92 "$dev" R_DEV; dev=$P
	maybe 85 "$off" WILD; off=$P
	if [ $CALM = 1 ]; then pick F_GOODPRESET; else maybe 85 ssd-a F_PRESET; fi
	W=(0 "$len" ftlsim "$dev" "$off" "$P")
	opt_args $keys ftlsim_value
}


declare -A refused_by acc_of ref_of
tried=0 refused=0 accepted=0

# held: something holds a scratch disk (no fork: processes are slow in UML).
held() {
	local h e
	for h in "${HOLDERS[@]}"; do
		e=("$h"/*)
		[ -e "${e[0]}" ] && { echo "$h: ${e[*]}"; return 0; }
	done
	return 1
}

# try_line <target> <line>
try_line() {
	local target=$1 line=$2 msg rc
	tried=$((tried + 1))
	timeout -k 5 60 dmsetup create tf --table "$line" >"$TMPDIR/tf.out" 2>&1
	rc=$?
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && fail "hung creating: '$line'"
	if [ $rc -ne 0 ]; then
		# The kernel must say why: "device-mapper: table: 254:0: ressd: <why>"
		kmsg_take "$line"
		msg=$(sed -n 's/.*device-mapper: table: [0-9]*:[0-9]*: //p' <<<"$KMSG" | head -n 1)
		if [ -z "$msg" ]; then
			cat "$TMPDIR/tf.out"
			tail -n 5 <<<"$KMSG"
			fail "refused without a kernel message: '$line'"
		fi
		msg=${msg% (-*)}
		# dm's default ti->error: the target did not say what was wrong.
		[ "${msg#*: }" != "Unknown error" ] || fail "refused with no reason of its own: '$line'"
		if dmsetup info tf >/dev/null 2>&1; then
			fail "refused line left the device behind: '$line'"
		fi
		held && fail "refused line left a device held: '$line' ($msg)"
		refused=$((refused + 1))
		ref_of[$target]=$(( ${ref_of[$target]:-0} + 1 ))
		refused_by["$msg"]=$(( ${refused_by["$msg"]:-0} + 1 ))
		echo "refused: $msg <- $line"
		return
	fi
	accepted=$((accepted + 1))
	acc_of[$target]=$(( ${acc_of[$target]:-0} + 1 ))
	echo "accepted: $line"
	dmsetup mknodes tf >/dev/null 2>&1
	[ -b /dev/mapper/tf ] || fail "no /dev/mapper/tf after accepting '$line'"
	timeout 60 dd if=/dev/mapper/tf of=/dev/null bs=4k count=1 iflag=direct status=none ||
		fail "reading the first block failed or hung: '$line'"
	timeout 30 dmsetup status tf >"$TMPDIR/tf.st" 2>&1 || fail "status: '$line'"
	grep -q " $target " "$TMPDIR/tf.st" || fail "status of '$line': $(cat "$TMPDIR/tf.st")"
	timeout 30 dmsetup table tf >/dev/null 2>&1 || fail "table status: '$line'"
	timeout 60 dmsetup remove --retry tf || fail "could not remove '$line'"
	dmsetup info tf >/dev/null 2>&1 && fail "still there after remove: '$line'"
	held && fail "removed device left a device held: '$line'"
	kmsg_take "$line"
	# It may have formatted a log: start afresh, so that valid lines format.
	[ "$target" = ressd ] && { zero_at "$B" 8 0; zero_at "$A" 8 "$LOGOFF"; }
}

zero_at "$B" 8 0
zero_at "$A" 8 "$LOGOFF"
kmsg_take "setup"
for target in ressd ftlsim; do
	note "$target: $LINES lines"
	for ((l = 0; l < LINES; l++)); do
		rnd 3
		CALM=$((R == 0))
		${target}_line
		line="${W[*]}"
		try_line "$target" "$line"
	done
done

echo "refusals by message:"
for m in "${!refused_by[@]}"; do
	printf '%5d  %s\n' "${refused_by[$m]}" "$m"
done | sort -k2
echo "table lines tried: $tried, refused: $refused, accepted: $accepted (seed $SEED)"
# The generator must reach both outcomes for both targets.
for target in ressd ftlsim; do
	echo "$target: ${acc_of[$target]:-0} accepted, ${ref_of[$target]:-0} refused"
	[ "${acc_of[$target]:-0}" -gt 0 ] && [ "${ref_of[$target]:-0}" -gt 0 ] ||
		fail "$target: the generator reached only one outcome"
done
echo "table-fuzz passed"

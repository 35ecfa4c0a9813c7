#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
#
# PID 1 of the root file system that tests/boot/root-initramfs.sh puts on
# dm-ressd (busybox only).  The initramfs opened the device; this checks the
# hand-over, then does what ressd.phase= on the command line says:
#
#   write   every file against the journal, then files written and fsynced
#           on the root until the host kills the machine (a journal of what
#           was acknowledged, on /dev/vdb)
#   verify  every file against the journal (crash mode: a write begun and
#           not acknowledged may have any content), then more writes for a
#           few seconds, then a clean shutdown (sync, remount read-only,
#           power off: the log keeps what the mover had not moved)
#   check   every file against the journal, then power off
#   plain   (a root not on dm-ressd, for the boot time) power off
#
# The journal: one record a 512-byte sector, written with O_DIRECT and a
# flush before the next step: "B <file>" before a write, "D <file> <sha1>"
# after its fsync returned.  Lines for the host start with RESSD-BOOT.
export PATH=/bin:/sbin
J=/dev/vdb
say() { echo "RESSD-BOOT $*" >/dev/console; }
off() {
	sync
	mount -o remount,ro / 2>/dev/null
	poweroff -f
}
say "init at $(cut -d' ' -f1 /proc/uptime) s"
phase=
for a in $(cat /proc/cmdline); do
	case $a in ressd.phase=*) phase=${a#ressd.phase=} ;; esac
done
[ -d /proc/self ] || mount -t proc proc /proc
[ "$phase" = plain ] && off

# The hand-over: the system's tab-open finds the device open.
out=$(ressdsetup tab-open --tab /etc/ressdtab 2>&1)
case $out in
*"exists already"*) say "handover ok: $out" ;;
*) say "FAIL handover: $out" ;;
esac
say "root: $(grep ' / ' /proc/mounts | head -n 1)"

n=0
jrec() {
	printf '%-511s\n' "$*" | dd of=$J bs=512 seek=$n count=1 iflag=fullblock oflag=direct \
		conv=notrunc,fsync 2>/dev/null || say "FAIL journal write $n"
	n=$((n + 1))
}

# check: every file whose last record is D holds that sum.
check() {
	local what=$1 rec f s want bad=0 good=0 pend=0
	rm -rf /run/j && mkdir -p /run/j
	n=0
	while :; do
		rec=$(dd if=$J bs=512 skip=$n count=1 2>/dev/null | tr -d '\0' | head -n 1)
		set -- $rec
		[ -n "${1:-}" ] || break
		case $1 in
		B) echo pending >/run/j/$2 ;;
		D) echo "$3" >/run/j/$2 ;;
		*) say "FAIL journal record $n: $rec"; bad=$((bad + 1)) ;;
		esac
		n=$((n + 1))
	done
	for f in $(ls /run/j); do
		want=$(cat /run/j/$f)
		if [ "$want" = pending ]; then
			pend=$((pend + 1))
			continue
		fi
		s=$(sha1sum /data/f$f 2>/dev/null | cut -d' ' -f1)
		if [ "$s" = "$want" ]; then
			good=$((good + 1))
		else
			say "FAIL file f$f: ${s:-missing}, acknowledged $want"
			bad=$((bad + 1))
		fi
	done
	say "$what: $n records, $good files as acknowledged, $pend in flight, $bad bad"
	[ $bad = 0 ]
}

nfiles=0
work() {	# <seconds>
	local end=$(($(cut -d. -f1 /proc/uptime) + $1)) f
	nfiles=$(ls /data | wc -l)
	say "writing"
	while [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; do
		if [ $nfiles -lt 16 ] || [ $((RANDOM % 100)) -lt 15 ]; then
			f=$nfiles
			nfiles=$((nfiles + 1))
			jrec "B $f"
			dd if=/dev/urandom of=/data/f$f bs=4k count=8 conv=fsync 2>/dev/null ||
				{ say "FAIL write f$f"; off; }
		else
			f=$((RANDOM % nfiles))
			jrec "B $f"
			dd if=/dev/urandom of=/data/f$f bs=4k seek=$((RANDOM % 8)) count=1 \
				conv=notrunc,fsync 2>/dev/null || { say "FAIL write f$f"; off; }
		fi
		s=$(sha1sum /data/f$f | cut -d' ' -f1)
		[ ${#s} = 40 ] || { say "FAIL sha1sum f$f"; off; }
		jrec "D $f $s"
	done
	say "wrote $n records"
}

case $phase in
write)
	# (the journal goes on from its end: check finds it, and checks
	# what the last boots left)
	mkdir -p /data
	check "before writing" || say "FAIL before writing"
	work 100000
	;;
verify)
	check "after the kill" && say "verify ok"
	work 8
	off
	;;
check)
	check "after a clean shutdown" && say "check ok"
	off
	;;
esac
say "FAIL unknown phase '$phase'"
off

#!/bin/bash
# The crc32c driver (dm-ressd-csum.c): the module times the kernel's crc32c
# drivers when it loads and keeps the fastest, which the parameter
# csum_driver names; given at load, the parameter forces one.  All compute
# the same function, so a log written with one driver is read with any
# other: for each pair of drivers this kernel has (crc32c-generic and, on
# x86, crc32c-intel), the self-checking writer fills a log with the module
# using the first, the target is removed without draining (the log holds
# records, with the mover off), the module is loaded again with the second,
# and every acknowledged write must be read back, replayed from the log
# (each entry's data checksum checked by the second driver).  A driver that
# does not exist fails the load with a message naming it.  The module is
# loaded again with its defaults at the end.
. "$RESSD_TOP/tests/lib/testlib.sh"
. "$RESSD_TOP/tests/lib/writer.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B SA=$DISK_A_SECTORS
KO=$RESSD_MOD/dm_ressd.ko
NBLK=2048
LOGSZ=131072			# 64 MiB: the writer's run fits, nothing wraps
T="0 $SA ressd $A 0 $B 0 $LOGSZ 2 high_watermark 100"
J=$TMPDIR/csum.journal

[ -e "$KO" ] || fail "no $KO"
writer_build

param() { cat /sys/module/dm_ressd/parameters/csum_driver; }

# reload [<parameter>...]: the module unloaded and loaded again.
reload() {
	dmsetup remove_all --retry >/dev/null 2>&1
	rmmod dm_ressd || fail "rmmod dm_ressd"
	insmod "$KO" "$@"
}
# Whatever happened, the module is loaded again with its defaults for the
# tests after this one.
trap 'dmsetup remove_all --retry >/dev/null 2>&1; rmmod dm_ressd 2>/dev/null; insmod "$KO"' EXIT

note "the driver the module chose at load"
reload || fail "insmod"
in_use=$(param)
echo "csum_driver: $in_use"
[ -n "$in_use" ] || fail "csum_driver is empty"
dmesg | grep -F "crc32c by "
line=$(dmesg | grep -F "crc32c by $in_use: " | tail -n 1)
[[ $line == *"(in use)" ]] || fail "the kernel log does not name $in_use as the one in use"
kmsg_take "the load"

[ "$RESSD_KIND" = vm ] && modprobe crc32c_intel 2>/dev/null
mapfile -t drivers < <(grep -A2 '^name *: crc32c$' /proc/crypto |
	awk '$1 == "driver" { print $3 }' | sort -u)
echo "crc32c drivers: ${drivers[*]}"
[ ${#drivers[@]} -ge 1 ] || fail "no crc32c driver in /proc/crypto"
printf '%s\n' "${drivers[@]}" | grep -qx -- "$in_use" ||
	fail "$in_use is not among the crc32c drivers"

pairs=0
for w in "${drivers[@]}"; do
	for r in "${drivers[@]}"; do
		[ ${#drivers[@]} -gt 1 ] && [ "$w" = "$r" ] && continue
		note "written with $w, read with $r"
		reload csum_driver="$w" || fail "insmod csum_driver=$w"
		[ "$(param)" = "$w" ] || fail "csum_driver=$w: the parameter says $(param)"
		zero_at "$B" 8 0
		rm -f "$J"
		dm_create cs "$T"
		"$WRITER" write --dev /dev/mapper/cs --blocks $NBLK --seconds 3 \
			--seed $((4000 + pairs)) --journal "$J" \
			--mix w4=40,w8=15,wb=10,seq=5,dsync=8,read=15,fsync=7 \
			>"$TMPDIR/writer.out" 2>&1 || { cat "$TMPDIR/writer.out"; fail "writer"; }
		tail -n 2 "$TMPDIR/writer.out"
		show_status cs "written with $w"
		[ "$(status_field cs 7)" -eq 0 ] || fail "the mover ran: the log must hold the writes"
		dm_remove cs
		reload csum_driver="$r" || fail "insmod csum_driver=$r"
		dm_create cs "$T"
		show_status cs "read with $r"
		mapped=$(status_field cs 2)
		[ "$mapped" -gt 100 ] || fail "only $mapped blocks replayed from the log"
		writer_verify /dev/mapper/cs "$J" "written with $w, read with $r"
		dm_remove cs
		kmsg_take "$w then $r"
		pairs=$((pairs + 1))
	done
done
echo "$pairs pairs of drivers"

note "a driver that does not exist"
rmmod dm_ressd || fail "rmmod dm_ressd"
if insmod "$KO" csum_driver=ressd-none 2>/dev/null; then
	fail "the module loaded with csum_driver=ressd-none"
fi
dmesg | grep -qF "csum_driver ressd-none: cannot be loaded" ||
	{ dmesg | tail -n 5; fail "the kernel did not name the driver"; }
kmsg_take "a driver that does not exist"
insmod "$KO" || fail "insmod with the defaults"
trap - EXIT
echo "ok"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The root file system on dm-ressd, booted through the project's
# initramfs-tools hook (tools/ressdsetup/initramfs): the Debian kernel of
# RESSD_KERNEL under QEMU (software emulation), an initramfs made by
# mkinitramfs with the hook and boot script, /etc/ressdtab "root /dev/vda
# initramfs", and an ext4 root in the normal area of a device that
# "ressdsetup format" labelled (tests/boot/root-init.sh is its PID 1).
#
#   1. write: the machine boots from it, writes and fsyncs files (a journal
#      of what was acknowledged on a second disk), and is killed (SIGKILL to
#      QEMU) 5 to 15 s after the writing started: a crash (the disk images
#      keep every write QEMU issued; the dm-log-writes crash harness,
#      tests/crash/replay.sh, is what drops unflushed writes);
#   2. a crash in the next boot (at 60 to 110 % of the time the last one
#      took to reach init: in the initramfs or the checks after it), then
#      verify: it boots again (the initramfs replays
#      the log), every file
#      holds what was acknowledged, the system's own tab-open finds the
#      device open (no second open); more writes, then a clean shutdown
#      with blocks left in the log;
#   3. 1 and 2 again with an image made by dracut with the project's dracut
#      module (tools/ressdsetup/dracut), on the same disk;
#   4. check: it boots again (initramfs-tools), every file as acknowledged;
#   5. the same kernel and initramfs hooks without dm-ressd, booting a plain
#      ext4 root: the boot time beside the one through dm-ressd.
#
# Every console log is judged as a guest's kernel log is.  Prints
# PASS/FAIL lines and "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/../../scripts/common.sh"

layer=boot-$RESSD_KERNEL
out=$RESSD_TOP/.out/$layer
rm -rf "$out"
mkdir -p "$out"
fin() {
	ressd_report "$out/counts"
	exit $?
}
die_test() {
	ressd_fail "$layer" "$*"
	fin
}

command -v mkinitramfs >/dev/null || ressd_apt_install initramfs-tools ||
	die_test "no initramfs-tools"
kver=$(ressd_debian_kver) || die_test "no Debian $RESSD_KERNEL kernel with headers (run make deps)"

# The module for that kernel, and ressdsetup.
ressd_build_modules "/usr/src/linux-headers-$kver" "$out/build" "$out/build.log" ||
	die_test "build: the module against $kver (see $out/build.log)"
make -C "$RESSD_TOP/tools/ressdsetup" >"$out/tools.log" 2>&1 ||
	die_test "build: tools/ressdsetup (see $out/tools.log)"
tool=$RESSD_TOP/tools/ressdsetup/ressdsetup

# The initramfs: mkinitramfs with a configuration directory of our own,
# the installed hooks plus ours (as "make install" puts them, ressdsetup
# where it was built).
mkconf() {	# <dir> <with ressd?>
	mkdir -p "$1/hooks" "$1/scripts/local-top" "$1/conf.d"
	printf 'MODULES=list\nBUSYBOX=y\nCOMPRESS=gzip\nRESUME=none\n' >"$1/initramfs.conf"
	printf 'virtio_pci\nvirtio_blk\next4\n' >"$1/modules"
	if [ "$2" = 1 ]; then
		sed "s|@SBINDIR@|$RESSD_TOP/tools/ressdsetup|g" \
			"$RESSD_TOP/tools/ressdsetup/initramfs/hook.in" >"$1/hooks/ressd"
		sed "s|@SBINDIR@|$RESSD_TOP/tools/ressdsetup|g" \
			"$RESSD_TOP/tools/ressdsetup/initramfs/local-top.in" >"$1/scripts/local-top/ressd"
		chmod +x "$1/hooks/ressd" "$1/scripts/local-top/ressd"
	fi
}
printf '# name device options\nroot /dev/vda initramfs\n' >"$out/ressdtab"
mkconf "$out/conf" 1
mkconf "$out/conf-plain" 0
RESSDTAB=$out/ressdtab RESSD_MODULE=$out/build/dm_ressd.ko \
	mkinitramfs -d "$out/conf" -o "$out/initrd.img" "$kver" >"$out/mkinitramfs.log" 2>&1 ||
	die_test "mkinitramfs with the hook (see $out/mkinitramfs.log)"
mkinitramfs -d "$out/conf-plain" -o "$out/initrd-plain.img" "$kver" >"$out/mkinitramfs-plain.log" 2>&1 ||
	die_test "mkinitramfs without the hook (see $out/mkinitramfs-plain.log)"
lsinitramfs "$out/initrd.img" >"$out/initrd.list"
for f in sbin/ressdsetup etc/ressdtab scripts/local-top/ressd 'dm_ressd\.ko'; do
	grep -q "$f" "$out/initrd.list" || die_test "the initramfs has no $f"
done
ressd_pass "$layer" "mkinitramfs: the hook put ressdsetup, the tab, the boot script and dm_ressd in the initramfs"

# dracut, from a copy of its modules with ours added (as make install puts it)
dracut_img=
if ressd_apt_install dracut-core >/dev/null 2>&1 && command -v dracut >/dev/null; then
	cp -a /usr/lib/dracut "$out/dracut-base"
	m=$out/dracut-base/modules.d/90ressd
	mkdir -p "$m" "$out/dracut-conf.d"
	sed "s|@SBINDIR@|$RESSD_TOP/tools/ressdsetup|g" \
		"$RESSD_TOP/tools/ressdsetup/dracut/module-setup.sh.in" >"$m/module-setup.sh"
	cp "$RESSD_TOP/tools/ressdsetup/dracut/ressd-open.sh" "$m/"
	chmod +x "$m"/*.sh
	if dracutbasedir=$out/dracut-base RESSDTAB=$out/ressdtab RESSD_MODULE=$out/build/dm_ressd.ko \
		dracut --force --no-hostonly --no-hostonly-cmdline --conf /dev/null \
		--confdir "$out/dracut-conf.d" --kver "$kver" \
		--modules "base rootfs-block kernel-modules udev-rules dm ressd" \
		--add-drivers "virtio_pci virtio_blk ext4" "$out/initrd-dracut.img" \
		>"$out/dracut.log" 2>&1; then
		lsinitrd "$out/initrd-dracut.img" >"$out/initrd-dracut.list" 2>&1
		ok=1
		for f in sbin/ressdsetup etc/ressdtab ressd-open.sh 'dm_ressd\.ko'; do
			grep -q "$f" "$out/initrd-dracut.list" || { ok=0; ressd_fail "$layer" "dracut: the image has no $f"; }
		done
		[ $ok = 1 ] && dracut_img=$out/initrd-dracut.img &&
			ressd_pass "$layer" "dracut: the module put ressdsetup, the tab, the initqueue hook and dm_ressd in the image"
	else
		ressd_fail "$layer" "dracut: the image could not be made (see $out/dracut.log)"
	fi
else
	ressd_fail "$layer" "dracut: dracut-core could not be installed"
fi

# The root: busybox, ressdsetup with its libraries, the tab, our init.
root=$out/rootfs
mkdir -p "$root"/{bin,sbin,etc,dev,proc,sys,run,tmp,data}
cp /bin/busybox "$root/bin/busybox"
for a in $("$root/bin/busybox" --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done
cp "$tool" "$root/sbin/ressdsetup"
for l in $(ldd "$tool" | grep -o '/[^ ]*'); do
	mkdir -p "$root$(dirname "$l")"
	cp -L "$l" "$root$l"
done
cp "$out/ressdtab" "$root/etc/ressdtab"
cp "$RESSD_TOP/tests/boot/root-init.sh" "$root/sbin/init"
chmod +x "$root/sbin/init"

# The device: label, ext4 in the normal area, a 64 MiB log.
truncate -s 1G "$out/disk.img"
"$tool" format "$out/disk.img" --reserved 64M --batch >"$out/format.log" 2>&1 ||
	die_test "ressdsetup format (see $out/format.log)"
read -r first last < <(sed -n 's/^ *normal area *sectors \([0-9]*\)\.\.\([0-9]*\) .*/\1 \2/p' "$out/format.log")
[ "${first:-}" = 2048 ] || die_test "format: no normal area at 1 MiB (see $out/format.log)"
mkfs.ext4 -q -F -E offset=$((first * 512)) -d "$root" "$out/disk.img" $(((last + 1 - first) / 2))k \
	>"$out/mkfs.log" 2>&1 || die_test "mkfs.ext4 in the normal area (see $out/mkfs.log)"
truncate -s 16M "$out/journal.img"
truncate -s 512M "$out/plain.img"
mkfs.ext4 -q -F -d "$root" "$out/plain.img" >>"$out/mkfs.log" 2>&1 || die_test "mkfs.ext4 of the plain root"

# boot <name> <initrd> <root> <phase> <disk>...: boot once, console in
# $out/<name>.log; background it with & to kill it.
boot() {
	local name=$1 initrd=$2 rootdev=$3 phase=$4 img drives=()
	shift 4
	for img in "$@"; do
		drives+=(-drive "file=$img,format=raw,if=virtio,cache=none")
	done
	timeout -k 10 "${RESSD_GUEST_TIMEOUT:-900}" qemu-system-x86_64 -machine accel=tcg -m 1G -smp 2 \
		-nographic -no-reboot -kernel "/boot/vmlinuz-$kver" -initrd "$initrd" \
		-append "root=$rootdev rw console=ttyS0 loglevel=6 panic=-1 init=/sbin/init ressd.phase=$phase" \
		"${drives[@]}" </dev/null >"$out/$name.log" 2>&1
}
judge() {	# <name> <what>: the console log holds no failure and no bad kernel line
	local bad
	if grep -q 'RESSD-BOOT FAIL' "$out/$1.log"; then
		ressd_fail "$layer" "$2: $(grep -m3 'RESSD-BOOT FAIL' "$out/$1.log" | tr '\n' ' ' | cut -c1-300)"
		return 1
	elif bad=$(ressd_kernel_log_bad "$out/$1.log"); then
		ressd_fail "$layer" "$2: kernel log: $bad"
		return 1
	fi
	return 0
}
boot_time() { sed -n 's/.*RESSD-BOOT init at \([0-9.]*\) s.*/\1/p' "$out/$1.log" | head -n 1; }

# cycle <tag> <initrd> <what>: boot and write, kill, boot again and verify
# (then more writes and a clean shutdown).
cycle() {
	local tag=$1 initrd=$2 what=$3 qpid t delay
	# (stderr: bash's note of the killed QEMU)
	boot "$tag-write" "$initrd" /dev/mapper/root write "$out/disk.img" "$out/journal.img" 2>/dev/null &
	qpid=$!
	# t in tenths of a second; tinit when init was reached
	t=0 tinit=
	while ! grep -q 'RESSD-BOOT writing' "$out/$tag-write.log" 2>/dev/null && kill -0 $qpid 2>/dev/null &&
		[ $t -lt 6000 ]; do
		sleep 0.1
		t=$((t + 1))
		[ -z "$tinit" ] && grep -q 'RESSD-BOOT init' "$out/$tag-write.log" && tinit=$t
	done
	if ! grep -q 'RESSD-BOOT writing' "$out/$tag-write.log"; then
		pkill -KILL -f "^qemu-system-x86_64 .*$out/journal.img"
		wait $qpid
		tail -n 20 "$out/$tag-write.log" | sed 's/^/    /'
		ressd_fail "$layer" "$what: the machine did not start writing (see $out/$tag-write.log)"
		return 1
	fi
	delay=$((5 + RANDOM % 11))
	sleep $delay
	pkill -KILL -f "^qemu-system-x86_64 .*$out/journal.img"
	wait $qpid 2>/dev/null
	grep -E 'RESSD-BOOT (init|handover|root)' "$out/$tag-write.log" | sed 's/^/    /'
	judge "$tag-write" "$what, write boot" &&
		ressd_pass "$layer" "$what: root on /dev/mapper/root, killed ${delay} s into the writes"

	# a crash while it boots again: in the initramfs (the log being
	# replayed) or in the checks after it, at 60 to 110 % of the time the
	# last boot took from QEMU's start to init
	delay=$(awk -v t="${tinit:-60}" -v r=$RANDOM 'BEGIN { printf "%.1f", t / 10 * (0.6 + 0.5 * r / 32768) }')
	boot "$tag-cut" "$initrd" /dev/mapper/root check "$out/disk.img" "$out/journal.img" 2>/dev/null &
	qpid=$!
	sleep $delay
	pkill -KILL -f "^qemu-system-x86_64 .*$out/journal.img"
	wait $qpid 2>/dev/null
	judge "$tag-cut" "$what, crash in the boot" &&
		ressd_pass "$layer" "$what: a crash ${delay} s into the next boot, after QEMU's start (init at $((tinit / 10)).$((tinit % 10)) s before), last line: $(grep -a -v '^\s*$' "$out/$tag-cut.log" | tail -n 1 | tr -d '\r' | cut -c1-100)"

	boot "$tag-verify" "$initrd" /dev/mapper/root verify "$out/disk.img" "$out/journal.img"
	grep -E 'RESSD-BOOT' "$out/$tag-verify.log" | grep -v writing | sed 's/^/    /'
	# (at least 20 files acknowledged before the kill: the check checked)
	good=$(sed -n 's/.*RESSD-BOOT after the kill: [0-9]* records, \([0-9]*\) files as acknowledged.*/\1/p' \
		"$out/$tag-verify.log")
	if judge "$tag-verify" "$what, boot after the kill" && grep -q 'RESSD-BOOT verify ok' "$out/$tag-verify.log" &&
		grep -q 'RESSD-BOOT handover ok' "$out/$tag-verify.log" && [ "${good:-0}" -ge 20 ]; then
		ressd_pass "$layer" "$what, boot after the kill: the log replayed in the initramfs, every acknowledged file intact, no second open"
	else
		ressd_fail "$layer" "$what, boot after the kill: no 'verify ok' or 'handover ok', or fewer than 20 files checked (${good:-0}; see $out/$tag-verify.log)"
	fi
}

ressd_vm_lock
# 1, 2: through initramfs-tools
cycle it "$out/initrd.img" initramfs-tools
# the same through dracut
if [ -n "$dracut_img" ]; then
	cycle dracut "$dracut_img" dracut
fi

# 3. after the clean shutdown
boot check "$out/initrd.img" /dev/mapper/root check "$out/disk.img" "$out/journal.img"
grep -E 'RESSD-BOOT' "$out/check.log" | sed 's/^/    /'
judge check "boot after a clean shutdown" && grep -q 'RESSD-BOOT check ok' "$out/check.log" &&
	ressd_pass "$layer" "boot after a clean shutdown: every acknowledged file intact" ||
	ressd_fail "$layer" "boot after a clean shutdown: no 'check ok' (see $out/check.log)"

# 4. boot time without dm-ressd
boot plain "$out/initrd-plain.img" /dev/vda plain "$out/plain.img"
ressd_vm_unlock
t1=$(boot_time check) t0=$(boot_time plain)
if [ -n "$t0" ] && [ -n "$t1" ] && judge plain "plain boot"; then
	ressd_pass "$layer" "boot time to init: ${t1} s through dm-ressd (a log to replay), ${t0} s on plain ext4"
	printf 'boot time to init (s, TCG): dm-ressd %s, plain ext4 %s\n' "$t1" "$t0" >"$out/boot-time.txt"
else
	ressd_fail "$layer" "boot time: no 'init at' line (see $out/check.log, $out/plain.log)"
fi
fin

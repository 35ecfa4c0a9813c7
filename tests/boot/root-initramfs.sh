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
#   tests/boot/root-initramfs.sh [amd64]   Debian's amd64 kernel (boot-6.1,
#                                          boot-6.12)
#   tests/boot/root-initramfs.sh arm64     Debian's arm64 kernel under
#                                          qemu-system-aarch64 (boot-arm64,
#                                          6.1 only): the images are made by
#                                          mkinitramfs and dracut inside the
#                                          arm64 guest (scripts/common.sh,
#                                          ressd_arm64_root; the guest side is
#                                          tests/boot/arm64-mkinitrd.sh), and
#                                          ressdsetup and the root's busybox
#                                          are arm64 programs
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
#      module (tools/ressdsetup/dracut), on the same disk: on amd64 an image
#      with systemd in it (the initqueue a service), on arm64 one without
#      (dracut's own init runs the initqueue; the guest's root has no
#      systemd); both kinds are made and checked on amd64, and booted with
#      BOOT_DRACUT=both;
#   4. check: it boots again (initramfs-tools), every file as acknowledged;
#   5. the same kernel and initramfs hooks without dm-ressd, booting a plain
#      ext4 root: the boot time beside the one through dm-ressd.
#
# Every console log is judged as a guest's kernel log is.  Prints
# PASS/FAIL lines and "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/../../scripts/common.sh"

arch=${1:-amd64}
case $arch in
amd64) layer=boot-$RESSD_KERNEL ;;
arm64)
	[ "$RESSD_KERNEL" = 6.1 ] || ressd_die "the arm64 boot test runs Debian's 6.1 kernel only"
	layer=boot-arm64 ;;
*) ressd_die "usage: root-initramfs.sh [amd64|arm64]" ;;
esac
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

# The kernel, the module for it, ressdsetup for the host (format) and for
# the guest (the initramfs and the root).
make -C "$RESSD_TOP/tools/ressdsetup" >"$out/tools.log" 2>&1 ||
	die_test "build: tools/ressdsetup (see $out/tools.log)"
htool=$RESSD_TOP/tools/ressdsetup/ressdsetup
if [ $arch = amd64 ]; then
	command -v mkinitramfs >/dev/null || ressd_apt_install initramfs-tools ||
		die_test "no initramfs-tools"
	kver=$(ressd_debian_kver) || die_test "no Debian $RESSD_KERNEL kernel with headers (run make deps)"
	kdir=/usr/src/linux-headers-$kver
	kimage=/boot/vmlinuz-$kver
	barch=()
	tool=$htool
	qemu=(qemu-system-x86_64 -machine accel=tcg)
	console=ttyS0
else
	# (lsinitramfs, here)
	ressd_apt_install initramfs-tools || die_test "no initramfs-tools"
	guest=$(ressd_arm64_prepare) || die_test "the arm64 guest: could not install its packages or build it"
	kdir=$(ressd_cross_headers arm64 arm64) || die_test "no arm64 headers"
	kver=$(cat "$guest/kver")
	[ "$kver" = "${kdir##*/linux-headers-}" ] || die_test "the arm64 guest's kernel $kver is not the headers' $kdir"
	kimage=$guest/vmlinuz
	barch=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	qemu=("${RESSD_ARM64_QEMU[@]}")
	console=$RESSD_ARM64_CONSOLE
	# ressdsetup for arm64, static, built in a copy of the tree's sources
	mkdir -p "$out/src"
	tar -C "$RESSD_TOP" --exclude=./.out --exclude=./.git --exclude='*.o' --exclude='*.d' \
		--exclude='*.ko' -cf - . | tar -C "$out/src" -xf - &&
		make -C "$out/src/tools/ressdsetup" clean >/dev/null 2>&1 &&
		make -C "$out/src/tools/ressdsetup" CC=aarch64-linux-gnu-gcc LDFLAGS=-static ressdsetup \
			>"$out/tools-arm64.log" 2>&1 ||
		die_test "build: tools/ressdsetup for arm64 (see $out/tools-arm64.log)"
	tool=$out/src/tools/ressdsetup/ressdsetup
fi
ressd_build_modules "$kdir" "$out/build" "$out/build.log" "${barch[@]}" ||
	die_test "build: the module against $kver (see $out/build.log)"

# The initramfs: mkinitramfs with a configuration directory of our own,
# the installed hooks plus ours (as "make install" puts them, ressdsetup
# where it was built).
mkconf() {	# <dir> <with ressd?>
	mkdir -p "$1/hooks" "$1/scripts/local-top" "$1/conf.d"
	printf 'MODULES=list\nBUSYBOX=y\nCOMPRESS=gzip\nCOMPRESSLEVEL=1\nRESUME=none\n' >"$1/initramfs.conf"
	printf 'virtio_pci\nvirtio_blk\next4\n' >"$1/modules"
	if [ "$2" = 1 ]; then
		sed "s|@SBINDIR@|${tool%/*}|g" \
			"$RESSD_TOP/tools/ressdsetup/initramfs/hook.in" >"$1/hooks/ressd"
		sed "s|@SBINDIR@|${tool%/*}|g" \
			"$RESSD_TOP/tools/ressdsetup/initramfs/local-top.in" >"$1/scripts/local-top/ressd"
		chmod +x "$1/hooks/ressd" "$1/scripts/local-top/ressd"
	fi
}
printf '# name device options\nroot /dev/vda initramfs\n' >"$out/ressdtab"
mkconf "$out/conf" 1
mkconf "$out/conf-plain" 0
# dracut: a copy of its modules with ours added (as make install puts it)
dracut_base=
if [ $arch = amd64 ]; then
	ressd_apt_install dracut-core >/dev/null 2>&1 && command -v dracut >/dev/null &&
		dracut_base=/usr/lib/dracut
else
	[ -x "$guest/root/usr/bin/dracut" ] && dracut_base=$guest/root/usr/lib/dracut
fi
if [ -n "$dracut_base" ]; then
	cp -a "$dracut_base" "$out/dracut-base"
	m=$out/dracut-base/modules.d/90ressd
	mkdir -p "$m" "$out/dracut-conf.d"
	sed "s|@SBINDIR@|${tool%/*}|g" \
		"$RESSD_TOP/tools/ressdsetup/dracut/module-setup.sh.in" >"$m/module-setup.sh"
	cp "$RESSD_TOP/tools/ressdsetup/dracut/ressd-open.sh" "$m/"
	chmod +x "$m"/*.sh
fi

# mkinit <command> <log name> <args...>: one image, made here or (arm64) by
# tests/boot/arm64-mkinitrd.sh in the arm64 guest (its commands are kept
# in $out/mkinitrd.cmds, each status in <log name>.rc)
mkinit() {
	local what=$1 log=$2 rc
	shift 2
	if [ $arch = amd64 ]; then
		"$what" "$@" >"$out/$log.log" 2>&1
		rc=$?
		echo $rc >"$out/$log.rc"
		return $rc
	fi
	printf '%q ' "$log" "$what" "$@" >>"$out/mkinitrd.cmds"
	echo >>"$out/mkinitrd.cmds"
}
# The dracut images: without systemd in the initramfs (dracut's own init
# runs the initqueue) and, on amd64, with it (the initqueue is a service
# that runs only when a module asks for it, as ours does); the arm64
# guest's root has no systemd.
dracut_sd=
[ $arch = amd64 ] && [ -n "$dracut_base" ] &&
	{ [ -x /lib/systemd/systemd ] || ressd_apt_install systemd >/dev/null 2>&1; } && dracut_sd=1
dracut_mods="base rootfs-block kernel-modules udev-rules dm ressd"
mkdracut() {	# <log name> <dracut modules> <image>
	mkinit env "$1" dracutbasedir="$out/dracut-base" RESSDTAB="$out/ressdtab" \
		RESSD_MODULE="$out/build/dm_ressd.ko" dracut --force --no-hostonly --no-hostonly-cmdline \
		--conf /dev/null --confdir "$out/dracut-conf.d" --kver "$kver" --modules "$2" \
		--drivers "virtio_pci virtio_blk ext4" "$3"
}
mkinit env mkinitramfs RESSDTAB="$out/ressdtab" RESSD_MODULE="$out/build/dm_ressd.ko" \
	mkinitramfs -d "$out/conf" -o "$out/initrd.img" "$kver"
mkinit mkinitramfs mkinitramfs-plain -d "$out/conf-plain" -o "$out/initrd-plain.img" "$kver"
[ -n "$dracut_base" ] && mkdracut dracut "$dracut_mods" "$out/initrd-dracut.img"
[ -n "$dracut_sd" ] && mkdracut dracut-systemd "systemd systemd-initrd dracut-systemd $dracut_mods" \
	"$out/initrd-dracut-systemd.img"
if [ $arch = arm64 ]; then
	printf '#!/bin/bash\nexec bash %q %q\n' "$RESSD_TOP/tests/boot/arm64-mkinitrd.sh" "$out" >"$out/mkinitrd.sh"
	chmod +x "$out/mkinitrd.sh"
	start=$(date +%s)
	RESSD_ARM64_KERNEL= ressd_boot_arm64 "$guest" "$out" "$out/mkinitrd-console.log" "$out/mkinitrd.sh"
	rc=$?
	ressd_log "the arm64 guest made the images in $(($(date +%s) - start)) s (exit $rc)"
	if bad=$(ressd_kernel_log_bad "$out/mkinitrd-console.log"); then
		ressd_fail "$layer" "the arm64 guest that made the images: kernel log: $bad"
	fi
	if [ $rc != 0 ] || [ ! -e "$out/mkinitramfs.rc" ] || [ ! -e "$out/mkinitramfs-plain.rc" ]; then
		tail -n 15 "$out/mkinitrd-console.log" | sed 's/^/    /'
		die_test "the arm64 guest that made the images: exit $rc, not every image made (see $out/mkinitrd-console.log)"
	fi
fi
[ "$(cat "$out/mkinitramfs.rc" 2>/dev/null)" = 0 ] ||
	die_test "mkinitramfs with the hook (see $out/mkinitramfs.log)"
[ "$(cat "$out/mkinitramfs-plain.rc" 2>/dev/null)" = 0 ] ||
	die_test "mkinitramfs without the hook (see $out/mkinitramfs-plain.log)"
lsinitramfs "$out/initrd.img" >"$out/initrd.list"
for f in sbin/ressdsetup etc/ressdtab scripts/local-top/ressd 'dm_ressd\.ko'; do
	grep -q "$f" "$out/initrd.list" || die_test "the initramfs has no $f"
done
ressd_pass "$layer" "mkinitramfs: the hook put ressdsetup, the tab, the boot script and dm_ressd in the initramfs"

# dracut_check <log name> <what> <variable> <file that must be in the
# image>...: sets <variable> to the image when it was made with them all
dracut_check() {
	local log=$1 what=$2 var=$3 img=$out/initrd-$1.img ok=1 f
	shift 3
	if [ "$(cat "$out/$log.rc" 2>/dev/null)" != 0 ]; then
		ressd_fail "$layer" "$what: the image could not be made (see $out/$log.log)"
		return
	fi
	lsinitramfs "$img" >"$out/initrd-$log.list" 2>&1
	for f in sbin/ressdsetup etc/ressdtab ressd-open.sh 'dm_ressd\.ko' "$@"; do
		grep -q "$f" "$out/initrd-$log.list" || { ok=0; ressd_fail "$layer" "$what: the image has no $f"; }
	done
	[ $ok = 1 ] || return
	printf -v "$var" %s "$img"
	ressd_pass "$layer" "$what: the module put ressdsetup, the tab, the initqueue hook and dm_ressd in the image"
}
dracut_img= dracut_sd_img=
if [ -z "$dracut_base" ] && [ $arch = amd64 ]; then
	ressd_fail "$layer" "dracut: dracut-core could not be installed"
elif [ -z "$dracut_base" ]; then
	ressd_fail "$layer" "dracut: the arm64 guest's root has no dracut (RESSD_ARM64_PACKAGES)"
else
	dracut_check dracut dracut dracut_img
fi
if [ $arch = amd64 ] && [ -n "$dracut_base" ] && [ -z "$dracut_sd" ]; then
	ressd_fail "$layer" "dracut with systemd: systemd could not be installed"
elif [ -n "$dracut_sd" ]; then
	dracut_check dracut-systemd "dracut with systemd" dracut_sd_img \
		'initrd.target.wants/dracut-initqueue.service'
fi

# The root: busybox, ressdsetup with its libraries, the tab, our init.
# (arm64: the guest's static busybox, a static ressdsetup; the applets are
# those of the host's busybox, the same Debian version.)
root=$out/rootfs
mkdir -p "$root"/{bin,sbin,etc,dev,proc,sys,run,tmp,data}
if [ $arch = amd64 ]; then
	cp /bin/busybox "$root/bin/busybox"
	for l in $(ldd "$tool" | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$l")"
		cp -L "$l" "$root$l"
	done
else
	cp "$guest/root/bin/busybox" "$root/bin/busybox"
fi
for a in $(/bin/busybox --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done
cp "$tool" "$root/sbin/ressdsetup"
cp "$out/ressdtab" "$root/etc/ressdtab"
cp "$RESSD_TOP/tests/boot/root-init.sh" "$root/sbin/init"
chmod +x "$root/sbin/init"

# The device: label, ext4 in the normal area, a 64 MiB log.
truncate -s 1G "$out/disk.img"
"$htool" format "$out/disk.img" --reserved 64M --batch >"$out/format.log" 2>&1 ||
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
	timeout -k 10 "${RESSD_GUEST_TIMEOUT:-900}" "${qemu[@]}" -m 1G -smp 2 \
		-nographic -no-reboot -kernel "$kimage" -initrd "$initrd" \
		-append "root=$rootdev rw console=$console loglevel=6 panic=-1 init=/sbin/init ressd.phase=$phase" \
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
		pkill -KILL -f "^${qemu[0]} .*$out/journal.img"
		wait $qpid
		tail -n 20 "$out/$tag-write.log" | sed 's/^/    /'
		ressd_fail "$layer" "$what: the machine did not start writing (see $out/$tag-write.log)"
		return 1
	fi
	delay=$((5 + RANDOM % 11))
	sleep $delay
	pkill -KILL -f "^${qemu[0]} .*$out/journal.img"
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
	pkill -KILL -f "^${qemu[0]} .*$out/journal.img"
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
# the same through dracut: on amd64 the image with systemd in it (as
# Debian's dracut makes it), the other one too with BOOT_DRACUT=both (make
# test's time); on arm64 the one without
if [ -n "$dracut_img" ] && { [ $arch = arm64 ] || [ "${BOOT_DRACUT:-}" = both ]; }; then
	cycle dracut "$dracut_img" dracut
fi
if [ -n "$dracut_sd_img" ]; then
	cycle dracut-systemd "$dracut_sd_img" "dracut with systemd"
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

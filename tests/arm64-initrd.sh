#!/bin/busybox sh
# /init of the arm64 guest's initramfs (scripts/common.sh,
# ressd_arm64_root): loads the virtio and 9p modules (unless ressd.builtin:
# a kernel with them built in), mounts the guest's root (9p tag "root",
# read-only), the tree (tag "top", read-only, at ressd.top) and the run's
# output directory (tag "out", read-write, at ressd.out), and hands over to
# ressd.init (tests/guest-init.sh through the run's init.sh), which mounts
# /proc, /sys and /dev again as the UML guest's init does.
/bin/busybox mkdir -p /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mods=1
for a in $(cat /proc/cmdline); do
	case $a in
	ressd.top=*) top=${a#ressd.top=} ;;
	ressd.out=*) out=${a#ressd.out=} ;;
	ressd.init=*) init=${a#ressd.init=} ;;
	ressd.builtin) mods=0 ;;
	esac
done
# (ressd.builtin: a kernel with these drivers built in, the KUnit one)
while [ $mods = 1 ] && read -r m; do
	insmod "/lib/modules/$m" || echo "arm64-initrd: insmod $m failed"
done </lib/modules/order
o=trans=virtio,version=9p2000.L,msize=262144
if ! mount -t 9p -o "$o,ro" root /newroot || ! mount -t 9p -o "$o,ro" top "/newroot$top" ||
	! mount -t 9p -o "$o" out "/newroot$out"; then
	echo "arm64-initrd: cannot mount the 9p shares"
	poweroff -f
fi
umount /proc /sys /dev
exec switch_root /newroot /bin/bash "$init"

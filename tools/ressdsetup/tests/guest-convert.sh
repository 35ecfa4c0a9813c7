#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ressdsetup convert and decommission against the kernel target, in a guest
# (tests/functional conventions; tests/host/ressdsetup-convert.sh covers
# the steps, crashes and refusals on image files):
#
#   bash scripts/test-guest.sh vm tools/ressdsetup/tests/guest-convert.sh
#
# An ext4 file system full of files on disk A is converted in place; opened
# through dm-ressd (the dm-linear origin under the target), it mounts with
# every file unchanged, fsck clean; new files are written and synced;
# closed without draining (the log holds them) and opened again, it replays
# them; convert of a device that is open is refused; then decommission
# drains the log through a temporary device and puts the file system back:
# the plain disk mounts with every file, old and new, and nothing of
# device-mapper is left.
# shellcheck source=tests/lib/testlib.sh source-path=SCRIPTDIR/../../.. disable=SC1091
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A
T=$RESSD_TOP/tools/ressdsetup/ressdsetup
[ -x "$T" ] || fail "build the tool first: make -C tools/ressdsetup"
M=/run/ressd-mnt
mkdir -p "$M"

tree=$TMPDIR/tree
ressd_file_tree "$tree" 100 16 >"$TMPDIR/want"

# same_files <mount point> <list>: every file of the list, unchanged
same_files() {
	(cd "$1" && sha1sum -c --quiet "$2") || fail "files differ on $1"
}

note "ext4 on $A (whole disk), converted with a 64 MiB log"
mkfs.ext4 -q -F -d "$tree" "$A" || fail "mkfs.ext4"
"$T" convert "$A" --reserved 64M --batch || fail "convert"
[ -z "$(blkid -p -o value -s TYPE "$A" 2>/dev/null)" ] || fail "the raw disk still shows a file system"

note "open: the origin is $A through cv-origin"
"$T" open "$A" cv || fail "open"
dmsetup table cv-origin
dmsetup table cv
[ "$(dmsetup table cv | cut -d' ' -f3)" = ressd ] || fail "cv is not a ressd target"
# the UUID that 58-ressd-origin.rules keeps udev away with
dmsetup info -c -o uuid --noheadings cv-origin | grep -q '^RESSD-ORIGIN-' ||
	fail "cv-origin has no RESSD-ORIGIN- DM UUID"
e2fsck -fn /dev/mapper/cv >"$TMPDIR/fsck" 2>&1 || { cat "$TMPDIR/fsck"; fail "e2fsck of the converted device"; }
mount /dev/mapper/cv "$M" || fail "mount"
same_files "$M" "$TMPDIR/want"
rc=0
"$T" convert "$A" --reserved 64M --batch >"$TMPDIR/out" 2>&1 || rc=$?
[ "$rc" = 5 ] || { cat "$TMPDIR/out"; fail "convert of an open device: exit $rc, expected 5"; }

note "new files through the log, then close without draining"
mkdir "$M/new"
for i in $(seq 1 200); do
	head -c $((RANDOM % 8192 + 512)) /dev/urandom >"$M/new/n$i"
done
sync
(cd "$M" && find . -type f ! -path './lost+found/*' | sort | xargs sha1sum) >"$TMPDIR/all"
umount "$M" || fail "umount"
"$T" status cv | grep -E 'log use|mapped'
"$T" close cv || fail "close"
[ ! -e /dev/mapper/cv-origin ] || fail "close left cv-origin"
"$T" open "$A" cv || fail "open again"
mount /dev/mapper/cv "$M" || fail "mount again"
same_files "$M" "$TMPDIR/all"
umount "$M"
"$T" close cv || fail "close again"

note "decommission: drain, head back, grown over the disk"
"$T" decommission "$A" --batch || fail "decommission"
[ -z "$(dmsetup ls 2>/dev/null | grep -v 'No devices found')" ] || { dmsetup ls; fail "device-mapper devices left"; }
[ "$(blkid -p -o value -s TYPE "$A")" = ext4 ] || fail "no ext4 on $A after decommission"
e2fsck -fn "$A" >"$TMPDIR/fsck" 2>&1 || { cat "$TMPDIR/fsck"; fail "e2fsck after decommission"; }
mount "$A" "$M" || fail "mount the plain disk"
same_files "$M" "$TMPDIR/all"
size=$(df -B1 --output=size "$M" | tail -n 1)
umount "$M"
[ "$size" -gt $((900 << 20)) ] || fail "the file system was not grown over the disk ($size bytes)"
echo "convert passed: $(wc -l <"$TMPDIR/all") files intact through convert, the log and decommission"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ressdsetup convert and decommission (tools/ressdsetup/convert.c) on image
# files, on the host, without device-mapper:
#
#  - an ext4 file system full of files is converted: the raw image no
#    longer shows a file system, its label and table describe the converted
#    layout, and the mapped device's view (the head copy, then the rest in
#    place: what the dm-linear origin under the target shows) is a clean
#    file system holding every file unchanged;
#  - decommission puts it back: a clean ext4 over the whole image, every
#    file unchanged;
#  - stopped after each step (RESSD_CONVERT_STOP, as a crash there would)
#    and run again, each ends the same; a first 1 MiB torn in the middle of
#    the last step of either is finished by a rerun; SIGKILL at random
#    moments of convert, then a rerun;
#  - refusals: no file system, a formatted (not converted) device, a
#    decommission interrupted and then convert.
#
# Prints "ok:" lines; exits non-zero at the first failure.
set -uo pipefail
# shellcheck source=scripts/common.sh source-path=SCRIPTDIR/../.. disable=SC1091
. "$(dirname "$0")/../../scripts/common.sh"
dir=$RESSD_TOP/tools/ressdsetup
tool=$dir/ressdsetup
# shellcheck source=tests/host/lib.sh disable=SC1091
. "$RESSD_TOP/tests/host/lib.sh"

ressd_apt_install gcc make e2fsprogs ||
	fail "could not install the packages this test needs"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/convert-test.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
make -C "$dir" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "make -C tools/ressdsetup"; }

ressd_file_tree "$tmp/tree" 150 20 >"$tmp/want"

fresh() {	# <image>: 256 MiB, ext4 made from the tree
	rm -f "$1"
	truncate -s 256M "$1"
	mkfs.ext4 -q -F -d "$tmp/tree" "$1" || fail "mkfs.ext4"
}
# files_of <ext image> <what>: e2fsck clean and every file as in the tree
files_of() {
	rm -rf "$tmp/out"
	mkdir "$tmp/out"
	e2fsck -fn "$1" >"$tmp/fsck.log" 2>&1 || { cat "$tmp/fsck.log"; fail "$2: e2fsck -fn found problems"; }
	debugfs -R "rdump / $tmp/out" "$1" >/dev/null 2>&1 || fail "$2: debugfs rdump"
	(cd "$tmp/out" && find . -type f ! -path './lost+found/*' | sort | xargs sha1sum) >"$tmp/got"
	diff -q "$tmp/want" "$tmp/got" >/dev/null || { diff "$tmp/want" "$tmp/got" | head; fail "$2: files differ"; }
}
# view_of <converted image>: the mapped device's view, as the dm-linear
# origin maps it (from the label's table), into $tmp/view.img
view_of() {
	local h n
	"$tool" table "$1" >"$tmp/table" || fail "table of $1"
	h=$(sed -n 's/^#   0 2048 linear .* \([0-9]*\)$/\1/p' "$tmp/table")
	n=$(sed -n 's/^#   2048 \([0-9]*\) linear .* 2048$/\1/p' "$tmp/table")
	[ -n "$h" ] && [ -n "$n" ] || { cat "$tmp/table"; fail "table of $1: no origin table"; }
	rm -f "$tmp/view.img"
	dd if="$1" of="$tmp/view.img" bs=512 skip="$h" count=2048 status=none &&
		dd if="$1" of="$tmp/view.img" bs=512 skip=2048 seek=2048 count="$n" conv=notrunc status=none ||
		fail "assembling the view of $1"
}
converted() {	# <image> <what>
	[ -z "$(blkid -p -o value -s TYPE "$1" 2>/dev/null)" ] || fail "$2: the raw image still shows a file system"
	"$tool" check "$1" >"$tmp/check" 2>&1 || { cat "$tmp/check"; fail "$2: check"; }
	view_of "$1"
	files_of "$tmp/view.img" "$2: the mapped view"
}
plain() {	# <image> <what>
	[ "$(blkid -p -o value -s TYPE "$1")" = ext4 ] || fail "$2: no ext4 on the image"
	[ "$(stat -c %s "$1")" = $((256 << 20)) ] || fail "$2: the image changed size"
	files_of "$1" "$2"
	# grown back over the whole image
	local bc bs
	bc=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block count: *//p')
	bs=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p')
	[ $((bc * bs)) = $((256 << 20)) ] || fail "$2: the file system is $((bc * bs)) bytes, not the whole image"
}
img=$tmp/p.img

# ---- convert, decommission ----
fresh "$img"
"$tool" convert "$img" --reserved 32M --batch >"$tmp/out.log" 2>&1 || { cat "$tmp/out.log"; fail "convert"; }
grep -q "^Converted $img" "$tmp/out.log" || fail "convert printed no summary"
converted "$img" "convert"
"$tool" convert "$img" --reserved 32M --batch >"$tmp/out.log" 2>&1 && grep -q "converted already" "$tmp/out.log" ||
	{ cat "$tmp/out.log"; fail "convert of a converted device"; }
ok "convert: the raw image shows no file system; the mapped view is clean with every file; a rerun says it is done"
"$tool" decommission "$img" --batch >"$tmp/out.log" 2>&1 || { cat "$tmp/out.log"; fail "decommission"; }
plain "$img" "decommission"
ok "decommission: a clean ext4 over the whole image again, every file"

# ---- stopped after each step, then run again ----
for step in resize copy intent label; do
	fresh "$img"
	rc=0
	RESSD_CONVERT_STOP=$step "$tool" convert "$img" --reserved 32M --batch >"$tmp/out.log" 2>&1 || rc=$?
	[ $rc = 9 ] || { cat "$tmp/out.log"; fail "convert stopped after $step: exit $rc"; }
	"$tool" convert "$img" --reserved 32M --batch >"$tmp/out.log" 2>&1 || { cat "$tmp/out.log"; fail "convert after a stop after $step"; }
	converted "$img" "convert stopped after $step, run again"
done
ok "convert stopped after each step (resize, copy, intent, label) and run again: converted, every file"
for step in restore unintent; do
	fresh "$img"
	"$tool" convert "$img" --reserved 32M --batch >/dev/null 2>&1 || fail "convert"
	rc=0
	RESSD_CONVERT_STOP=$step "$tool" decommission "$img" --batch >"$tmp/out.log" 2>&1 || rc=$?
	[ $rc = 9 ] || { cat "$tmp/out.log"; fail "decommission stopped after $step: exit $rc"; }
	"$tool" decommission "$img" --batch >"$tmp/out.log" 2>&1 || { cat "$tmp/out.log"; fail "decommission after a stop after $step"; }
	plain "$img" "decommission stopped after $step, run again"
done
ok "decommission stopped after each step (restore, unintent) and run again: plain, every file"

# ---- a torn first 1 MiB ----
# convert's last step torn: only the first 2 KiB of the label area written
# (the layout is the same for the same image and size)
fresh "$img"
"$tool" convert "$img" --reserved 32M --batch >/dev/null 2>&1 || fail "convert"
dd if="$img" of="$tmp/label-area" bs=1M count=1 status=none
for then in convert decommission; do
	fresh "$img"
	RESSD_CONVERT_STOP=intent "$tool" convert "$img" --reserved 32M --batch >/dev/null 2>&1
	dd if="$tmp/label-area" of="$img" bs=2K count=1 conv=notrunc status=none
	"$tool" $then "$img" --reserved 32M --batch >"$tmp/out.log" 2>&1 ||
		"$tool" $then "$img" --batch >"$tmp/out.log" 2>&1 ||
		{ cat "$tmp/out.log"; fail "$then after a torn convert"; }
	if [ $then = convert ]; then
		converted "$img" "convert after a torn label step"
	else
		plain "$img" "decommission after a torn convert"
	fi
done
# decommission's copy back torn: half of the head written over the label
fresh "$img"
"$tool" convert "$img" --reserved 32M --batch >/dev/null 2>&1 || fail "convert"
dd if="$img" of="$tmp/label-area" bs=1M count=1 status=none
RESSD_CONVERT_STOP=restore "$tool" decommission "$img" --batch >/dev/null 2>&1
dd if="$img" of="$tmp/head" bs=1M count=1 status=none
dd if="$tmp/label-area" of="$img" bs=1M count=1 conv=notrunc status=none
dd if="$tmp/head" of="$img" bs=512K count=1 conv=notrunc status=none
rc=0
"$tool" convert "$img" --reserved 32M --batch >"$tmp/out.log" 2>&1 || rc=$?
{ [ $rc = 1 ] && grep -q "decommission was interrupted" "$tmp/out.log"; } ||
	{ cat "$tmp/out.log"; fail "convert after an interrupted decommission: exit $rc"; }
"$tool" decommission "$img" --batch >"$tmp/out.log" 2>&1 || { cat "$tmp/out.log"; fail "decommission after a torn restore"; }
plain "$img" "decommission after a torn restore"
ok "a torn first 1 MiB: convert or decommission run again finish; convert refuses while a decommission is unfinished"

# ---- SIGKILL at random moments of convert ----
for k in 1 2 3 4 5; do
	fresh "$img"
	"$tool" convert "$img" --reserved 32M --batch >/dev/null 2>&1 &
	pid=$!
	sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
	pkill -KILL -P $pid 2>/dev/null	# e2fsck or resize2fs, when running
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
	"$tool" convert "$img" --reserved 32M --batch >"$tmp/out.log" 2>&1 ||
		{ cat "$tmp/out.log"; fail "convert after a kill ($k)"; }
	converted "$img" "convert killed ($k), run again"
done
ok "convert killed (SIGKILL) at 5 random moments, run again: converted, every file"

# ---- refusals ----
truncate -s 64M "$tmp/empty.img"
rc=0
"$tool" convert "$tmp/empty.img" --reserved 8M --batch >"$tmp/out.log" 2>&1 || rc=$?
{ [ $rc = 1 ] && grep -q "holds no ext2/ext3/ext4 file system" "$tmp/out.log"; } ||
	{ cat "$tmp/out.log"; fail "convert of an empty image: exit $rc"; }
"$tool" format "$tmp/empty.img" --reserved 8M --batch >/dev/null 2>&1 || fail "format"
rc=0
"$tool" convert "$tmp/empty.img" --reserved 8M --batch >"$tmp/out.log" 2>&1 || rc=$?
{ [ $rc = 1 ] && grep -q "made by 'ressdsetup format'" "$tmp/out.log"; } ||
	{ cat "$tmp/out.log"; fail "convert of a formatted image: exit $rc"; }
rc=0
"$tool" decommission "$tmp/empty.img" --batch >"$tmp/out.log" 2>&1 || rc=$?
{ [ $rc = 1 ] && grep -q "not 'convert'" "$tmp/out.log"; } ||
	{ cat "$tmp/out.log"; fail "decommission of a formatted image: exit $rc"; }
ok "refused: no file system, a formatted device (convert and decommission)"

echo "$passed checks passed"

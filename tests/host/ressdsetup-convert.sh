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
#    the last step of either (the superblock overwritten or kept) is
#    finished by a rerun; the raw file system written to or grown between
#    an interrupted convert and the rerun keeps what was written; SIGKILL
#    at random moments of convert, then a rerun (--repair); resize2fs
#    killed at chosen writes of convert's shrink and decommission's grow,
#    then a rerun: refused with --batch alone, finished with --repair;
#  - refusals: no file system, a formatted (not converted) device, a
#    decommission interrupted and then convert, a damaged label over a used
#    log, a partition that changed size, a damaged file system (without
#    the error flag, and again with the flag e2fsck -p set), another file
#    system over the label of a used log (convert), a log opened while
#    decommission asked for confirmation.
#
# Prints "ok:" lines; exits non-zero at the first failure.
set -uo pipefail
# shellcheck source=scripts/common.sh source-path=SCRIPTDIR/../.. disable=SC1091
. "$(dirname "$0")/../../scripts/common.sh"
dir=$RESSD_TOP/tools/ressdsetup
tool=$dir/ressdsetup
# shellcheck source=tests/lib/host.sh disable=SC1091
. "$RESSD_TOP/tests/lib/host.sh"

ressd_apt_install gcc make e2fsprogs strace ||
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
	diff -q "${WANT:-$tmp/want}" "$tmp/got" >/dev/null ||
		{ diff "${WANT:-$tmp/want}" "$tmp/got" | head; fail "$2: files differ"; }
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
# finish_with <convert|decommission> <what>: run the command on $img (after
# an interruption) and check the result: converted, or plain.
finish_with() {
	if [ "$1" = convert ]; then
		"$tool" convert "$img" --reserved 32M --batch ${REPAIR:+--repair} >"$tmp/out.log" 2>&1 ||
			{ cat "$tmp/out.log"; fail "convert $2"; }
		converted "$img" "convert $2"
	else
		"$tool" decommission "$img" --batch ${REPAIR:+--repair} >"$tmp/out.log" 2>&1 ||
			{ cat "$tmp/out.log"; fail "decommission $2"; }
		plain "$img" "decommission $2"
	fi
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
# convert's last step torn: only the first 2 KiB of its label area written
# (that area: the same stopped conversion finished on a copy)
fresh "$img"
RESSD_CONVERT_STOP=intent "$tool" convert "$img" --reserved 32M --batch >/dev/null 2>&1
cp "$img" "$tmp/stopped0.img"
cp "$img" "$tmp/q.img"
"$tool" convert "$tmp/q.img" --reserved 32M --batch >/dev/null 2>&1 || fail "convert of the copy"
dd if="$tmp/q.img" of="$tmp/label-area" bs=1M count=1 status=none
for then in convert decommission; do
	cp "$tmp/stopped0.img" "$img"
	dd if="$tmp/label-area" of="$img" bs=2K count=1 conv=notrunc status=none
	finish_with $then "after a torn label write"
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

# the label's write torn with the file system's superblock (sectors 2-3)
# still there: the rest of the label area over the file system
fresh "$img"
RESSD_CONVERT_STOP=intent "$tool" convert "$img" --reserved 32M --batch >/dev/null 2>&1
cp "$img" "$tmp/q.img"
"$tool" convert "$tmp/q.img" --reserved 32M --batch >/dev/null 2>&1 || fail "convert of the copy"
dd if="$tmp/q.img" of="$tmp/label-area" bs=1M count=1 status=none
cp "$img" "$tmp/stopped.img"
for then in convert decommission; do
	cp "$tmp/stopped.img" "$img"
	dd if="$tmp/label-area" of="$img" bs=512 count=2 conv=notrunc status=none
	dd if="$tmp/label-area" of="$img" bs=512 skip=4 seek=4 count=2044 conv=notrunc status=none
	[ "$(blkid -p -o value -s TYPE "$img")" = ext4 ] || fail "the torn state lost the superblock"
	finish_with $then "after a torn label write keeping the superblock"
done
ok "a torn label write that kept the superblock: the head copy is the file system's (convert finishes, decommission puts it back)"

# the raw file system used between an interrupted convert and its rerun:
# written to (its first 1 MiB changed: copied again), or grown (the intent
# is stale: converted again)
echo "written after the stop" >"$tmp/newfile"
cp "$tmp/want" "$tmp/want2"
(cd "$tmp" && sha1sum newfile | sed 's| newfile$| ./newfile|') >>"$tmp/want2"
sort -k2 -o "$tmp/want2" "$tmp/want2"
for how in written grown; do
	for then in convert decommission; do
		cp "$tmp/stopped.img" "$img"
		[ $how = grown ] && { resize2fs "$img" >/dev/null 2>&1 || fail "resize2fs grow"; }
		debugfs -w -R "write $tmp/newfile newfile" "$img" >/dev/null 2>&1 || fail "debugfs write"
		WANT=$tmp/want2 finish_with $then "after the raw file system was $how"
	done
done
ok "the raw file system written to or grown after an interrupted convert: either command keeps what was written"

# a converted device whose label is damaged while its log holds data:
# decommission must not put the head back over the log's newer blocks
fresh "$img"
"$tool" convert "$img" --reserved 32M --batch >/dev/null 2>&1 || fail "convert"
lo=$("$tool" table "$img" | awk '$3 == "ressd" { print $7 }')
printf 'x' | dd of="$img" bs=1 seek=$((lo * 512 + 100)) conv=notrunc status=none
printf 'x' | dd of="$img" bs=1 seek=100 conv=notrunc status=none
rc=0
"$tool" decommission "$img" --batch >"$tmp/out.log" 2>&1 || rc=$?
{ [ $rc = 4 ] && grep -q "label is damaged and its log holds data" "$tmp/out.log"; } ||
	{ cat "$tmp/out.log"; fail "decommission with a damaged label and a used log: exit $rc"; }
# as it says, convert writes the label again from the intent block
"$tool" convert "$img" --reserved 32M --batch >"$tmp/out.log" 2>&1 ||
	{ cat "$tmp/out.log"; fail "convert of a damaged label over a used log"; }
grep -q "its label was damaged: writing it again" "$tmp/out.log" || { cat "$tmp/out.log"; fail "convert's words"; }
view_of "$img"
files_of "$tmp/view.img" "the label written again: the mapped view"
# but not another volume's header over a device that was converted and
# used: a swap signature beside a damaged label whose magic is intact (so
# only the signature probe tells; mkswap itself also zeroes the magic)
printf 'x' | dd of="$img" bs=1 seek=100 conv=notrunc status=none
printf 'SWAPSPACE2' | dd of="$img" bs=1 seek=4086 conv=notrunc status=none
dd if="$img" bs=1M count=1 status=none | md5sum >"$tmp/area.md5"
rc=0
"$tool" convert "$img" --reserved 32M --batch >"$tmp/out.log" 2>&1 || rc=$?
{ [ $rc = 4 ] && grep -q "holds neither the file system, its copy nor the label" "$tmp/out.log"; } ||
	{ cat "$tmp/out.log"; fail "convert over a swap header of a converted, used device: exit $rc"; }
dd if="$img" bs=1M count=1 status=none | md5sum | cmp -s - "$tmp/area.md5" ||
	fail "convert refused, but the swap header changed"
# a partition that changed size since convert
fresh "$img"
"$tool" convert "$img" --reserved 32M --batch >/dev/null 2>&1 || fail "convert"
truncate -s +64M "$img"
rc=0
"$tool" decommission "$img" --batch >"$tmp/out.log" 2>&1 || rc=$?
{ [ $rc = 4 ] && grep -q "changed size since it was converted" "$tmp/out.log"; } ||
	{ cat "$tmp/out.log"; fail "decommission of a resized partition: exit $rc"; }
ok "decommission refuses a damaged label over a used log (convert writes the label again), and a partition that changed size"

# a converted device whose log holds data, with another file system
# written over its label (a new image over the raw partition; e2fsck -b on
# it writes a superblock there too): convert must not take it for an
# interrupted conversion whose file system changed, copy its first 1 MiB
# over the head copy and leave the log's blocks to land on it
fresh "$img"
"$tool" convert "$img" --reserved 32M --batch >/dev/null 2>&1 || fail "convert"
lo=$("$tool" table "$img" | awk '$3 == "ressd" { print $7 }')
h=$("$tool" table "$img" | sed -n 's/^#   0 2048 linear .* \([0-9]*\)$/\1/p')
[ -n "$lo" ] && [ -n "$h" ] || fail "the converted layout"
printf 'x' | dd of="$img" bs=1 seek=$((lo * 512 + 100)) conv=notrunc status=none	# the log was opened
rm -f "$tmp/other.img"
truncate -s 64M "$tmp/other.img"
mkfs.ext4 -q -F "$tmp/other.img" || fail "mkfs.ext4 of the other file system"
dd if="$tmp/other.img" of="$img" bs=1M count=1 conv=notrunc status=none
head_before=$(dd if="$img" bs=512 skip="$h" count=2048 status=none | md5sum)
rc=0
"$tool" convert "$img" --reserved 32M --batch >"$tmp/out.log" 2>&1 || rc=$?
{ [ $rc = 4 ] && grep -q "holds a file system other than the one converted" "$tmp/out.log"; } ||
	{ cat "$tmp/out.log"; fail "convert over a used log with another file system over its label: exit $rc"; }
[ "$(dd if="$img" bs=512 skip="$h" count=2048 status=none | md5sum)" = "$head_before" ] ||
	fail "convert refused, but the head copy changed"
# the log opened while decommission waits for its confirmation (a
# 'ressdsetup open' or a boot unit meanwhile): it may hold data the
# decommission would not drain
fresh "$img"
"$tool" convert "$img" --reserved 32M --batch >/dev/null 2>&1 || fail "convert"
lo=$("$tool" table "$img" | awk '$3 == "ressd" { print $7 }')
rm -f "$tmp/answer"
mkfifo "$tmp/answer"
"$tool" decommission "$img" <"$tmp/answer" >"$tmp/out.log" 2>&1 &
pid=$!
exec 9>"$tmp/answer"
for _ in $(seq 100); do grep -q "Are you sure" "$tmp/out.log" && break; sleep 0.1; done
grep -q "Are you sure" "$tmp/out.log" || { kill $pid; cat "$tmp/out.log"; fail "decommission did not ask"; }
printf 'x' | dd of="$img" bs=1 seek=$((lo * 512 + 100)) conv=notrunc status=none	# opened now
echo YES >&9
exec 9>&-
rc=0
wait $pid || rc=$?
{ [ $rc = 4 ] && grep -q "its log changed since it was found empty" "$tmp/out.log"; } ||
	{ cat "$tmp/out.log"; fail "decommission after the log was opened during its question: exit $rc"; }
[ -z "$(blkid -p -o value -s TYPE "$img" 2>/dev/null)" ] || fail "decommission refused, but wrote the head back"
ok "convert refuses another file system over the label of a used log; decommission refuses a log opened while it asked"

# ---- SIGKILL at random moments of convert ----
for k in 1 2 3 4 5; do
	fresh "$img"
	# In a process group of its own, killed whole: killing the children
	# (pkill -P) and then the tool let a resize2fs the tool started in
	# between run on, orphaned, while the rerun checked and resized the
	# same file system ("Superblock checksum does not match", once in four
	# runs of the host layer).
	setsid "$tool" convert "$img" --reserved 32M --batch >/dev/null 2>&1 &
	pid=$!
	sleep "0.0$((RANDOM % 10))"	# (a convert of this image takes about 50 ms)
	kill -KILL -- -$pid 2>/dev/null	# the tool, e2fsck or resize2fs
	wait $pid 2>/dev/null
	while pgrep -g $pid >/dev/null; do sleep 0.01; done
	# (--repair: a kill inside resize2fs leaves work for e2fsck -f -y)
	"$tool" convert "$img" --reserved 32M --batch --repair >"$tmp/out.log" 2>&1 ||
		{ cat "$tmp/out.log"; fail "convert after a kill ($k)"; }
	converted "$img" "convert killed ($k), run again"
done
ok "convert killed (SIGKILL) at 5 random moments, run again: converted, every file"

# ---- SIGKILL inside resize2fs, at its n-th write ----
# An interrupted resize2fs leaves the file system marked as having errors
# and, from its first block moves on, with problems e2fsck -p will not
# repair ("Resize inode not valid": resize2fs asks for e2fsck -fy after an
# aborted resize).  The rerun with --batch refuses and names --repair; with
# --repair it runs e2fsck -f -y and goes on.  A resize2fs of strace earlier
# in PATH kills the real one at its n-th pwrite64 (of about 290 for the
# shrink and as many for the grow: e2fsprogs 1.47).  A damaged file system
# without the error flag is refused; the rerun finds the flag e2fsck -p set
# and refuses without --repair.
real=$(command -v resize2fs)
[ -x "$real" ] || fail "no resize2fs in PATH"
mkdir "$tmp/wrap"
cat >"$tmp/wrap/resize2fs" <<EOS
#!/bin/sh
exec strace -f -o /dev/null -e trace=pwrite64 -e inject=pwrite64:signal=KILL:when=\$KILL_AT $real "\$@"
EOS
chmod +x "$tmp/wrap/resize2fs"
# killed_in_resize <convert|decommission> <n> [args]: the command with
# resize2fs killed at its n-th write; it must fail there, and the rerun
# with --batch must refuse and name --repair.
killed_in_resize() {
	local rc=0 cmd=$1 n=$2
	shift 2
	KILL_AT=$n PATH=$tmp/wrap:$PATH "$tool" "$cmd" "$img" "$@" --batch >"$tmp/out.log" 2>&1 || rc=$?
	{ [ $rc = 4 ] && grep -q "resize2fs failed: exit 137" "$tmp/out.log"; } ||
		{ cat "$tmp/out.log"; fail "$cmd with resize2fs killed at write $n: exit $rc"; }
	rc=0
	"$tool" "$cmd" "$img" "$@" --batch >"$tmp/out.log" 2>&1 || rc=$?
	{ [ $rc = 4 ] && grep -q "or run the command again with --repair" "$tmp/out.log"; } ||
		{ cat "$tmp/out.log"; fail "$cmd after resize2fs was killed at write $n, --batch without --repair: exit $rc"; }
}
for n in 3 40 200; do
	fresh "$img"
	killed_in_resize convert $n --reserved 32M
	REPAIR=1 finish_with convert "after resize2fs was killed at its write $n"
	grep -q "Checking the file system (e2fsck -f -y" "$tmp/out.log" ||
		{ cat "$tmp/out.log"; fail "convert after resize2fs was killed at write $n: no e2fsck -f -y"; }
done
for n in 3 150; do
	fresh "$img"
	"$tool" convert "$img" --reserved 32M --batch >/dev/null 2>&1 || fail "convert"
	killed_in_resize decommission $n
	REPAIR=1 finish_with decommission "after resize2fs was killed at its write $n"
	grep -q "Checking the file system (e2fsck -f -y" "$tmp/out.log" ||
		{ cat "$tmp/out.log"; fail "decommission after resize2fs was killed at write $n: no e2fsck -f -y"; }
done
fresh "$img"
debugfs -w -R "clri <7>" "$img" >/dev/null 2>&1 || fail "debugfs clri"
for run in 1 2; do
	rc=0
	"$tool" convert "$img" --reserved 32M --batch >"$tmp/out.log" 2>&1 || rc=$?
	want="repair the file system (e2fsck -f $img) first"
	[ $run = 1 ] || want="or run the command again with --repair"
	{ [ $rc = 4 ] && grep -qF "$want" "$tmp/out.log"; } ||
		{ cat "$tmp/out.log"; fail "convert of a damaged file system ($run): exit $rc"; }
done
ok "resize2fs killed inside convert (3 writes) and decommission (2): --batch refuses, --repair finishes with every file; a damaged file system is refused, again without --repair"

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

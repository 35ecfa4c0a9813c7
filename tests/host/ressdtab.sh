#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# /etc/ressdtab and boot activation (tools/ressdsetup/ressdtab.c), on the
# host, without device-mapper:
#
#  - tab-check on a valid file (each entry as parsed, comments, blank lines,
#    UUID= in any case) and on invalid ones: every error with its line
#    number, exit status 1; a missing file;
#  - the generator on a sample tab: the unit names (escaped as systemd
#    does), the ordering and binding lines, noauto entries skipped, the
#    local-fs.target and dev-mapper-<name>.device links, nofail; no tab, no
#    units; and "systemd-analyze verify" on the units it wrote and on the
#    ressd@.service template (SKIP when there is no systemd-analyze);
#  - tab-open and tab-close against a stand-in dmsetup that records its
#    arguments: which entries, in which order, close --drain for
#    drain-on-stop, the tunables set after open; with a loop device (when
#    there are loop devices), a UUID= entry found by the label's UUID;
#  - udev-id on a formatted image;
#  - the option initramfs (tab-check, no ExecStop in its unit, tab-open
#    --initramfs), and make install of the initramfs-tools hook and boot
#    script and of the dracut module (tests/boot/root-initramfs.sh boots
#    through them).
#
# Prints "ok:" lines (and "SKIP:" for checks that cannot run on this host,
# which make the test fail at the end); exits non-zero at the first failure.
set -uo pipefail
# shellcheck source=scripts/common.sh source-path=SCRIPTDIR/../.. disable=SC1091  # followed with -x
. "$(dirname "$0")/../../scripts/common.sh"
top=$RESSD_TOP
dir=$top/tools/ressdsetup
tool=$dir/ressdsetup
# shellcheck source=tests/lib/host.sh disable=SC1091
. "$RESSD_TOP/tests/lib/host.sh"

ressd_apt_install gcc make util-linux man-db groff-base ||
	fail "could not install the packages this test needs"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ressdtab-test.XXXXXX") || fail "mktemp"
loops=()
cleanup() {
	local l
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

make -C "$dir" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "make -C tools/ressdsetup"; }
[ -x "$tool" ] || fail "the build made no ressdsetup"
for c in tab-check tab-open tab-close generator udev-id; do
	"$tool" $c --help >"$tmp/help" 2>&1 || fail "ressdsetup $c --help failed"
	grep -q "^usage: ressdsetup $c" "$tmp/help" || fail "ressdsetup $c --help: no usage line"
	"$tool" --help | grep -q "^  $c" || fail "ressdsetup --help does not list $c"
done
man --warnings -l "$dir/ressdsetup.8" 2>"$tmp/man.err" >"$tmp/man.txt" || fail "man -l ressdsetup.8"
[ ! -s "$tmp/man.err" ] || { cat "$tmp/man.err"; fail "man page warnings"; }
for c in tab-check tab-open tab-close generator udev-id; do
	grep -q "^ *$c" "$tmp/man.txt" || fail "the man page does not describe $c"
done
grep -q "RESSDTAB" "$tmp/man.txt" || fail "the man page does not describe /etc/ressdtab"
ok "--help of every tab command; the man page describes them and the file"

# ---- tab-check ----
tab=$tmp/ressdtab
cat >"$tab" <<'EOF'
# dm-ressd devices opened at boot
fast     /dev/disk/by-id/ata-X   drain-on-stop,small_write_max=16   # a comment
	# an indented comment

slow     UUID=6F0B2C1E-8d3a-4f57-9b1e-2a3c4d5e6f70  noauto,readonly
sep-log  /dev/sdc  log-device=/dev/nvme0n1p2,nofail,mover-batch=2048,high_watermark=80,low_watermark=60
plain    /dev/sdd
EOF
"$tool" tab-check --tab "$tab" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "tab-check of a valid file"; }
cat >"$tmp/want" <<EOF
$tab:2: fast /dev/disk/by-id/ata-X drain-on-stop,small_write_max=16
$tab:5: slow UUID=6f0b2c1e-8d3a-4f57-9b1e-2a3c4d5e6f70 noauto,readonly
$tab:6: sep-log /dev/sdc nofail,log-device=/dev/nvme0n1p2,high_watermark=80,low_watermark=60,mover_batch=2048
$tab:7: plain /dev/sdd defaults
4 entries (3 opened at boot), 0 errors
EOF
diff -u "$tmp/want" "$tmp/out" || fail "tab-check of a valid file printed other lines"
ok "tab-check of a valid file: entries, comments, blank lines, UUID= and option spellings"

# One error a line, each with its line number (line 2 is valid).
bad=$tmp/bad
cat >"$bad" <<'EOF'
onlyname
a /dev/x
a /dev/y
b /dev/x
c LABEL=foo
d UUID=1234
e relative
f /dev/f bogus,noauto
g /dev/g small_write_max=7
h /dev/h high_watermark=50,low_watermark=60
i/j /dev/i
k /dev/k a b
l /dev/l noauto,,nofail
m /dev/m log-device=rel
n /dev/n mover_batch=x
o /dev/o mover_batch=16,mover_batch=16
p UUID=6f0b2c1e-8d3a-4f57-9b1e-2a3c4d5e6f70
q UUID=6F0B2C1E-8D3A-4F57-9B1E-2A3C4D5E6F70
EOF
rc=0
"$tool" tab-check --tab "$bad" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] || fail "tab-check of an invalid file exited $rc, expected 1"
cat >"$tmp/want" <<EOF
ressdsetup: $bad:1: 1 field: expected <name> <device> [options]
ressdsetup: $bad:3: name 'a' is already used on line 2
ressdsetup: $bad:4: device /dev/x is already used on line 2
ressdsetup: $bad:5: 'LABEL=foo': the ressd label has only a UUID: give UUID=<uuid> or a path (for example /dev/disk/by-partlabel/...)
ressdsetup: $bad:6: 'UUID=1234': UUID= needs a UUID like 6f0b2c1e-8d3a-4f57-9b1e-2a3c4d5e6f70 (ressdsetup check shows the label's)
ressdsetup: $bad:7: device 'relative' must be an absolute path or UUID=<uuid>
ressdsetup: $bad:8: unknown option 'bogus' (known: noauto, nofail, readonly, drain-on-stop, initramfs, log-device=<path>, small_write_max=, high_watermark=, low_watermark=, mover_batch=)
ressdsetup: $bad:9: option small_write_max=7: small_write_max must be a multiple of 8 sectors below 4 MiB
ressdsetup: $bad:10: option low_watermark=60: low_watermark must be below high_watermark
ressdsetup: $bad:11: name 'i/j' is not valid (1 to 127 letters, digits and _.+:-)
ressdsetup: $bad:12: more than 3 fields: expected <name> <device> [options]
ressdsetup: $bad:13: empty option (two commas, or a comma at an end)
ressdsetup: $bad:14: option log-device=rel: must be an absolute path
ressdsetup: $bad:15: option mover_batch=x: not a number
ressdsetup: $bad:16: option mover_batch given twice
ressdsetup: $bad:18: device UUID=6f0b2c1e-8d3a-4f57-9b1e-2a3c4d5e6f70 is already used on line 17
EOF
diff -u "$tmp/want" "$tmp/err" || fail "tab-check of an invalid file: other error messages"
grep -q "^2 entries (2 opened at boot), 16 errors$" "$tmp/out" || { cat "$tmp/out"; fail "tab-check summary"; }
rc=0
"$tool" tab-check --tab "$tmp/none" >"$tmp/out" 2>&1 || rc=$?
{ [ "$rc" = 1 ] && grep -q "cannot read $tmp/none: No such file or directory" "$tmp/out"; } ||
	{ cat "$tmp/out"; fail "tab-check of a missing file: exit $rc"; }
rc=0
"$tool" tab-check --tab "$tab" extra >"$tmp/out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "tab-check with an extra argument exited $rc"
ok "tab-check of invalid files: each error with its line number, exit status 1"

# ---- the generator ----
gen=$tmp/gen
mkdir -p "$gen/normal" "$gen/early" "$gen/late"
"$tool" generator --tab "$tab" "$gen/normal" "$gen/early" "$gen/late" >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "generator"; }
(cd "$gen/normal" && find . -mindepth 1 | sort) >"$tmp/list"
cat >"$tmp/want" <<'EOF'
./dev-mapper-fast.device.requires
./dev-mapper-fast.device.requires/ressd@fast.service
./dev-mapper-plain.device.requires
./dev-mapper-plain.device.requires/ressd@plain.service
./dev-mapper-sep\x2dlog.device.requires
./dev-mapper-sep\x2dlog.device.requires/ressd@sep\x2dlog.service
./local-fs.target.requires
./local-fs.target.requires/ressd@fast.service
./local-fs.target.requires/ressd@plain.service
./local-fs.target.wants
./local-fs.target.wants/ressd@sep\x2dlog.service
./ressd@fast.service
./ressd@plain.service
./ressd@sep\x2dlog.service
EOF
diff -u "$tmp/want" "$tmp/list" || fail "generator: other files (noauto 'slow' must have none)"
[ -z "$(find "$gen/early" "$gen/late" -mindepth 1)" ] || fail "generator wrote to the early or late directory"
[ "$(readlink "$gen/normal/local-fs.target.requires/ressd@fast.service")" = "../ressd@fast.service" ] ||
	fail "generator: local-fs.target.requires link"
u=$gen/normal/ressd@fast.service
for l in "BindsTo=dev-disk-by\\x2did-ata\\x2dX.device" "After=dev-disk-by\\x2did-ata\\x2dX.device" \
	"Before=local-fs-pre.target" "DefaultDependencies=no" "Conflicts=umount.target" \
	"Before=umount.target" "Type=oneshot" "RemainAfterExit=yes" \
	"ExecStart=$tool tab-open --tab $tab fast" "ExecStop=$tool tab-close --tab $tab fast"; do
	grep -qxF "$l" "$u" || { cat "$u"; fail "ressd@fast.service has no line $l"; }
done
u="$gen/normal/ressd@sep\\x2dlog.service"
for l in "BindsTo=dev-sdc.device dev-nvme0n1p2.device" "After=dev-sdc.device dev-nvme0n1p2.device" \
	"Before=local-fs-pre.target" "ExecStart=$tool tab-open --tab $tab sep-log"; do
	grep -qxF "$l" "$u" || { cat "$u"; fail "ressd@sep\\x2dlog.service has no line $l"; }
done
ok "generator: one unit per entry without noauto, escaped names, BindsTo/After on the device units, Before=local-fs-pre.target"

# the UUID= form binds to the udev rule's link
printf 'u UUID=6f0b2c1e-8d3a-4f57-9b1e-2a3c4d5e6f70\n' >"$tmp/utab"
mkdir -p "$gen/u"
"$tool" generator --tab "$tmp/utab" "$gen/u" "$gen/early" "$gen/late" || fail "generator, UUID="
grep -qxF 'BindsTo=dev-disk-by\x2dressd\x2duuid-6f0b2c1e\x2d8d3a\x2d4f57\x2d9b1e\x2d2a3c4d5e6f70.device' \
	"$gen/u/ressd@u.service" || { cat "$gen/u/ressd@u.service"; fail "generator: UUID= device unit"; }
# no tab: nothing, and no error (systemd runs every generator at boot)
mkdir -p "$gen/none"
"$tool" generator --tab "$tmp/none" "$gen/none" "$gen/early" "$gen/late" || fail "generator without a tab failed"
[ -z "$(ls -A "$gen/none")" ] || fail "generator without a tab wrote units"
rc=0
"$tool" generator --tab ressdtab "$gen/none" "$gen/early" "$gen/late" 2>"$tmp/err" || rc=$?
{ [ "$rc" = 1 ] && grep -q "absolute path" "$tmp/err"; } || fail "generator with a relative tab path: exit $rc"
# an invalid line is reported and left out, the others are generated
mkdir -p "$gen/bad"
"$tool" generator --tab "$bad" "$gen/bad" "$gen/early" "$gen/late" 2>"$tmp/err" || fail "generator on $bad"
[ "$(cd "$gen/bad" && printf '%s ' ressd@*.service)" = "ressd@a.service ressd@p.service " ] ||
	fail "generator on $bad wrote $(ls "$gen/bad")"
grep -q "$bad:1: 1 field" "$tmp/err" || fail "generator did not report the errors"
ok "generator: UUID= binds to /dev/disk/by-ressd-uuid/<uuid>; no tab, no units; bad lines reported and left out"

sed "s|@SBINDIR@|$dir|g" "$dir/systemd/ressd@.service.in" >"$tmp/ressd@.service"
if command -v systemd-analyze >/dev/null; then
	# the man page is not installed here: --man=no
	systemd-analyze verify --man=no "$gen/normal"/ressd@*.service "$gen/u/ressd@u.service" \
		>"$tmp/verify" 2>&1 || { cat "$tmp/verify"; fail "systemd-analyze verify of the generated units"; }
	[ ! -s "$tmp/verify" ] || { cat "$tmp/verify"; fail "systemd-analyze verify: warnings"; }
	cp "$tmp/ressd@.service" "$tmp/ressd@x.service"
	systemd-analyze verify --man=no "$tmp/ressd@.service" "$tmp/ressd@x.service" >"$tmp/verify" 2>&1 ||
		{ cat "$tmp/verify"; fail "systemd-analyze verify of ressd@.service"; }
	[ ! -s "$tmp/verify" ] || { cat "$tmp/verify"; fail "systemd-analyze verify ressd@.service: warnings"; }
	ok "systemd-analyze verify accepts the generated units and the ressd@.service template"
else
	skip "systemd-analyze verify: no systemd-analyze on this host"
fi

# ---- tab-open, tab-close ----
cat >"$tmp/dmsetup" <<EOF
#!/bin/bash
{ printf '%s\n' "\$@"; echo --; } >>"$tmp/dm.log"
exit \${FAKE_DM_RC:-0}
EOF
chmod +x "$tmp/dmsetup"
export RESSDSETUP_DMSETUP=$tmp/dmsetup
: >"$tmp/dm.log"
"$tool" tab-close --tab "$tab" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "tab-close"; }
[ "$(tr '\n' ' ' <"$tmp/dm.log")" = "remove plain -- remove sep-log -- message fast 0 drain -- remove fast -- " ] ||
	fail "tab-close ran: $(tr '\n' ' ' <"$tmp/dm.log")"
: >"$tmp/dm.log"
"$tool" tab-close --tab "$tab" slow >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "tab-close slow"; }
[ "$(tr '\n' ' ' <"$tmp/dm.log")" = "remove slow -- " ] || fail "tab-close slow ran: $(tr '\n' ' ' <"$tmp/dm.log")"
rc=0
"$tool" tab-close --tab "$tab" nosuch >"$tmp/out" 2>&1 || rc=$?
{ [ "$rc" = 1 ] && grep -q "no valid entry named 'nosuch'" "$tmp/out"; } || { cat "$tmp/out"; fail "tab-close nosuch: exit $rc"; }
rc=0
FAKE_DM_RC=1 "$tool" tab-close --tab "$tab" plain >"$tmp/out" 2>&1 || rc=$?
{ [ "$rc" = 1 ] && grep -q "'dmsetup remove plain' failed" "$tmp/out"; } || { cat "$tmp/out"; fail "tab-close, dmsetup failing: exit $rc"; }
ok "tab-close: every entry without noauto in reverse order, --drain for drain-on-stop; a named noauto entry; failures"

img=$tmp/one.img
truncate -s 64M "$img"
"$tool" format "$img" --reserved 4M --batch >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "format"; }
uuid=$(sed -n 's/^Formatted .* (uuid \([0-9a-f-]*\)).*/\1/p' "$tmp/out")
[ ${#uuid} = 36 ] || { cat "$tmp/out"; fail "no uuid in the output of format"; }
[ "$("$tool" udev-id "$img")" = "RESSD_UUID=$uuid" ] || fail "udev-id $img: $("$tool" udev-id "$img")"
truncate -s 1M "$tmp/blank.img"
[ -z "$("$tool" udev-id "$tmp/blank.img")" ] || fail "udev-id of a device without label printed something"
rc=0
"$tool" udev-id "$tmp/none" >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "udev-id of a missing device: exit $rc"
ok "udev-id: RESSD_UUID=<uuid> of a label, nothing without one"

# tab-open runs "ressdsetup open" itself: an image file is refused as there
printf 'img %s\nskip %s noauto\n' "$img" "$img.2" >"$tmp/itab"
: >"$tmp/dm.log"
rc=0
"$tool" tab-open --tab "$tmp/itab" >"$tmp/out" 2>&1 || rc=$?
{ [ "$rc" = 1 ] && grep -q "is a regular file: attach it to a loop device first" "$tmp/out" &&
	[ "$(grep -c . "$tmp/out")" = 1 ] && [ ! -s "$tmp/dm.log" ]; } ||
	{ cat "$tmp/out"; fail "tab-open of an image file: exit $rc"; }
ok "tab-open goes through 'ressdsetup open' (an image file refused with its message; noauto not tried)"

# initramfs: parsed, no ExecStop in its unit, tab-open --initramfs takes
# those entries only (even noauto), and no names with it
printf 'r %s initramfs,noauto\ns %s\nt /dev/t nofail,initramfs\n' "$img" "$img.2" >"$tmp/rtab"
"$tool" tab-check --tab "$tmp/rtab" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "tab-check with initramfs"; }
grep -qxF "$tmp/rtab:1: r $img noauto,initramfs" "$tmp/out" &&
	grep -qxF "$tmp/rtab:3: t /dev/t nofail,initramfs" "$tmp/out" ||
	{ cat "$tmp/out"; fail "tab-check: the option initramfs"; }
mkdir -p "$gen/r"
"$tool" generator --tab "$tmp/rtab" "$gen/r" "$gen/early" "$gen/late" || fail "generator, initramfs"
grep -q '^ExecStart=.* tab-open --tab .* t$' "$gen/r/ressd@t.service" &&
	! grep -q '^ExecStop' "$gen/r/ressd@t.service" &&
	grep -q '^ExecStop=.* tab-close --tab .* s$' "$gen/r/ressd@s.service" ||
	{ cat "$gen/r/ressd@t.service" "$gen/r/ressd@s.service"; fail "generator: an initramfs entry's unit must have no ExecStop"; }
: >"$tmp/dm.log"
rc=0
"$tool" tab-open --tab "$tmp/rtab" --initramfs >"$tmp/out" 2>&1 || rc=$?
# r (noauto, initramfs) is tried and refused as an image file; t too (no
# such device); s (no initramfs) is not tried
{ [ "$rc" = 1 ] && grep -q "$img is a regular file" "$tmp/out" && ! grep -q "$img.2" "$tmp/out" &&
	grep -q "/dev/t" "$tmp/out" && [ ! -s "$tmp/dm.log" ]; } ||
	{ cat "$tmp/out"; fail "tab-open --initramfs: exit $rc"; }
rc=0
"$tool" tab-open --tab "$tmp/rtab" --initramfs r >"$tmp/out" 2>&1 || rc=$?
{ [ "$rc" = 1 ] && grep -q "takes no names" "$tmp/out"; } || { cat "$tmp/out"; fail "tab-open --initramfs r: exit $rc"; }
rc=0
"$tool" tab-close --tab "$tmp/rtab" --initramfs >"$tmp/out" 2>&1 || rc=$?
{ [ "$rc" = 1 ] && grep -q "unknown option --initramfs" "$tmp/out"; } || { cat "$tmp/out"; fail "tab-close --initramfs: exit $rc"; }
: >"$tmp/dm.log"
"$tool" tab-close --tab "$tmp/rtab" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "tab-close of rtab"; }
[ "$(tr '\n' ' ' <"$tmp/dm.log")" = "remove s -- " ] ||
	fail "tab-close without names must leave initramfs entries open: ran $(tr '\n' ' ' <"$tmp/dm.log")"
# an error on another line does not fail tab-open --initramfs (the root
# would wait for nothing): only its own entries count
printf 'u /dev/null initramfs\nbad line with four fields\n' >"$tmp/etab"
rc=0
"$tool" tab-open --tab "$tmp/etab" --initramfs >"$tmp/out" 2>&1 || rc=$?
{ [ "$rc" = 1 ] && grep -q "/dev/null" "$tmp/out"; } || { cat "$tmp/out"; fail "tab-open --initramfs, etab: exit $rc"; }
printf 'bad line with four fields\n' >"$tmp/etab"
rc=0
"$tool" tab-open --tab "$tmp/etab" --initramfs >"$tmp/out" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$tmp/out"; fail "tab-open --initramfs with an error on another line: exit $rc"; }
ok "initramfs: parsed, its unit has no ExecStop, tab-open --initramfs opens those entries only (noauto too, errors elsewhere ignored), tab-close leaves them"

if loop=$(losetup -f --show "$img" 2>/dev/null) && loops+=("$loop"); then
	table=$("$tool" table "$loop")
	printf 'fast UUID=%s small_write_max=8,mover_batch=2048\nro %s readonly,noauto\n' \
		"$(echo "$uuid" | tr a-f A-F)" "$loop" >"$tmp/ltab"
	: >"$tmp/dm.log"
	"$tool" tab-open --tab "$tmp/ltab" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "tab-open with $loop"; }
	want=$(printf 'create\nfast\n--table\n%s\n--\nmessage\nfast\n0\nset\nsmall_write_max\n8\n--\nmessage\nfast\n0\nset\nmover_batch\n2048\n--' \
		"${table//$loop/@DEV@}")
	got=$(sed -e "s|/dev/disk/by-ressd-uuid/$uuid|@DEV@|g" -e "s|$loop|@DEV@|g" "$tmp/dm.log")
	[ "$got" = "$want" ] || { cat "$tmp/dm.log"; fail "tab-open ran dmsetup with other arguments"; }
	: >"$tmp/dm.log"
	"$tool" tab-open --tab "$tmp/ltab" ro >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "tab-open ro"; }
	[ "$(sed -n 3p "$tmp/dm.log")" = --readonly ] || { cat "$tmp/dm.log"; fail "tab-open ro: no --readonly"; }
	: >"$tmp/dm.log"
	rc=0
	FAKE_DM_RC=1 "$tool" tab-open --tab "$tmp/ltab" fast >"$tmp/out" 2>&1 || rc=$?
	{ [ "$rc" = 1 ] && grep -q "'dmsetup create fast' failed" "$tmp/out" && ! grep -q '^message$' "$tmp/dm.log"; } ||
		{ cat "$tmp/out"; fail "tab-open, dmsetup failing: exit $rc"; }
	printf 'gone UUID=00000000-0000-4000-8000-000000000000\n' >"$tmp/gtab"
	rc=0
	"$tool" tab-open --tab "$tmp/gtab" >"$tmp/out" 2>&1 || rc=$?
	{ [ "$rc" = 1 ] && grep -q "no device with the ressd label UUID 00000000-0000-4000-8000-000000000000" "$tmp/out"; } ||
		{ cat "$tmp/out"; fail "tab-open of an absent UUID: exit $rc"; }
	ok "tab-open with $loop: UUID= found by the label, 'dmsetup create' then 'set' for each tunable; readonly; failures"
else
	skip "no loop devices: tab-open of a block device (UUID= lookup, tunables) not tested"
fi
unset RESSDSETUP_DMSETUP

# make install: the boot files for the root file system, with the tool's
# path put in, and make uninstall takes them away again
d=$tmp/destdir
make -C "$dir" install DESTDIR="$d" >"$tmp/inst.log" 2>&1 || { cat "$tmp/inst.log"; fail "make install"; }
for f in etc/initramfs-tools/hooks/ressd etc/initramfs-tools/scripts/local-top/ressd \
	usr/lib/dracut/modules.d/90ressd/module-setup.sh usr/lib/dracut/modules.d/90ressd/ressd-open.sh; do
	[ -x "$d/$f" ] || fail "make install: no executable $f"
	! grep -q @SBINDIR@ "$d/$f" || fail "make install: @SBINDIR@ left in $f"
done
grep -q '^RESSDSETUP=/usr/local/sbin/ressdsetup$' "$d/etc/initramfs-tools/hooks/ressd" ||
	fail "the initramfs-tools hook does not name the installed ressdsetup"
for f in etc/initramfs-tools/hooks/ressd etc/initramfs-tools/scripts/local-top/ressd \
	usr/lib/dracut/modules.d/90ressd/ressd-open.sh; do
	sh -n "$d/$f" || fail "sh -n $f"
done
bash -n "$d/usr/lib/dracut/modules.d/90ressd/module-setup.sh" || fail "bash -n module-setup.sh"
make -C "$dir" install DESTDIR="$d/usr-prefix" PREFIX=/usr >>"$tmp/inst.log" 2>&1 || fail "make install PREFIX=/usr"
[ -x "$d/usr-prefix/usr/share/initramfs-tools/hooks/ressd" ] || fail "PREFIX=/usr: the hook is not under /usr/share/initramfs-tools"
make -C "$dir" uninstall DESTDIR="$d" >>"$tmp/inst.log" 2>&1 || fail "make uninstall"
[ -z "$(find "$d" -path "$d/usr-prefix" -prune -o -type f -print)" ] || fail "make uninstall left $(find "$d" -type f | head -n 3)"
ok "make install: the initramfs-tools hook and boot script (/etc, or /usr/share with PREFIX=/usr), the dracut module; make uninstall"

echo "$passed checks passed, $skipped skipped"
# A check not made is not a pass: the layer fails, and says which.
[ "$skipped" -eq 0 ] || { echo "FAIL: $skipped checks could not run on this host (SKIP lines above)"; exit 1; }

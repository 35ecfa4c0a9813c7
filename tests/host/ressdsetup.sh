#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/ressdsetup on the host, on image files (no device-mapper here):
#
#  - format: the layout (label at 0, normal area from 1 MiB, the reserved
#    area at the end on a 1 MiB boundary), what it zeroes and what it leaves,
#    the label's fields, the confirmation, and every refusal with its
#    message: too small, bad sizes and tunables (the kernel's messages), an
#    existing label, ext4 (mkfs.ext4), swap, XFS; with loop devices, a
#    device in use and a mounted one;
#  - table, for one device and with a separate log device;
#  - status --from-line on canned status and table lines; open, close and
#    status against a stand-in dmsetup that records its arguments;
#  - check and dump on logs written by tools/ressdsetup/tests/ressd-mklog
#    in on-disk format 2 (data blocks, then their record's trailer): valid,
#    wrapped, a lost trailer, torn, corrupt, misplaced and stale trailers,
#    the edge of the search for a trailer, full, bad superblocks, a bad
#    checkpoint: exit codes, the chain's end and its reason, and dump's
#    mapping against the one the generator kept;
#  - check and dump against the kernel's own replay: the seed logs of
#    tests/fuzz (gen-corpus replays each with dm-ressd-format.c, compiled
#    unchanged, and prints what it found); ressdsetup must find the same.
#
# Prints "ok:" lines; exits non-zero at the first failure.  Root (for apt,
# loop devices and mount); parts that need loop devices say "skip:" when
# there are none.
set -uo pipefail
# shellcheck source=scripts/common.sh source-path=SCRIPTDIR/../.. disable=SC1091  # followed with -x
. "$(dirname "$0")/../../scripts/common.sh"
top=$RESSD_TOP
dir=$top/tools/ressdsetup
tool=$dir/ressdsetup
mklog=$dir/tests/ressd-mklog

fail() {
	echo "FAIL: $*"
	exit 1
}
ok() { echo "ok: $*"; }

ressd_apt_install gcc make e2fsprogs util-linux jq python3 man-db groff-base \
	clang libclang-rt-14-dev linux-source-6.1 gawk xz-utils ||
	fail "could not install the packages this test needs"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ressdsetup-test.XXXXXX") || fail "mktemp"
loops=()
mnt=
cleanup() {
	local l
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

# ---- build ----
make -C "$dir" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "make -C tools/ressdsetup"; }
{ [ -x "$tool" ] && [ -x "$mklog" ]; } || fail "the build made no ressdsetup or ressd-mklog"
ok "built with -Wall -Wextra -Werror"
[ "$("$mklog" crc)" = e3069283 ] || fail "crc32c check value: $("$mklog" crc), expected e3069283"
ok "crc32c: the standard check value e3069283"
for c in "" format table open close status check dump; do
	# shellcheck disable=SC2086  # no command when $c is empty
	"$tool" $c --help >"$tmp/help" 2>&1 || fail "ressdsetup $c --help failed"
	grep -q "^usage: ressdsetup" "$tmp/help" || fail "ressdsetup $c --help: no usage line"
done
man --warnings -l "$dir/ressdsetup.8" 2>"$tmp/man.err" >"$tmp/man.txt" || fail "man -l ressdsetup.8"
[ ! -s "$tmp/man.err" ] || { cat "$tmp/man.err"; fail "man page warnings"; }
for c in format table open close status check dump; do
	grep -q "^ *$c " "$tmp/man.txt" || fail "the man page does not describe $c"
done
ok "--help of every command; the man page renders without warnings and covers every command"

# ---- helpers ----
# expect_fail <exit code> <message part> <command...>: must fail so, saying so.
expect_fail() {
	local want=$1 msg=$2 rc
	shift 2
	"$@" >"$tmp/out" 2>&1
	rc=$?
	[ $rc -eq "$want" ] || { cat "$tmp/out"; fail "$* exited $rc, expected $want"; }
	grep -qF -- "$msg" "$tmp/out" || { cat "$tmp/out"; fail "$*: no '$msg' in its output"; }
}
md5() { md5sum <"$1" | cut -c1-32; }
# bytes <file> <offset> <count>: hex of those bytes
bytes() { od -An -tx1 -v -j "$2" -N "$3" "$1" | tr -d ' \n'; }
# le <file> <offset> <size>: a little-endian number
le() { od -An -tu"$3" -j "$2" -N "$3" --endian=little "$1" | tr -d ' '; }
# is_zero <file> <offset> <length> (bytes)
is_zero() { cmp -s -n "$3" <(tail -c +$(($2 + 1)) "$1") /dev/zero; }
# A file of $2 bytes full of a non-zero pattern that no probe takes for anything.
patterned() { yes ressd-test-pattern | head -c "$2" >"$1"; }

# ---- format: one device ----
img=$tmp/one.img
patterned "$img" $((64 << 20))
"$tool" format "$img" --reserved 4M --batch >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "format"; }
grep -q "reserved area  sectors 122880..131071 (4.0 MiB, 1022 log slots)" "$tmp/out" ||
	{ cat "$tmp/out"; fail "format's summary"; }
want="0 120832 ressd $img 2048 $img 122880 8192 8 small_write_max 16 high_watermark 50 low_watermark 0 mover_batch 1024"
[ "$("$tool" table "$img")" = "$want" ] || fail "table: $("$tool" table "$img"), expected $want"
ok "format 64 MiB with --reserved 4M: normal area 2048+120832, log 122880+8192 sectors"
# Where the table says: label, zeros up to the normal area, the normal area
# untouched, the log's first 8 KiB zero and the rest untouched.
read -r _ len _ _ ooff _ loff lsec _ <<<"$("$tool" table "$img")"
[ "$(head -c 8 "$img")" = "ReSSD-lb" ] || fail "no label magic at 0"
is_zero "$img" 4096 $((ooff * 512 - 4096)) || fail "the label area after the label is not zero"
cmp -s -n $((len * 512)) <(tail -c +$((ooff * 512 + 1)) "$img") \
	<(tail -c +$((ooff * 512 + 1)) <(yes ressd-test-pattern | head -c $((64 << 20)))) ||
	fail "the normal area changed"
is_zero "$img" $((loff * 512)) 8192 || fail "the log range's first 8 KiB are not zero"
[ "$(bytes "$img" $((loff * 512 + 8192)) 16)" != 00000000000000000000000000000000 ] ||
	fail "format wrote beyond the log's first 8 KiB"
{ [ $((loff * 512 % (1 << 20))) -eq 0 ] && [ $(((loff + lsec) * 512)) -eq $((64 << 20)) ]; } ||
	fail "the log range is not on a 1 MiB boundary up to the end"
ok "the label at 0, zeros to 1 MiB, the normal area untouched, the log's first 8 KiB zeroed"
# The label's fields at the offsets of label.h.
{ [ "$(le "$img" 12 4)" = 1 ] && [ "$(le "$img" 40 4)" = 1 ] && [ "$(le "$img" 44 4)" = 4096 ] &&
	[ "$(le "$img" 56 8)" = $((64 << 11)) ] && [ "$(le "$img" 64 8)" = 2048 ] &&
	[ "$(le "$img" 72 8)" = 120832 ] && [ "$(le "$img" 80 8)" = 122880 ] &&
	[ "$(le "$img" 88 8)" = 8192 ] && [ "$(le "$img" 104 4)" = 16 ] &&
	[ "$(le "$img" 108 4)" = 50 ] && [ "$(le "$img" 112 4)" = 0 ] && [ "$(le "$img" 116 4)" = 1024 ]; } ||
	fail "label fields at the wrong offsets: $(bytes "$img" 0 128)"
python3 - "$img" <<'EOF' || fail "the label's crc32c (seeded with its nonce) does not check"
import struct, sys
T = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    T.append(c)
def crc(seed, data):
    for b in data:
        seed = T[(seed ^ b) & 0xFF] ^ (seed >> 8)
    return seed
blk = bytearray(open(sys.argv[1], 'rb').read(4096))
want, = struct.unpack_from('<I', blk, 8)
nonce, = struct.unpack_from('<Q', blk, 16)
blk[8:12] = b'\0\0\0\0'
sys.exit(0 if crc((nonce ^ (nonce >> 32)) & 0xFFFFFFFF, blk) == want else 1)
EOF
blkid -p "$img" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$tmp/out"; fail "blkid -p finds something on the formatted image (exit $rc)"; }
ok "label fields at their offsets, its crc32c checks (Python), blkid -p finds no file system"
"$tool" check "$img" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "check of a fresh format"; }
{ grep -q "dm-ressd formats a new log" "$tmp/out" && grep -q "result: clean" "$tmp/out"; } ||
	{ cat "$tmp/out"; fail "check of a fresh format"; }
ok "check of a fresh format: clean, the log is formatted on first activation"

# An odd size: the log takes the whole 4 KiB blocks up to the end.
odd=$tmp/odd.img
truncate -s $(((64 << 20) + 12288 + 512)) "$odd"
"$tool" format "$odd" --reserved 4M --batch >/dev/null || fail "format of an odd size"
want="0 120832 ressd $odd 2048 $odd 122880 8216 8 small_write_max 16 high_watermark 50 low_watermark 0 mover_batch 1024"
[ "$("$tool" table "$odd")" = "$want" ] || fail "odd size: $("$tool" table "$odd"), expected $want"
ok "an odd-sized device: the log starts on a 1 MiB boundary and takes every whole 4 KiB block"

# Tunables reach the label and the table.
"$tool" format "$odd" --reserved 2M --small-write-max 32 --high-watermark 70% --low-watermark 10 \
	--mover-batch 2048 --batch --force >/dev/null || fail "format with tunables"
want="0 124928 ressd $odd 2048 $odd 126976 4120 8 small_write_max 32 high_watermark 70 low_watermark 10 mover_batch 2048"
[ "$("$tool" table "$odd")" = "$want" ] || fail "tunables: $("$tool" table "$odd"), expected $want"
ok "tunables given to format appear in the table line"

# ---- confirmation ----
before=$(md5 "$odd")
echo yes | "$tool" format "$odd" --reserved 4M --force >"$tmp/out" 2>&1 && fail "format went on with 'yes'"
grep -q "Are you sure? (Type uppercase yes)" "$tmp/out" || { cat "$tmp/out"; fail "no question"; }
grep -q "not confirmed" "$tmp/out" || { cat "$tmp/out"; fail "no refusal message"; }
[ "$(md5 "$odd")" = "$before" ] || fail "an unconfirmed format wrote"
"$tool" format "$odd" --reserved 4M --force </dev/null >/dev/null 2>&1 && fail "format went on at EOF"
echo YES | "$tool" format "$odd" --reserved 4M --force >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "format with YES"; }
[ "$(md5 "$odd")" != "$before" ] || fail "format with YES wrote nothing"
ok "without --batch: asks, refuses 'yes' and EOF without writing, formats on 'YES'"

# ---- refusals ----
small=$tmp/small.img
truncate -s 3M "$small"
expect_fail 4 "is too small (3.0 MiB) for a 2.0 MiB reserved area" "$tool" format "$small" --reserved 2M --batch
expect_fail 1 "below the minimum log size of 72.0 KiB" "$tool" format "$img" --reserved 8K --batch
expect_fail 1 "below the minimum log size" "$tool" format "$img" --reserved 0 --batch
expect_fail 4 "is too small" "$tool" format "$img" --reserved 63M --batch
expect_fail 1 "is not a size" "$tool" format "$img" --reserved 4Q --batch
expect_fail 1 "is not a size" "$tool" format "$img" --reserved -4M --batch
expect_fail 1 "is not a multiple of 4 KiB" "$tool" format "$img" --reserved 5000 --batch
expect_fail 1 "--reserved <size> is needed" "$tool" format "$img" --batch
expect_fail 1 "above the maximum log size" "$tool" format "$img" --reserved 300G --batch
ok "refused: too small (exit 4), reserved area below the minimum, bad sizes (exit 1)"
[ "$(sed -n 's/^#define RESSD_MIN_LOG_BLOCKS[[:space:]]*(RESSD_SB_BLOCKS + \([0-9]*\)).*/\1/p' "$top/dm-ressd-limits.h")" = 16 ] ||
	fail "RESSD_MIN_LOG_BLOCKS changed in dm-ressd-limits.h: update the 72 KiB above"
grep -q '"../../dm-ressd-limits.h"' "$dir/ressd-types.h" ||
	fail "ressdsetup does not take its limits from dm-ressd-limits.h"
# The tunables' messages are the kernel's own.
while IFS='|' read -r opts msg; do
	grep -qF "\"$msg\"" "$top/dm-ressd.c" "$top/dm-ressd.h" || fail "'$msg' is not a message of the kernel"
	# shellcheck disable=SC2086  # the options are words
	expect_fail 1 "$msg" "$tool" format "$img" --reserved 4M --batch $opts
done <<'EOF'
--small-write-max 7|small_write_max must be a multiple of 8 sectors below 4 MiB
--small-write-max 0|small_write_max must be a multiple of 8 sectors below 4 MiB
--high-watermark 0|high_watermark must be 1 to 100
--high-watermark 101|high_watermark must be 1 to 100
--low-watermark 100|low_watermark must be 0 to 99
--mover-batch 8|mover_batch must be a multiple of 8 sectors from 16 to 8192
--mover-batch 8200|mover_batch must be a multiple of 8 sectors from 16 to 8192
--high-watermark 40 --low-watermark 40|low_watermark must be below high_watermark
--small-write-max 1024|small_write_max must be smaller than mover_batch
EOF
expect_fail 1 "is not a number" "$tool" format "$img" --reserved 4M --batch --mover-batch x
ok "refused: bad tunables, with the kernel's messages"
before=$(md5 "$img")
expect_fail 1 "contains a ressd label: refusing to format it (use --force" "$tool" format "$img" --reserved 4M --batch
[ "$(md5 "$img")" = "$before" ] || fail "a refused format wrote"
ok "refused without --force: an existing ressd label; nothing written"
ext=$tmp/ext4.img
truncate -s 64M "$ext"
mkfs.ext4 -q -F "$ext" >/dev/null 2>&1 || fail "mkfs.ext4"
before=$(md5 "$ext")
expect_fail 1 "contains an ext4 file system: refusing to format it" "$tool" format "$ext" --reserved 4M --batch
[ "$(md5 "$ext")" = "$before" ] || fail "a refused format wrote to the ext4 image"
"$tool" format "$ext" --reserved 4M --batch --force >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "--force on ext4"; }
grep -q "holds an ext4 file system: overwriting it (--force)" "$tmp/out" || { cat "$tmp/out"; fail "--force said nothing"; }
blkid -p "$ext" >/dev/null 2>&1 && fail "blkid still finds a file system after format --force"
ok "refused without --force: ext4 (mkfs.ext4 -F); with --force, blkid finds nothing afterwards"
sw=$tmp/swap.img
truncate -s 16M "$sw"
mkswap "$sw" >/dev/null 2>&1 || fail "mkswap"
expect_fail 1 "contains a swap area" "$tool" format "$sw" --reserved 1M --batch
xfs=$tmp/xfs.img
truncate -s 16M "$xfs"
printf 'XFSB' | dd of="$xfs" conv=notrunc status=none
expect_fail 1 "contains an XFS file system" "$tool" format "$xfs" --reserved 1M --batch
ok "refused without --force: swap (mkswap), XFS (its magic)"
expect_fail 4 "cannot open $tmp/nonexistent" "$tool" format "$tmp/nonexistent" --reserved 1M --batch
expect_fail 4 "is neither a block device nor a regular file" "$tool" format /dev/null --reserved 1M --batch
expect_fail 1 "unknown option --frobnicate" "$tool" format "$img" --reserved 4M --frobnicate
expect_fail 1 "missing arguments" "$tool" format --reserved 4M
expect_fail 1 "unknown command 'frob'" "$tool" frob
ok "refused: a missing device, a character device, unknown options, missing arguments"

# ---- a device cost model in the label ----
model=4096:0:4:50000:47900:436600:2000000:441000:41000:0:0
"$tool" format "$img" --reserved 4M --dev-model "$model" --batch --force >/dev/null ||
	fail "format --dev-model"
t=$("$tool" table "$img")
[ "${t#* ressd "$img" 2048 "$img" }" != "$t" ] && [ "${t##* 10 small_write_max 16 high_watermark 50 low_watermark 0 mover_batch 1024 dev_model }" = "$model" ] ||
	fail "table with a model: $t"
"$tool" check "$img" | grep -qx "  device model   $model" || fail "check: no device model line"
"$tool" format "$img" --reserved 4M --dev-model none --batch --force >/dev/null || fail "format --dev-model none"
"$tool" table "$img" | grep -q " 8 small_write_max 16 high_watermark 50 low_watermark 0 mover_batch 1024$" ||
	fail "table without a model: $("$tool" table "$img")"
expect_fail 1 "dev_model unit must be 0 or a multiple of 8 sectors from 16 to 131072" \
	"$tool" format "$img" --reserved 4M --dev-model 4100:0:4:1:1:1:1:1:1:0:0 --batch --force
expect_fail 1 "is not 'none' or 11 numbers" "$tool" format "$img" --reserved 4M --dev-model 4096:0:4 --batch --force
expect_fail 1 "is not 'none' or 11 numbers" "$tool" format "$img" --reserved 4M \
	--dev-model 4096:0:4:50000:47900:436600:2000000:441000:41000:0:99999999999 --batch --force
ok "format --dev-model: kept in the label, shown by table and check, none, refusals with the kernel's messages"

# ---- mover_policy density in the label ----
"$tool" format "$img" --reserved 4M --dev-model "$model" --mover-policy density --high-watermark 90 \
	--batch --force >/dev/null || fail "format --mover-policy density"
t=$("$tool" table "$img")
[ "${t##* 12 small_write_max 16 high_watermark 90 low_watermark 0 mover_batch 1024 dev_model }" = \
	"$model mover_policy density" ] || fail "table with density: $t"
"$tool" check "$img" | grep -qx "  mover policy   density" || fail "check: no mover policy line"
"$tool" format "$img" --reserved 4M --dev-model "$model" --mover-policy fifo --batch --force >/dev/null ||
	fail "format --mover-policy fifo"
"$tool" table "$img" | grep -q " 10 small_write_max .* dev_model $model$" ||
	fail "table with fifo: $("$tool" table "$img")"
expect_fail 1 "--mover-policy density needs a --dev-model with a unit size" \
	"$tool" format "$img" --reserved 4M --mover-policy density --batch --force
expect_fail 1 "--mover-policy density needs a --dev-model with a unit size" \
	"$tool" format "$img" --reserved 4M --dev-model 0:0:0:50000:31000:62000:1500000:176000:27000:0:0 \
	--mover-policy density --batch --force
expect_fail 1 "--mover-policy: 'lifo' is not fifo or density" \
	"$tool" format "$img" --reserved 4M --dev-model "$model" --mover-policy lifo --batch --force
ok "format --mover-policy: density kept in the label, in the table line and check; refusals"

# ---- log_mode in the label ----
pm=0:0:0:78973:472165:0:0:176000:27000:610142:619338
"$tool" format "$img" --reserved 4M --dev-model "$pm" --log-mode auto --batch --force >/dev/null ||
	fail "format --log-mode auto"
"$tool" table "$img" | grep -q " 12 small_write_max .* dev_model $pm log_mode auto$" ||
	fail "table with log_mode auto: $("$tool" table "$img")"
"$tool" check "$img" | grep -qx "  log mode       auto" || fail "check: no log mode line"
"$tool" format "$img" --reserved 4M --log-mode never --batch --force >/dev/null || fail "format --log-mode never"
"$tool" table "$img" | grep -q " 10 small_write_max .* mover_batch 1024 log_mode never$" ||
	fail "table with log_mode never: $("$tool" table "$img")"
"$tool" format "$img" --reserved 4M --log-mode always --batch --force >/dev/null || fail "format --log-mode always"
"$tool" table "$img" | grep -q " 8 small_write_max .* mover_batch 1024$" ||
	fail "table with log_mode always: $("$tool" table "$img")"
expect_fail 1 "--log-mode auto needs a --dev-model" "$tool" format "$img" --reserved 4M --log-mode auto --batch --force
expect_fail 1 "--log-mode: 'sometimes' is not always, never or auto" \
	"$tool" format "$img" --reserved 4M --log-mode sometimes --batch --force
ok "format --log-mode: kept in the label, in the table line and check; refusals"

# ---- data_csum in the label ----
"$tool" format "$img" --reserved 4M --dev-model "$pm" --log-mode auto --data-csum 0 --batch --force \
	>/dev/null || fail "format --data-csum 0"
"$tool" table "$img" | grep -q " 14 small_write_max .* dev_model $pm log_mode auto data_csum 0$" ||
	fail "table with data_csum 0: $("$tool" table "$img")"
"$tool" check "$img" | grep -qx "  data csum      0" || fail "check: no data csum line"
[ "$("$tool" dump "$img" --json 2>/dev/null | jq -c '.label | [.dev_model, .mover_policy, .log_mode, .data_csum]')" = \
	"[\"$pm\",\"fifo\",\"auto\",0]" ] || fail "dump --json label: $("$tool" dump "$img" --json | jq -c .label)"
"$tool" format "$img" --reserved 4M --data-csum 0 --batch --force >/dev/null || fail "format --data-csum 0 alone"
"$tool" table "$img" | grep -q " 10 small_write_max .* mover_batch 1024 data_csum 0$" ||
	fail "table with data_csum 0 alone: $("$tool" table "$img")"
"$tool" format "$img" --reserved 4M --data-csum 1 --batch --force >/dev/null || fail "format --data-csum 1"
"$tool" table "$img" | grep -q " 8 small_write_max .* mover_batch 1024$" ||
	fail "table with data_csum 1: $("$tool" table "$img")"
! "$tool" check "$img" | grep -q "data csum" || fail "check: a data csum line for the default"
[ "$("$tool" dump "$img" --json 2>/dev/null | jq -c '.label | [.dev_model, .mover_policy, .log_mode, .data_csum]')" = \
	'["none","fifo","always",1]' ] || fail "dump --json label, defaults: $("$tool" dump "$img" --json | jq -c .label)"
expect_fail 1 "--data-csum: 'yes' is not 0 or 1" \
	"$tool" format "$img" --reserved 4M --data-csum yes --batch --force
ok "format --data-csum: kept in the label, in the table line and check; refusals"

# ---- a separate log device ----
dev=$tmp/dev.img log=$tmp/log.img
truncate -s 32M "$dev"
truncate -s 2M "$log"
(cd "$tmp" && "$tool" format dev.img --log-device log.img --log-offset 64K --reserved 1M --batch) \
	>/dev/null || fail "format with a separate log"
want="0 63488 ressd $dev 2048 $log 128 2048 8 small_write_max 16 high_watermark 50 low_watermark 0 mover_batch 1024"
[ "$("$tool" table "$dev")" = "$want" ] || fail "table: $("$tool" table "$dev"), expected $want"
want="0 63488 ressd $dev 2048 /dev/sdz 128 2048 8 small_write_max 16 high_watermark 50 low_watermark 0 mover_batch 1024"
[ "$("$tool" table "$dev" --log-device /dev/sdz)" = "$want" ] || fail "table --log-device"
"$tool" format "$dev" --log-device "$log" --batch --force >/dev/null || fail "format, log to the end"
[ "$("$tool" table "$dev" | cut -d' ' -f7-8)" = "0 4096" ] || fail "the log range does not take the whole log device"
expect_fail 1 "not a multiple of 4 KiB" "$tool" format "$dev" --log-device "$log" --log-offset 1000 --batch --force
expect_fail 4 "is too small" "$tool" format "$dev" --log-device "$log" --log-offset 1M --reserved 2M --batch --force
expect_fail 1 "the log device is the device itself" "$tool" format "$dev" --log-device "$dev" --batch --force
expect_fail 1 "--log-offset needs --log-device" "$tool" format "$dev" --log-offset 4K --reserved 1M --batch --force
ok "table with a separate log device (absolute path kept, --log-device override, log to its end); refusals"

# ---- status --from-line ----
line="0 120832 ressd 4012/16382 3120 524320 12000 400 3 9000 800 1500 rw 0 2 49152000 98304000 1048576 3 1 2 700 300 250 0 0 0"
tline="0 120832 ressd 7:0 2048 7:0 122880 131072 8 small_write_max 16 high_watermark 50 low_watermark 0 mover_batch 1024"
"$tool" status --from-line "$line" --table-line "$tline" >"$tmp/st" || fail "status --from-line"
while IFS= read -r want; do
	grep -qF -- "$want" "$tmp/st" || { cat "$tmp/st"; fail "status: no '$want'"; }
done <<'EOF'
size:             59.0 MiB (120832 sectors)
log use:          [#########...........|...................] 24.5%
4012 of 16382 slots, 15.7 MiB of 64.0 MiB
the mover starts at 50% ('|') and empties the log down to 0%
mapped blocks:    3120 (12.2 MiB whose newest data is in the log)
index memory:     512.0 KiB
writes:           12000 redirected to the log (96.8%), 400 direct to the normal area
split reads:      3
moved home:       9000 blocks in 800 writes
metadata commits: 1500
mode:             rw (normal operation)
full writes:      0 (small writes sent home because the log was full)
mover yields:     2 (pauses for foreground I/O)
bytes written:    46.9 MiB by the users, 93.8 MiB to the devices (write amplification 2.00)
erase units:      2 written whole, 1 up to their last block, 3 sparse; 1.0 MiB read home to fill them
home merges:      6 for 9000 blocks moved home (8994 avoided, against a merge a block)
density cleaning: 700 blocks copied forward, 300 moved home from beyond the region (250 of them unmapped at once)
tunables:         small_write_max 16, high_watermark 50, low_watermark 0, mover_batch 1024
EOF
"$tool" status --from-line "$line" --json >"$tmp/st.json" || fail "status --json"
[ "$(jq -c '[.used_slots,.total_slots,.mapped_blocks,.index_bytes,.redirected_writes,.direct_writes,.split_reads,.moved_blocks,.mover_writes,.metadata_commits,.mode,.full_writes,.mover_yields,.user_write_bytes,.dev_write_bytes,.write_amplification,.fill_read_bytes,.units_sparse,.units_prefix,.units_whole,.copy_forwards,.far_moves,.far_dropped,.merges_avoided,.length]' "$tmp/st.json")" = \
	'[4012,16382,3120,524320,12000,400,3,9000,800,1500,"rw",0,2,49152000,98304000,2,1048576,3,1,2,700,300,250,8994,120832]' ] ||
	{ cat "$tmp/st.json"; fail "status --json fields"; }
[ "$(jq '.redirected_share * 1000 | round' "$tmp/st.json")" = 968 ] || fail "redirected share"
# The target's fields alone; a kernel without the extras; a newer one with more.
"$tool" status --from-line "0/30 0 1000 0 0 0 0 0 2 ro" --json >"$tmp/st.json" || fail "10 fields"
[ "$(jq -c '[.used_slots,.mode,.full_writes,.mover_yields,.redirected_share,.user_write_bytes,.write_amplification,.merges_avoided]' "$tmp/st.json")" = '[0,"ro",null,null,null,null,null,null]' ] ||
	{ cat "$tmp/st.json"; fail "10 fields: wrong values"; }
"$tool" status --from-line "5/30 1 2 0 0 5 6 7 8 fail 9 10 0 0 0 0 0 0 0 0 0 0 0 0 0 11 12 13 14" >"$tmp/st" || fail "29 fields"
{ grep -q "mode:             fail (failed: a log write or read failed; all I/O fails)" "$tmp/st" &&
	grep -q "density threshold: 12 logged blocks (the last round chose the units with as many for home)" "$tmp/st" &&
	grep -q "1 more status fields" "$tmp/st" && grep -q "writes:           none yet" "$tmp/st" &&
	grep -q "bytes written:    0 B by the users, 0 B to the devices$" "$tmp/st" &&
	! grep -q "erase units:" "$tmp/st" && ! grep -q "home merges:" "$tmp/st" &&
	! grep -q "density cleaning:" "$tmp/st" &&
	! grep -q "log mode:" "$tmp/st"; } ||
	{ cat "$tmp/st"; fail "29 fields"; }
"$tool" status --from-line "5/30 1 2 0 0 5 6 7 8 fail 9 10 0 0 0 0 0 0 0 0 0 0 0 0 0 11 12 13 14" --json >"$tmp/st.json" || fail "29 fields, json"
[ "$(jq -c '[.submitter_log_writes,.density_d,.worker_log_writes]' "$tmp/st.json")" = '[11,12,13]' ] ||
	{ cat "$tmp/st.json"; fail "29 fields: density_d, worker_log_writes"; }
"$tool" status --from-line "5/30 1 2 0 0 5 6 7 8 fail 9 10 0 0 0 0 0 0 0 0 0 0 0 0 0 11" --json >"$tmp/st.json" || fail "26 fields, json"
[ "$(jq -c '[.density_d,.worker_log_writes]' "$tmp/st.json")" = '[null,null]' ] ||
	{ cat "$tmp/st.json"; fail "26 fields: density_d or worker_log_writes not null"; }
while IFS='|' read -r bad msg; do
	expect_fail 1 "$msg" "$tool" status --from-line "$bad"
done <<'EOF'
abc|fields, expected at least 10
4012/16382 3120 524320 12000 400 3 9000 800 1500|expected at least 10
4012-16382 3120 524320 12000 400 3 9000 800 1500 rw|expected <used>/<total>
40/30 3120 524320 12000 400 3 9000 800 1500 rw|40 used of 30
4012/16382 3120 x 12000 400 3 9000 800 1500 rw|field 3 (index_bytes) is 'x', not a number
4012/16382 3120 524320 12000 400 3 9000 800 1500 rx|field 10 (mode) is 'rx'
4012/16382 3120 524320 12000 400 3 9000 800 1500 rw -1 0|field 11 (full_writes) is '-1'
0 2048 linear 7:0 0|not a ressd target (target type linear)
EOF
expect_fail 1 "bad optional argument" "$tool" status --from-line "$line" --table-line "0 1 ressd a 0 b 0 32 2 frob 3"
# A table with a device model (0.3): shown as the kernel printed it.
model=1024:0:8:50000:36500:52100:1500000:210000:41000:0:0
"$tool" status --from-line "$line" --table-line "${tline/ 8 / 10 } dev_model $model" --json >"$tmp/st.json" ||
	fail "status with a dev_model"
[ "$(jq -r '.table.dev_model' "$tmp/st.json")" = "$model" ] || { cat "$tmp/st.json"; fail "table.dev_model"; }
"$tool" status --from-line "$line" --table-line "${tline/ 8 / 10 } dev_model $model" | grep -qx "device model:     $model" ||
	fail "status in words: no device model line"
"$tool" status --from-line "$line" --table-line "$tline" --json >"$tmp/st.json" || fail "status without a dev_model"
[ "$(jq -c '.table.dev_model' "$tmp/st.json")" = null ] || fail "table.dev_model without a model"
[ "$(jq -r '.table.mover_policy' "$tmp/st.json")" = fifo ] || fail "table.mover_policy without one"
"$tool" status --from-line "$line" --table-line "${tline/ 8 / 12 } dev_model $model mover_policy density" \
	--json >"$tmp/st.json" || fail "status with mover_policy density"
[ "$(jq -r '.table.mover_policy' "$tmp/st.json")" = density ] || { cat "$tmp/st.json"; fail "table.mover_policy"; }
"$tool" status --from-line "$line" --table-line "${tline/ 8 / 12 } dev_model $model mover_policy density" |
	grep -qx "mover policy:     density" || fail "status in words: no mover policy line"
expect_fail 1 "bad mover_policy 'lifo'" "$tool" status --from-line "$line" \
	--table-line "${tline/ 8 / 10 } mover_policy lifo"
# data_csum 0 in the table (1, the default, is left out of it)
"$tool" status --from-line "$line" --table-line "${tline/ 8 / 10 } data_csum 0" --json >"$tmp/st.json" ||
	fail "status with data_csum 0"
[ "$(jq -r '.table.data_csum' "$tmp/st.json")" = 0 ] || { cat "$tmp/st.json"; fail "table.data_csum"; }
"$tool" status --from-line "$line" --table-line "$tline" --json >"$tmp/st.json" || fail "status"
[ "$(jq -r '.table.data_csum' "$tmp/st.json")" = 1 ] || { cat "$tmp/st.json"; fail "table.data_csum default"; }
"$tool" status --from-line "$line" --table-line "${tline/ 8 / 10 } data_csum 0" |
	grep -qx "data checksums:   none for data written before its trailer (data_csum 0)" ||
	fail "status in words: no data checksums line"
expect_fail 1 "bad data_csum '2'" "$tool" status --from-line "$line" \
	--table-line "${tline/ 8 / 10 } data_csum 2"
# log_mode auto passing small writes through
"$tool" status --from-line "${line% 0 0 0} 40 1 125" --table-line "${tline/ 8 / 12 } dev_model $model log_mode auto" \
	>"$tmp/st" || fail "status with log_mode auto"
grep -qx "log mode:         passing small writes through (auto); 40 small writes passed through, 125 per mille of them a log would absorb" \
	"$tmp/st" || { cat "$tmp/st"; fail "status in words: no log mode line"; }
"$tool" status --from-line "${line% 0 0 0} 40 1 125" --table-line "${tline/ 8 / 12 } dev_model $model log_mode auto" \
	--json >"$tmp/st.json" || fail "status --json with log_mode auto"
[ "$(jq -c '[.passed_writes,.log_pass,.alpha_permille,.table.log_mode]' "$tmp/st.json")" = '[40,true,125,"auto"]' ] ||
	{ cat "$tmp/st.json"; fail "status --json: log_mode fields"; }
expect_fail 1 "bad log_mode 'sometimes'" "$tool" status --from-line "$line" \
	--table-line "${tline/ 8 / 10 } log_mode sometimes"
# inline_log_writes (0.4): in JSON, and in words beside the redirected writes
[ "$(jq -c '.inline_log_writes' "$tmp/st.json")" = null ] || fail "inline_log_writes without field 25"
"$tool" status --from-line "$line 9000" --json >"$tmp/st.json" || fail "status --json with field 25"
[ "$(jq -c '[.inline_log_writes,.mode]' "$tmp/st.json")" = '[9000,"rw"]' ] ||
	{ cat "$tmp/st.json"; fail "status --json: inline_log_writes"; }
"$tool" status --from-line "$line 9000" | grep -qx "                  9000 of those logged went to the log at once (idle log)" ||
	fail "status in words: no inline log writes line"
# submitter_log_writes (field 26): in JSON, and in words when not 0
[ "$(jq -c '.submitter_log_writes' "$tmp/st.json")" = null ] || fail "submitter_log_writes without field 26"
"$tool" status --from-line "$line 9000 321" --json >"$tmp/st.json" || fail "status --json with field 26"
[ "$(jq -c '[.inline_log_writes,.submitter_log_writes,.mode]' "$tmp/st.json")" = '[9000,321,"rw"]' ] ||
	{ cat "$tmp/st.json"; fail "status --json: submitter_log_writes"; }
"$tool" status --from-line "$line 9000 321" | grep -qx "                  321 log writes issued by the writers' tasks (end of a plug, a flush)" ||
	fail "status in words: no submitter log writes line"
# worker_log_writes (field 28): in JSON, and in words when not 0
"$tool" status --from-line "$line 9000 321 0 77" --json >"$tmp/st.json" || fail "status --json with field 28"
[ "$(jq -c '[.submitter_log_writes,.worker_log_writes]' "$tmp/st.json")" = '[321,77]' ] ||
	{ cat "$tmp/st.json"; fail "status --json: worker_log_writes"; }
"$tool" status --from-line "$line 9000 321 0 77" | grep -qx "                  77 log writes issued by the worker" ||
	fail "status in words: no worker log writes line"
"$tool" status --from-line "$line 9000 321 0 0" | grep -q "issued by the worker" &&
	fail "status in words: a worker log writes line for 0"
! "$tool" status --from-line "$line 9000 0" | grep -q "writers' tasks" ||
	fail "status in words: a submitter log writes line for 0"
ok "status --from-line: every field in words and in JSON, short and long lines, malformed lines refused, a device model, the mover policy, the log mode, the inline and submitter log writes"

# ---- open, close, status against a stand-in dmsetup ----
cat >"$tmp/dmsetup" <<EOF
#!/bin/bash
{ printf '%s\n' "\$@"; echo --; } >>"$tmp/dm.log"
case \$1 in
status) echo "$line" ;;
table) echo "$tline" ;;
esac
exit \${FAKE_DM_RC:-0}
EOF
chmod +x "$tmp/dmsetup"
export RESSDSETUP_DMSETUP=$tmp/dmsetup
expect_fail 4 "is a regular file: attach it to a loop device first" "$tool" open "$img" fast
"$tool" close fast --drain >/dev/null || fail "close --drain"
[ "$(tr '\n' ' ' <"$tmp/dm.log")" = "message fast 0 drain -- remove fast -- " ] ||
	fail "close --drain ran: $(tr '\n' ' ' <"$tmp/dm.log")"
: >"$tmp/dm.log"
FAKE_DM_RC=1 expect_fail 1 "'dmsetup remove fast' failed" "$tool" close fast
expect_fail 1 "not a valid device-mapper name" "$tool" close a/b
"$tool" status fast >"$tmp/st" || fail "status fast"
{ grep -qF "log use:          [#########...........|...." "$tmp/st" && grep -qF "name:             fast" "$tmp/st"; } ||
	{ cat "$tmp/st"; fail "status fast"; }
"$tool" status fast --watch --count 2 --interval 1 >"$tmp/st" || fail "status --watch"
[ "$(grep -c "^mapped blocks:" "$tmp/st")" = 2 ] || { cat "$tmp/st"; fail "status --watch --count 2"; }
[ "$(grep -c '^status$' "$tmp/dm.log")" = 3 ] || fail "status ran dmsetup status $(grep -c '^status$' "$tmp/dm.log") times, expected 3"
ok "close (--drain), status and status --watch through dmsetup (a stand-in that records its arguments)"

if loopa=$(losetup -f --show "$tmp/one.img" 2>/dev/null) && loops+=("$loopa") &&
	loopb=$(losetup -f --show "$log" 2>/dev/null) && loops+=("$loopb"); then
	"$tool" format "$loopa" --reserved 4M --batch --force >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "format $loopa"; }
	table=$("$tool" table "$loopa")
	[ "$table" = "0 120832 ressd $loopa 2048 $loopa 122880 8192 8 small_write_max 16 high_watermark 50 low_watermark 0 mover_batch 1024" ] ||
		fail "table of $loopa: $table"
	"$tool" check "$loopa" >/dev/null || fail "check $loopa"
	: >"$tmp/dm.log"
	"$tool" open "$loopa" fast >"$tmp/out" || { cat "$tmp/out"; fail "open"; }
	[ "$(cat "$tmp/dm.log")" = "$(printf 'create\nfast\n--table\n%s\n--' "$table")" ] ||
		{ cat "$tmp/dm.log"; fail "open ran dmsetup with other arguments"; }
	: >"$tmp/dm.log"
	"$tool" open "$loopa" ro --readonly >/dev/null || fail "open --readonly"
	[ "$(sed -n 3p "$tmp/dm.log")" = --readonly ] || fail "open --readonly: no --readonly"
	FAKE_DM_RC=1 expect_fail 1 "'dmsetup create fast' failed" "$tool" open "$loopa" fast
	ok "format and check $loopa (a loop device: O_EXCL, O_DIRECT); open runs 'dmsetup create fast --table <table>'"

	# a separate log on a loop device
	"$tool" format "$dev" --log-device "$loopb" --reserved 1M --batch --force >/dev/null || fail "format with $loopb"
	expect_fail 4 "is a regular file" "$tool" open "$dev" fast
	"$tool" check "$dev" >/dev/null || fail "check with the log on $loopb"

	# in use: held with O_EXCL, as device-mapper and md hold theirs
	python3 -c 'import os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL); print("held", flush=True); time.sleep(30)' \
		"$loopa" >"$tmp/held" 2>&1 &
	holder=$!
	for _ in $(seq 50); do grep -q held "$tmp/held" && break; sleep 0.1; done
	before=$(md5 "$tmp/one.img")
	expect_fail 5 "is in use" "$tool" format "$loopa" --reserved 4M --batch --force
	kill $holder
	wait $holder 2>/dev/null
	[ "$(md5 "$tmp/one.img")" = "$before" ] || fail "a refused format wrote to $loopa"
	ok "refused: a block device in use (held with O_EXCL), exit 5, nothing written"

	mkfs.ext4 -q -F "$loopa" >/dev/null 2>&1 || fail "mkfs.ext4 $loopa"
	mkdir -p "$tmp/mnt"
	if mount -o ro "$loopa" "$tmp/mnt" 2>/dev/null; then
		mnt=$tmp/mnt
		expect_fail 5 "is mounted on $tmp/mnt: refusing to format it" "$tool" format "$loopa" --reserved 4M --batch --force
		umount "$mnt"
		mnt=
		ok "refused: a mounted block device (/proc/mounts), exit 5"
	else
		echo "skip: cannot mount here: the mounted-device refusal is not tested"
	fi
else
	echo "skip: no loop devices: open, O_EXCL and mounted refusals on block devices not tested"
fi
unset RESSDSETUP_DMSETUP

# ---- check and dump on generated logs ----
# run_scenario <name> <device> <seed> [generator options]: generate, then
# compare check and dump with what the generator kept.
run_scenario() {
	local s=$1 d=$2 seed=$3 exp=$tmp/expect rc want_rc result stop
	shift 3
	"$mklog" gen "$s" "$d" --seed "$seed" --expect "$exp" "$@" || fail "ressd-mklog gen $s"
	result=$(sed -n 's/^result //p' "$exp")
	stop=$(sed -n 's/^stop //p' "$exp")
	case $result in clean) want_rc=0 ;; problems) want_rc=1 ;; *) want_rc=4 ;; esac
	"$tool" check "$d" >"$tmp/check" 2>&1
	rc=$?
	[ $rc -eq $want_rc ] || { cat "$tmp/check"; fail "$s (seed $seed): check exited $rc, expected $want_rc"; }
	case $result in
	clean) grep -q "^result: clean" "$tmp/check" ;;
	problems) grep -q "^result: [0-9]* problems\? found (exit 1)" "$tmp/check" ;;
	*) grep -q "^result: unusable" "$tmp/check" ;;
	esac || { cat "$tmp/check"; fail "$s: check's result line"; }
	"$tool" dump "$d" --json >"$tmp/dump.json" 2>"$tmp/dump.err"
	rc=$?
	[ $rc -eq $((want_rc == 4 ? 4 : 0)) ] || { cat "$tmp/dump.err"; fail "$s: dump exited $rc"; }
	[ "$result" = unusable ] && return 0
	[ "$(jq -r '.replay | "records \(.records)\nused \(.used)\ntorn \(.torn)\nmapped \(.mapped)\nstop \(.stop)\nstop_slot \(.stop_slot)"' "$tmp/dump.json")" = \
		"$(grep -E '^(records|used|torn|mapped|stop|stop_slot) ' "$exp")" ] ||
		{ jq .replay "$tmp/dump.json"; cat "$exp"; fail "$s (seed $seed): dump's replay differs from the generator's"; }
	diff <(jq -r '.mapping[] | range(0; .length) as $i | "map \(.block + $i) \(.slot + $i)"' "$tmp/dump.json") \
		<(grep '^map ' "$exp") >"$tmp/map.diff" ||
		{ head -20 "$tmp/map.diff"; fail "$s (seed $seed): dump's mapping differs from the generator's"; }
	if [ "$stop" != "the chain fills the log" ]; then
		{ grep -qF "where the record of seq" "$tmp/check" && grep -qF ": $stop" "$tmp/check"; } ||
			{ cat "$tmp/check"; fail "$s: check does not say where and why the chain stops ($stop)"; }
	fi
	"$tool" dump "$d" >"$tmp/dump.txt" 2>/dev/null || fail "$s: dump (text)"
	grep -q "^mapping: $(sed -n 's/^mapped //p' "$exp") blocks in" "$tmp/dump.txt" ||
		{ cat "$tmp/dump.txt"; fail "$s: dump's text mapping line"; }
}

gdev=$tmp/gen-one.img
truncate -s 16M "$gdev"
"$tool" format "$gdev" --reserved 1M --batch >/dev/null || fail "format $gdev"
sdev=$tmp/gen-dev.img slog=$tmp/gen-log.img
truncate -s 8M "$sdev"
truncate -s 1M "$slog"
"$tool" format "$sdev" --log-device "$slog" --log-offset 16K --reserved 128K --batch >/dev/null || fail "format $sdev"
for d in "$gdev" "$sdev"; do
	for s in empty basic newer-checkpoint lost-trailer misplaced-trailer stale-future stale-beyond full torn-data \
		data-rot torn-trailer corrupt-middle sb-one-bad sb-both-bad sb-geometry format-1 bad-checkpoint; do
		run_scenario $s "$d" 7
	done
done
ok "check and dump on generated logs, one device and a separate log: exit codes, the chain's end, dump's mapping = the generator's"
# The search for a record's trailer reaches RESSD_REC_MAX_ITEMS (336) slots
# beyond its start, no further: a log of 510 slots.
wdev=$tmp/gen-window.img
truncate -s 16M "$wdev"
"$tool" format "$wdev" --reserved 2M --batch >/dev/null || fail "format $wdev"
run_scenario window-edge "$wdev" 3
[ "$(jq -r '"\(.replay.stop)|\(.replay.stop_slot)|\(.replay.stop_miss_slot)"' "$tmp/dump.json")" = "sequence break|6|342" ] ||
	{ jq .replay "$tmp/dump.json"; fail "window-edge: the stale trailer 336 slots on is not where the chain stops"; }
run_scenario window-beyond "$wdev" 3
[ "$(jq -r '"\(.replay.stop)|\(.replay.stop_slot)|\(.replay.stop_miss_slot)"' "$tmp/dump.json")" = "no record trailer|6|null" ] ||
	{ jq .replay "$tmp/dump.json"; fail "window-beyond: replay looked more than 336 slots beyond the start"; }
grep -q "a normal end: slots 6..342 hold no record trailer of this log" "$tmp/check" ||
	{ cat "$tmp/check"; fail "window-beyond: check's words"; }
ok "the search for a trailer: a stale one 336 slots beyond the start ends the chain, one 337 slots on is not looked at"
stops=
for seed in $(seq 1 12); do
	run_scenario wrap "$sdev" "$seed"
	stops+="$(sed -n 's/^stop //p' "$tmp/expect")|"
done
# (After a lap the last slot always holds a trailer, so the search from a
# wrapped chain's end finds an earlier lap's trailer: a sequence break.)
case $stops in *"sequence break"*) ;; *) fail "wrap: no seed ended at an earlier lap's trailer" ;; esac
case $stops in *"the chain fills the log"*) ;; *) fail "wrap: no seed ended with a full log" ;; esac
for d in "$gdev" "$sdev"; do
	run_scenario laps "$d" 5
	[ "$(sed -n 's/^stop //p' "$tmp/expect")" = "sequence break" ] || fail "laps: the chain does not end at an earlier lap's record"
	grep -q "record seq [0-9]* of epoch 1, of an earlier lap: a normal end" "$tmp/check" || { cat "$tmp/check"; fail "laps: check's words"; }
done
ok "wrapped logs: 12 seeds of random records (padding, checkpoints before reuse; ends at an earlier lap's trailer and with a full log), and laps that end at an earlier lap's record"

# What check says in words, for a few.
"$mklog" gen corrupt-middle "$sdev" --expect "$tmp/expect" || fail gen
"$tool" check "$sdev" >"$tmp/check"
{ grep -q "the chain ends at slot 8, where the record of seq 3 would start: bad record checksum" "$tmp/check" &&
	grep -q "PROBLEM: the record trailer at slot 11 is torn or corrupt (bad checksum), or data that looks like a trailer" "$tmp/check" &&
	grep -q "PROBLEM: 3 records of the current life lie beyond the end of the chain (the first: seq 4 at slots 12..15" "$tmp/check"; } ||
	{ cat "$tmp/check"; fail "corrupt-middle: check's words"; }
"$mklog" gen torn-data "$sdev" --expect "$tmp/expect" || fail gen
"$tool" check "$sdev" >"$tmp/check"
grep -q "PROBLEM: torn entry: record seq 2 at slots 4..7, entry 1 (block 11, slot 5)" "$tmp/check" ||
	{ cat "$tmp/check"; fail "torn-data: check's words"; }
"$mklog" gen stale-future "$sdev" --expect "$tmp/expect" || fail gen
"$tool" check "$sdev" >"$tmp/check"
grep -q "a record left from before the last recovery" "$tmp/check" || { cat "$tmp/check"; fail "stale-future: check's words"; }
"$mklog" gen stale-beyond "$sdev" --expect "$tmp/expect" || fail gen
"$tool" check "$sdev" >"$tmp/check"
{ grep -q "where the record of seq 7 would start: sequence break" "$tmp/check" &&
	grep -q "holds record seq 8 of epoch 1, from before the last recovery" "$tmp/check"; } ||
	{ cat "$tmp/check"; fail "stale-beyond: check's words"; }
"$mklog" gen lost-trailer "$sdev" --expect "$tmp/expect" || fail gen
"$tool" check "$sdev" >"$tmp/check" || { cat "$tmp/check"; fail "lost-trailer: check is not clean"; }
grep -q "the chain ends at slot 16, where the record of seq 5 would start: no record trailer" "$tmp/check" ||
	{ cat "$tmp/check"; fail "lost-trailer: check's words"; }
"$mklog" gen misplaced-trailer "$sdev" --expect "$tmp/expect" || fail gen
"$tool" check "$sdev" >"$tmp/check"
grep -q "PROBLEM: the record trailer at slot 8 has the sequence number the chain wants, but its data starts at slot 7, not 6" "$tmp/check" ||
	{ cat "$tmp/check"; fail "misplaced-trailer: check's words"; }
"$mklog" gen bad-checkpoint "$sdev" --expect "$tmp/expect" || fail gen
expect_fail 4 '"Log checkpoint does not match the log"' "$tool" check "$sdev"
"$mklog" gen sb-both-bad "$sdev" --expect "$tmp/expect" || fail gen
expect_fail 4 'no valid superblock: dm-ressd refuses the log with "Bad superblock checksum"' "$tool" check "$sdev"
"$mklog" gen format-1 "$sdev" --expect "$tmp/expect" || fail gen
expect_fail 4 'no valid superblock: dm-ressd refuses the log with "Unsupported on-disk format version"' "$tool" check "$sdev"
grep -qF "(format version 1, supported 2..2)" "$tmp/out" || { cat "$tmp/out"; fail "format-1: check's words"; }
"$mklog" gen sb-geometry "$sdev" --expect "$tmp/expect" || fail gen
expect_fail 4 '"Superblock geometry does not match the table"' "$tool" check "$sdev"
expect_fail 4 "label: no ressd label" "$tool" check "$sw"
expect_fail 8 "cannot open" "$tool" check "$tmp/nonexistent"
expect_fail 8 "cannot open" "$tool" check "$sdev" --log-device "$tmp/nonexistent"
expect_fail 16 "give a device with a ressd label" "$tool" check
expect_fail 16 "unknown option" "$tool" check "$sdev" --frob
ok "check's words for a corrupt trailer, lost records, a torn entry, stale records, a lost and a misplaced trailer, a format-1 log; exit 4, 8 and 16"

# The format rule, unknown ro_compat features and the epoch bound, as the
# kernel judges them: $sdev's log is $slog at 16 KiB (sector 32).
sb="python3 $top/tests/lib/sbtool.py"
zero_copy() { dd if=/dev/zero of="$slog" bs=4k seek=$((4 + $1)) count="${2:-1}" conv=notrunc status=none; }
"$mklog" gen basic "$sdev" --expect "$tmp/expect" || fail gen
zero_copy 0
"$tool" check "$sdev" >"$tmp/check" 2>&1
{ grep -q "superblock A: INVALID: Bad superblock magic" "$tmp/check" &&
	grep -q "log: dm-ressd loads superblock B" "$tmp/check" &&
	! grep -q "formats a new log" "$tmp/check"; } ||
	{ cat "$tmp/check"; fail "copy A zero, copy B valid: check must load copy B, not format"; }
[ "$("$tool" dump "$sdev" --json 2>/dev/null | jq -r '"\(.log_empty) \(.best)"')" = "false 1" ] ||
	fail "copy A zero, copy B valid: dump must say best 1, not an empty log"
$sb patch "$slog" 32 1 magic=0
expect_fail 4 'no valid superblock: dm-ressd refuses the log with "Bad superblock magic"' "$tool" check "$sdev"
zero_copy 0 2
"$tool" check "$sdev" >"$tmp/check" 2>&1 || { cat "$tmp/check"; fail "both copies zero: check is not clean"; }
grep -q "both superblock copies) are zero: dm-ressd formats a new log" "$tmp/check" ||
	{ cat "$tmp/check"; fail "both copies zero: check's words"; }
[ "$("$tool" dump "$sdev" --json 2>/dev/null | jq -r .log_empty)" = true ] || fail "both copies zero: dump's log_empty"
"$mklog" gen basic "$sdev" --expect "$tmp/expect" || fail gen
$sb patch "$slog" 32 0 ro_compat=0x4
$sb patch "$slog" 32 1 ro_compat=0x4
expect_fail 1 'read-only compatible features this version does not know (4): dm-ressd refuses a writable table with "Unknown read-only compatible feature: use a read-only table"' \
	"$tool" check "$sdev"
"$mklog" gen basic "$sdev" --expect "$tmp/expect" || fail gen
$sb patch "$slog" 32 0 epoch=$((1 << 62))
$sb patch "$slog" 32 1 epoch=0xffffffffffffffff
expect_fail 4 'no valid superblock: dm-ressd refuses the log with "Superblock checkpoint out of range"' "$tool" check "$sdev"
grep -qF "(epoch 4611686018427387904 above 4611686018427387903)" "$tmp/out" ||
	{ cat "$tmp/out"; fail "epoch 2^62: check's words"; }
$sb patch "$slog" 32 0 epoch=$(((1 << 62) - 1))
"$tool" check "$sdev" >"$tmp/check" 2>&1
grep -q "superblock A: valid" "$tmp/check" || { cat "$tmp/check"; fail "epoch 2^62 - 1 is valid"; }
ok "the format rule (both copies zero formats, copy A zero alone loads copy B), unknown ro_compat features (a writable table is refused), epochs from 2^62 refused"

# The copy that lost the load may have been the newer (it is invalid, or
# not the generation before): dm-ressd then looks through the log for
# records only a newer superblock allows, and refuses the log when it finds
# one (dm-ressd-meta.c, ressd_meta_check_newer()).  basic's copy B holds the
# checkpoint at slot 12 seq 5, written to one copy (as dm-ressd did before
# it wrote each state to both); copy A the one before, at slot 0 seq 1,
# whose slots the log has reused since.
"$mklog" gen basic "$sdev" --expect "$tmp/expect" || fail gen
zero_copy 1
expect_fail 4 'and superblock B, which may have been the newest, is invalid: dm-ressd refuses the log with "Log is newer than its superblock: the newest copy is damaged"' \
	"$tool" check "$sdev"
grep -qF "1 records of the log are newer than superblock A (the first: seq 10 at slot 8, epoch 1, checkpoint seq 5; the superblock: epoch 1, checkpoint seq 1)" "$tmp/out" ||
	{ cat "$tmp/out"; fail "the newer log: check's words"; }
# Copy A valid but two generations behind: copy B wins, and no record is newer.
"$mklog" gen basic "$sdev" --expect "$tmp/expect" || fail gen
$sb patch "$slog" 32 0 generation=1
"$tool" check "$sdev" >"$tmp/check" 2>&1 || { cat "$tmp/check"; fail "copy A two generations behind: check is not clean"; }
ok "a log newer than the superblock that wins, where the other copy may have been the newer, is refused"

# ---- against the kernel's replay: tests/fuzz's seed logs ----
fz=$tmp/fuzz
ksrc=
if ver=$(ressd_source_version 6.1) && [ -e "$RESSD_CACHE/linux-source-$ver/.extracted" ]; then
	ksrc=$RESSD_CACHE/linux-source-$ver
fi
{ make -s -C "$top/tests/fuzz" OUT="$fz" KSRC="$ksrc" "$fz/linux/.stamp" &&
	make -s -C "$top/tests/fuzz" OUT="$fz" KSRC="$ksrc" "$fz/gen-corpus"; } >"$tmp/fuzz.log" 2>&1 ||
	{ tail -20 "$tmp/fuzz.log"; fail "building tests/fuzz's gen-corpus"; }
"$fz/gen-corpus" "$fz/replay" "$fz/record" "$fz/index" >"$fz/seeds.txt" 2>&1 ||
	{ cat "$fz/seeds.txt"; fail "gen-corpus"; }
n=0
while read -r name want; do
	out=$("$mklog" expand "$fz/replay/$name" "$tmp/seed.img") || fail "expand $name"
	off=${out#log_offset_bytes=}
	"$tool" dump --log-device "$tmp/seed.img" --log-offset "$off" --json >"$tmp/seed.json" 2>/dev/null ||
		fail "dump of the seed log $name"
	mine=$(jq -r '"\(.best)|\(.replay.records)|\(.replay.entries)|\(.replay.torn)|\(.replay.invalidated)|\(.replay.mapped)|\(.replay.used)|\(.replay.stop)"' "$tmp/seed.json")
	[ "$mine" = "$want" ] || fail "seed log $name: ressdsetup finds $mine, the kernel's replay $want (sb|records|entries|torn|invalidated|mapped|used|stop)"
	"$tool" check --log-device "$tmp/seed.img" --log-offset "$off" >"$tmp/check" 2>&1
	rc=$?
	# Problems for check: torn entries, a damaged superblock copy, a chain
	# longer than the log, a broken trailer (or a look-alike in data: check
	# cannot tell) where the chain ends, records beyond a lost trailer,
	# sequence numbers at the top of their range (a writable table is
	# refused: its records would take numbers replay refuses).
	case $name in torn-last | torn-ordered | torn-superblock | zero-copy-a | overrun | torn-lookalike | lost-trailer | high-seq) want_rc=1 ;; *) want_rc=0 ;; esac
	[ $rc -eq $want_rc ] || { cat "$tmp/check"; fail "check of the seed log $name exited $rc, expected $want_rc"; }
	n=$((n + 1))
done < <(sed -nE 's/^ +([a-z-]+) .* sb (-?[0-9]+), +([0-9]+) records +([0-9]+) entries +([0-9]+) torn +([0-9]+) invalidated +([0-9]+) mapped +[0-9]+ extents, used +([0-9]+), stop: (.*)$/\1 \2|\3|\4|\5|\6|\7|\8|\9/p' "$fz/seeds.txt")
[ $n -ge 15 ] || fail "only $n seed logs from gen-corpus"
ok "the $n seed logs of tests/fuzz: ressdsetup's replay finds what dm-ressd-format.c's replay finds (copy, records, entries, torn, invalidated, mapped, used, stop)"

echo "ressdsetup: all checks passed"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ressdsetup against the kernel target, in a guest (tests/functional conventions):
#
#   make -C tools/ressdsetup
#   bash scripts/test-guest.sh vm  tools/ressdsetup/tests/guest-ressdsetup.sh
#   bash scripts/test-guest.sh uml tools/ressdsetup/tests/guest-ressdsetup.sh
#
# format, open (the kernel formats the log), small random writes, status in
# words and JSON against the raw dmsetup status, close; then check and dump
# on the log the kernel wrote: dump must predict the kernel's own recovery
# message on the next open exactly, and every mapped log slot must hold the
# data written to its block; the data reads back; close --drain empties the
# log; a separate log device; a damaged log that both the kernel and
# check refuse with the same message; ext4 made on an opened device, its
# files intact after umount, close and open (fsck clean, dump agrees with
# status); and the refusals of a device in use, mounted, or unlabelled.
# shellcheck source=tests/lib/testlib.sh source-path=SCRIPTDIR/../../.. disable=SC1091
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
T=$RESSD_TOP/tools/ressdsetup/ressdsetup
[ -x "$T" ] || fail "build the tool first: make -C tools/ressdsetup"
command -v jq >/dev/null || fail "jq is missing"

majmin() { printf '%d:%d' "0x$(stat -c %t "$1")" "0x$(stat -c %T "$1")"; }
declare -A tag=()

# write_blocks <dev> <n> <first tag>: n 4 KiB writes at scattered blocks.
write_blocks() {
	local dev=$1 n=$2 t=$3 i b nblocks
	nblocks=$(($(blockdev --getsz "$dev") / 8))
	for ((i = 0; i < n; i++)); do
		b=$(((i * 2654435761 + t) % nblocks))
		tag[$b]=w$((t + i))
		make_block "${tag[$b]}" "$b" | dd of="$dev" bs=4096 seek="$b" count=1 oflag=direct \
			conv=notrunc status=none || fail "write block $b"
	done
}

# verify_blocks <dev>: every written block reads back.
verify_blocks() {
	local b
	for b in "${!tag[@]}"; do
		cmp -s <(dd if="$1" bs=4096 skip="$b" count=1 iflag=direct status=none) \
			<(make_block "${tag[$b]}" "$b") || fail "block $b does not read back from $1"
	done
}

# verify_log <log dev> <dump.json>: each mapped slot holds its block's data.
verify_log() {
	local dev=$1 json=$2 loff block slot n=0
	loff=$(jq .label.log_offset "$json")
	while read -r block slot; do
		cmp -s <(dd if="$dev" bs=4096 skip=$((loff / 8 + 2 + slot)) count=1 iflag=direct status=none) \
			<(make_block "${tag[$block]}" "$block") ||
			fail "log slot $slot does not hold the newest data of block $block"
		n=$((n + 1))
	done < <(jq -r '.mapping[] | range(0; .length) as $i | "\(.block + $i) \(.slot + $i)"' "$json")
	echo "  $n mapped log slots hold their blocks' newest data"
}

note "format $A, open: the kernel formats the log"
zero_at "$A" 1024 0
"$T" format "$A" --reserved 64M --batch --force || fail "format"
"$T" check "$A" || fail "check of a fresh format"
table=$("$T" table "$A")
kmsg_take "the steps before line $LINENO"
"$T" open "$A" r1 || { dmesg | tail; fail "open"; }
slots=$(($(cut -d' ' -f8 <<<"$table") / 8 - 2))
dmesg | grep -q "formatted a new log of $slots slots" || { dmesg | tail; fail "no format message"; }
[ "$(dmsetup table r1)" = "${table//$A/$(majmin "$A")}" ] ||
	fail "dmsetup table: $(dmsetup table r1); ressdsetup table: $table"

note "small random writes; status against the raw status line"
write_blocks /dev/mapper/r1 300 0
dmsetup message r1 0 commit || fail "commit"
raw=$(dmsetup status r1)
"$T" status r1 --json >"$TMPDIR/st.json" || fail "status --json"
"$T" status r1 || fail "status"
read -r _ _ _ ut mapped idx red dir _ <<<"$raw"
[ "$(jq -r '"\(.used_slots)/\(.total_slots) \(.mapped_blocks) \(.index_bytes) \(.redirected_writes) \(.direct_writes)"' "$TMPDIR/st.json")" = \
	"$ut $mapped $idx $red $dir" ] || fail "status --json differs from '$raw'"
[ "$mapped" -gt 250 ] || fail "only $mapped blocks in the log after 300 small random writes"
[ "$(jq -r .mode "$TMPDIR/st.json")" = rw ] || fail "mode"
"$T" status r1 --watch --count 2 --interval 1 >/dev/null || fail "status --watch"

note "close; check and dump the kernel's log; dump predicts the recovery"
"$T" close r1 || fail "close"
"$T" check "$A" >"$TMPDIR/check" || { cat "$TMPDIR/check"; fail "check after close"; }
cat "$TMPDIR/check"
"$T" dump "$A" --json >"$TMPDIR/dump.json" || fail "dump"
[ "$(jq .replay.mapped "$TMPDIR/dump.json")" = "$mapped" ] ||
	fail "dump maps $(jq .replay.mapped "$TMPDIR/dump.json") blocks, the target had $mapped"
verify_log "$A" "$TMPDIR/dump.json"
want=$(jq -r '.replay | "recovered \(.records) records: \(.mapped) blocks in the log, \(.torn) torn, \(.used)/\(.nr_slots) slots used (\(.stop))"' "$TMPDIR/dump.json")
kmsg_take "the steps before line $LINENO"
"$T" open "$A" r1 || fail "reopen"
dmesg | grep -qF "$want" || { dmesg | tail; fail "the kernel did not say: $want"; }
echo "  the kernel said what dump predicted: $want"
verify_blocks /dev/mapper/r1

note "close --drain: the log empties, the normal area holds the data"
"$T" close r1 --drain || fail "close --drain"
"$T" dump "$A" --json >"$TMPDIR/dump.json" || fail "dump after drain"
[ "$(jq .replay.mapped "$TMPDIR/dump.json")" = 0 ] || fail "blocks left in the log after drain"
"$T" check "$A" >/dev/null || fail "check after drain"
dmsetup create lin --table "0 $(jq .label.origin_sectors "$TMPDIR/dump.json") linear $A 2048" || fail "linear"
verify_blocks /dev/mapper/lin
dmsetup remove lin

note "a separate log device"
tag=()
zero_at "$B" 64 0
"$T" format "$A" --log-device "$B" --reserved 32M --batch --force || fail "format with $B"
"$T" open "$A" r2 || fail "open r2"
write_blocks /dev/mapper/r2 100 1000
mapped=$(status_field r2 2)
"$T" close r2 || fail "close r2"
"$T" check "$A" >/dev/null || fail "check with $B"
"$T" dump "$A" --json >"$TMPDIR/dump.json" || fail "dump with $B"
[ "$(jq .replay.mapped "$TMPDIR/dump.json")" = "$mapped" ] || fail "dump with $B: mapped"
verify_log "$B" "$TMPDIR/dump.json"

note "a damaged log: the kernel and check refuse it with the same message"
printf '\1' | dd of="$B" bs=1 seek=300 conv=notrunc status=none
printf '\1' | dd of="$B" bs=1 seek=$((4096 + 300)) conv=notrunc status=none
sync
kmsg_take "the steps before line $LINENO"
"$T" open "$A" r3 2>/dev/null && { "$T" close r3; fail "opened a log with both superblocks damaged"; }
dmesg | grep -q "Bad superblock checksum" || { dmesg | tail; fail "the kernel's reason"; }
"$T" check "$A" >"$TMPDIR/check"
[ $? -eq 4 ] || fail "check did not call the damaged log unusable"
grep -q 'dm-ressd refuses the log with "Bad superblock checksum"' "$TMPDIR/check" || fail "check's reason"
note "ext4 (data_csum 0): format, open, mkfs, mount, files, umount, close, open, files intact"
M=/run/ressd-mnt
mkdir -p "$M"
"$T" format "$A" --reserved 32M --data-csum 0 --batch --force >/dev/null || fail "format for ext4"
table=$("$T" table "$A")
"$T" open "$A" fs || fail "open fs"
[ "$(dmsetup table fs)" = "${table//$A/$(majmin "$A")}" ] ||
	fail "dmsetup table: $(dmsetup table fs); ressdsetup table: $table"
[ "${table% data_csum 0}" != "$table" ] || fail "no data_csum 0 in the table: $table"
mkfs.ext4 -q -F /dev/mapper/fs || fail "mkfs.ext4"
mount /dev/mapper/fs "$M" || fail "mount"
for ((i = 0; i < 200; i++)); do
	head -c $(((i * 7919) % 60000 + 1)) /dev/urandom >"$M/f$i" || fail "write f$i"
done
for ((i = 0; i < 50; i++)); do	# small rewrites inside files
	printf 'rewrite %d' "$i" | dd of="$M/f$((i * 3))" bs=1 seek=$((i * 13)) conv=notrunc status=none
done
(cd "$M" && sha256sum f*) >"$TMPDIR/sums" || fail "sha256sum"
fsst=$(dmsetup status fs)
umount "$M" || fail "umount"
mapped=$(status_field fs 2)
read -r _ _ _ _ _ _ red _ <<<"$(dmsetup status fs)"
echo "  200 files written; status before umount: $fsst"
[ "$red" -gt 0 ] || fail "no write was redirected to the log"
"$T" close fs || fail "close fs"
"$T" dump "$A" --json >"$TMPDIR/dump.json" || fail "dump after ext4"
[ "$(jq .replay.mapped "$TMPDIR/dump.json")" = "$mapped" ] ||
	fail "dump maps $(jq .replay.mapped "$TMPDIR/dump.json") blocks, status said $mapped"
"$T" check "$A" >/dev/null || fail "check after ext4"
"$T" open "$A" fs || fail "open fs again"
fsck.ext4 -n -f /dev/mapper/fs >"$TMPDIR/fsck" 2>&1 || { cat "$TMPDIR/fsck"; fail "fsck.ext4 after reopen"; }
mount /dev/mapper/fs "$M" || fail "mount again"
(cd "$M" && sha256sum -c --quiet "$TMPDIR/sums") || fail "files differ after close and open"
echo "  after close and open: 200 files intact, fsck clean, $mapped blocks in the log (dump agrees)"

note "refusals while in use"
# expect_rc <exit code> <message part> <command...>
expect_rc() {
	local want=$1 msg=$2 rc
	shift 2
	"$@" >"$TMPDIR/out" 2>&1
	rc=$?
	[ $rc -eq "$want" ] || { cat "$TMPDIR/out"; fail "'$*' exited $rc, not $want"; }
	grep -qF -- "$msg" "$TMPDIR/out" || { cat "$TMPDIR/out"; fail "'$*' did not say: $msg"; }
	echo "  refused ($rc): $* -> $(grep -F -- "$msg" "$TMPDIR/out" | head -n1)"
}
expect_rc 5 "is in use" "$T" format "$A" --reserved 32M --batch --force
expect_rc 5 "is in use (already open" "$T" open "$A" fs2
dmsetup info fs2 >/dev/null 2>&1 && fail "a second device on the same label was created"
umount "$M" || fail "umount again"
"$T" close fs || fail "close fs again"
mkfs.ext4 -q -F "$B" && mount "$B" "$M" || fail "mount ext4 on $B"
expect_rc 5 "is mounted on $M" "$T" format "$B" --reserved 32M --batch --force
umount "$M"
expect_rc 1 "contains an ext4 file system: refusing to format it" "$T" format "$B" --reserved 32M --batch
expect_rc 4 "no ressd label" "$T" open "$B" nolabel
expect_rc 4 "no ressd label" "$T" check "$B"
expect_rc 1 "is not a valid device-mapper name" "$T" open "$A" "a/b"
expect_rc 1 "'dmsetup remove nosuch' failed" "$T" close nosuch
expect_rc 4 "'dmsetup status nosuch' failed" "$T" status nosuch

echo "ok: ressdsetup against the kernel target"

#!/bin/bash
# The format rule: an all-zero log is formatted, a valid one is loaded (from
# the newest valid copy), anything else is refused with a specific message,
# and the target never reformats on its own.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
LOGSZ=65536
T="0 $DISK_A_SECTORS ressd $A 0 $B 0 $LOGSZ"
SB="python3 $RESSD_TOP/tests/lib/sbtool.py"
field() { $SB show "$B" 0 "$1" | sed -n "s/^$2=//p"; }

note "an all-zero log is formatted"
zero_at "$B" 64 0
dmesg -C
dm_create f "$T"
dmesg | grep -q "formatted a new log of $((LOGSZ / 8 - 2)) slots" || fail "no format message"
dm_remove f
[ "$(head -c 8 "$B")" = "ReSSD-sb" ] || fail "copy A has no magic"
[ "$(field 0 csum_ok)" = 1 ] && [ "$(field 1 csum_ok)" = 1 ] || fail "checksums of the new copies"
nonce=$(field 0 nonce)
[ "$nonce" = "$(field 1 nonce)" ] || fail "copies carry different nonces"
[ "$(field 1 generation)" != "$(field 0 generation)" ] || fail "both copies have one generation"

# The copy with the higher generation (every activation writes one).
newest() { [ "$(field 0 generation)" -gt "$(field 1 generation)" ] && echo 0 || echo 1; }

note "a valid log is loaded, not formatted"
n=$(newest)
dmesg -C
dm_create f "$T"
dm_remove f
dmesg | grep -q "loaded superblock $n" || { dmesg; fail "did not load the newest copy $n"; }
dmesg | grep -q "formatted" && fail "reformatted a valid log"
[ "$(field 0 nonce)" = "$nonce" ] || fail "nonce changed"

note "a damaged newest copy: the other one is used"
n=$(newest)
o=$((1 - n))
$SB patch "$B" 0 $n tail_seq=99 --keep-csum
dmesg -C
dm_create f "$T"
dmesg | grep -q "loaded superblock $o" || { dmesg; fail "did not fall back to copy $o"; }
dmesg | grep -q "superblock $n: checksum" || fail "no message about copy $n's checksum"
dm_remove f

note "both copies damaged: refused, nothing written"
$SB patch "$B" 0 0 tail_seq=99 --keep-csum
$SB patch "$B" 0 1 tail_seq=99 --keep-csum
before=$(md5sum <"$B" | head -c 32)
expect_ctr_error "$T" "Bad superblock checksum"
[ "$(md5sum <"$B" | head -c 32)" = "$before" ] || fail "a refused log was written to"

note "each field check, on copy A with copy B broken"
zero_at "$B" 64 0
dm_create f "$T"
dm_remove f
$SB patch "$B" 0 1 magic=0			# copy B: bad magic
$SB patch "$B" 0 0 version=3			# newer than this module
expect_ctr_error "$T" "Unsupported on-disk format version"
$SB patch "$B" 0 0 version=1			# format 1 (header-first records)
expect_ctr_error "$T" "Unsupported on-disk format version"
$SB patch "$B" 0 0 version=2 incompat=0x10
expect_ctr_error "$T" "Unknown incompatible feature"
$SB patch "$B" 0 0 incompat=0 location=1
expect_ctr_error "$T" "Superblock at the wrong location"
$SB patch "$B" 0 0 location=0 block_size=512
expect_ctr_error "$T" "Unsupported block size"
$SB patch "$B" 0 0 block_size=4096 tail_slot=$((LOGSZ / 8))
expect_ctr_error "$T" "Superblock checkpoint out of range"
$SB patch "$B" 0 0 tail_slot=0 origin_sectors=8
expect_ctr_error "$T" "Superblock geometry does not match the table"
$SB patch "$B" 0 0 origin_sectors=$DISK_A_SECTORS nr_slots=7
expect_ctr_error "$T" "Superblock geometry does not match the table"
$SB patch "$B" 0 0 nr_slots=$((LOGSZ / 8 - 2))
dm_create f "$T"				# repaired copy A loads again
dm_remove f

note "another geometry than the table's is refused"
expect_ctr_error "0 $DISK_A_SECTORS ressd $A 0 $B 0 $((LOGSZ * 2))" "Superblock geometry does not match the table"
expect_ctr_error "0 $((DISK_A_SECTORS - 8)) ressd $A 0 $B 0 $LOGSZ" "Superblock geometry does not match the table"

note "garbage is refused with the magic message"
dd if=/dev/urandom of="$B" bs=4k count=2 oflag=direct status=none
expect_ctr_error "$T" "Bad superblock magic"

note "zeroing the first 4 KiB starts afresh with a new nonce"
zero_at "$B" 4 0
dmesg -C
dm_create f "$T"
dm_remove f
dmesg | grep -q "formatted a new log" || fail "zeroed copy A did not format"
[ "$(field 0 nonce)" != "$nonce" ] || fail "the new volume kept the old nonce"

note "a read-only table recovers without writing, in ro mode"
zero_at "$B" 8 0
dm_create f "$T"
dm_remove f
before=$(md5sum <"$B" | head -c 32)
dmsetup create fro --readonly --table "$T" || fail "read-only table on a valid log"
dmsetup mknodes fro
[ "$(status_field fro 10)" = ro ] || fail "mode of a read-only table: $(status_field fro 10)"
dd if=/dev/mapper/fro of=/dev/null bs=4k count=16 iflag=direct status=none || fail "read through ro"
dmsetup remove --retry fro
[ "$(md5sum <"$B" | head -c 32)" = "$before" ] || fail "a read-only table wrote to the log"

note "a read-only table does not format"
zero_at "$B" 8 0
if dmsetup create fro --readonly --table "$T" >/dev/null 2>&1; then
	dmsetup remove --retry fro
	fail "formatted through a read-only table"
fi
dmesg | grep -q "Cannot format a read-only log" || fail "no read-only message"
echo "format rule holds"

#!/bin/bash
# The format rule: a log whose two superblock copies (its first 8 KiB) are
# all zero is formatted, a valid one is loaded (from the newest valid copy,
# also when the other copy reads back as zeros), anything else is refused
# with a specific message, and the target never reformats on its own.
# Unknown read-only compatible features allow only a read-only table.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
LOGSZ=65536
T="0 $DISK_A_SECTORS ressd $A 0 $B 0 $LOGSZ"
SB="python3 $RESSD_TOP/tests/lib/sbtool.py"
field() { $SB show "$B" 0 "$1" | sed -n "s/^$2=//p"; }

note "an all-zero log is formatted"
zero_at "$B" 64 0
kmsg_take "the steps before line $LINENO"
dm_create f "$T"
dmesg | grep -q "formatted a new log of $((LOGSZ / 8 - 2)) slots" || fail "no format message"
dm_remove f
[ "$(head -c 8 "$B")" = "ReSSD-sb" ] || fail "copy A has no magic"
[ "$(field 0 csum_ok)" = 1 ] && [ "$(field 1 csum_ok)" = 1 ] || fail "checksums of the new copies"
nonce=$(field 0 nonce)
[ "$nonce" = "$(field 1 nonce)" ] || fail "copies carry different nonces"
[ "$(field 1 generation)" != "$(field 0 generation)" ] || fail "both copies have one generation"

# The copy with the higher generation (every activation writes both, in turn).
newest() { [ "$(field 0 generation)" -gt "$(field 1 generation)" ] && echo 0 || echo 1; }

# ro_table_reads <what>: a read-only table loads the log in ro mode, reads
# through it, and writes nothing to the log.
ro_table_reads() {
	local before
	before=$(md5sum <"$B" | head -c 32)
	dmsetup create fro --readonly --table "$T" || fail "read-only table $1"
	dmsetup mknodes fro
	[ "$(status_field fro 10)" = ro ] || fail "mode of a read-only table $1: $(status_field fro 10)"
	dd if=/dev/mapper/fro of=/dev/null bs=4k count=16 iflag=direct status=none ||
		fail "read through a read-only table $1"
	dmsetup remove --retry fro
	[ "$(md5sum <"$B" | head -c 32)" = "$before" ] || fail "a read-only table $1 wrote to the log"
}

note "a valid log is loaded, not formatted"
n=$(newest)
kmsg_take "the steps before line $LINENO"
dm_create f "$T"
dm_remove f
dmesg | grep -q "loaded superblock $n" || { dmesg; fail "did not load the newest copy $n"; }
dmesg | grep -q "formatted" && fail "reformatted a valid log"
[ "$(field 0 nonce)" = "$nonce" ] || fail "nonce changed"

note "a damaged newest copy: the other one is used"
n=$(newest)
o=$((1 - n))
$SB patch "$B" 0 $n tail_seq=99 --keep-csum
kmsg_take "the steps before line $LINENO"
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
$SB patch "$B" 0 0 nr_slots=$((LOGSZ / 8 - 2)) epoch=$((1 << 62))
expect_ctr_error "$T" "Superblock checkpoint out of range"	# recovery's epoch + 1 must not wrap
$SB patch "$B" 0 0 epoch=0xffffffffffffffff
expect_ctr_error "$T" "Superblock checkpoint out of range"
dmesg | grep -q "superblock 0: epoch 18446744073709551615 above" || fail "no message about the epoch"
$SB patch "$B" 0 0 epoch=4 tail_epoch=5	# the chain's epoch at the checkpoint: not above
expect_ctr_error "$T" "Superblock checkpoint out of range"
dmesg | grep -q "superblock 0: checkpoint epoch 5 above the epoch 4" ||
	fail "no message about the checkpoint epoch"
$SB patch "$B" 0 0 epoch=0 tail_epoch=0 ro_compat=0x1
expect_ctr_error "$T" "Unknown read-only compatible feature: use a read-only table"
ro_table_reads "with an unknown ro_compat feature"
$SB patch "$B" 0 0 ro_compat=0
dm_create f "$T"				# repaired copy A loads again
dm_remove f

note "another geometry than the table's is refused"
expect_ctr_error "0 $DISK_A_SECTORS ressd $A 0 $B 0 $((LOGSZ * 2))" "Superblock geometry does not match the table"
expect_ctr_error "0 $((DISK_A_SECTORS - 8)) ressd $A 0 $B 0 $LOGSZ" "Superblock geometry does not match the table"

note "garbage is refused with the magic message"
dd if=/dev/urandom of="$B" bs=4k count=2 oflag=direct status=none
expect_ctr_error "$T" "Bad superblock magic"

note "zeroing the first 8 KiB (both copies) starts afresh with a new nonce"
zero_at "$B" 8 0
kmsg_take "the steps before line $LINENO"
dm_create f "$T"
dm_remove f
dmesg | grep -q "formatted a new log" || fail "zeroed copies did not format"
[ "$(field 0 nonce)" != "$nonce" ] || fail "the new volume kept the old nonce"

note "only copy A zero (a lost or torn write of it): loaded from copy B with its data"
# Data that lives only in the log (the mover stays off), then copy A reads
# back as zeros.  Formatting would drop the data and change the nonce.
nonce=$(field 0 nonce)
TD="$T 2 high_watermark 100"
dm_create f "$TD"
for blk in 3 77 1000 4242; do
	make_block zeroA "$blk" >"$TMPDIR/blk.$blk"
	dd if="$TMPDIR/blk.$blk" of=/dev/mapper/f bs=4k seek=$blk count=1 oflag=direct,sync \
		status=none || fail "writing block $blk"
done
dmsetup message f 0 commit || fail "commit"
[ "$(status_field f 2)" -ge 4 ] || fail "the blocks are not in the log: $(status_field f 2) mapped"
dm_remove f
# A torn write of copy A leaves copy B the newest: each state is written
# to A, then to B, so B holds the newest generation.
[ "$(newest)" = 1 ] || fail "copy B does not hold the newest generation"
zero_at "$B" 4 0
[ "$(field 1 csum_ok)" = 1 ] || fail "copy B is not valid"
kmsg_take "the steps before line $LINENO"
dm_create f "$TD"
dmesg | grep -q "formatted" && fail "formatted although copy B is valid: acknowledged data dropped"
dmesg | grep -q "loaded superblock 1" || { dmesg | tail -n 5; fail "did not load copy B"; }
[ "$(field 1 nonce)" = "$nonce" ] || fail "nonce changed: $(field 1 nonce), was $nonce"
[ "$(status_field f 2)" -ge 4 ] || fail "the log lost its blocks: $(status_field f 2) mapped"
for blk in 3 77 1000 4242; do
	dd if=/dev/mapper/f bs=4k skip=$blk count=1 iflag=direct status=none |
		cmp -s - "$TMPDIR/blk.$blk" || fail "block $blk lost its data"
	dd if="$A" bs=4k skip=$blk count=1 iflag=direct status=none |
		cmp -s - "$TMPDIR/blk.$blk" && fail "block $blk is home: the test did not reach the log"
done
dm_remove f

note "only copy A zero, copy B invalid: refused with copy A's reason, nothing written"
zero_at "$B" 4 0
$SB patch "$B" 0 1 magic=0
before=$(md5sum <"$B" | head -c 32)
expect_ctr_error "$T" "Bad superblock magic"
[ "$(md5sum <"$B" | head -c 32)" = "$before" ] || fail "a refused log was written to"

note "a read-only table recovers without writing, in ro mode"
zero_at "$B" 8 0
dm_create f "$T"
dm_remove f
ro_table_reads "on a valid log"

note "a read-only table does not format"
zero_at "$B" 8 0
if dmsetup create fro --readonly --table "$T" >/dev/null 2>&1; then
	dmsetup remove --retry fro
	fail "formatted through a read-only table"
fi
dmesg | grep -q "Cannot format a read-only log" || fail "no read-only message"

note "a log range is used by one target: others are refused, a reload is not"
zero_at "$B" 8 0
zero_at "$B" 8 $((3 * LOGSZ))
dm_create f "$T"
# The same log, an overlapping one, and a normal area over f's log.
expect_ctr_error "$T" "Log range in use by another ressd target"
expect_ctr_error "0 $((DISK_A_SECTORS / 2)) ressd $A 0 $B $((LOGSZ / 2)) $LOGSZ" \
	"Log range in use by another ressd target"
expect_ctr_error "0 $LOGSZ ressd $B 0 $B $((3 * LOGSZ)) $LOGSZ" \
	"Log range in use by another ressd target"
# A separate range of the same devices is fine.
dm_create g "0 $LOGSZ ressd $B $((2 * LOGSZ)) $B $((3 * LOGSZ)) $LOGSZ"
dm_remove g
dmsetup reload f --table "$T" || fail "reload of f with its own table"
dmsetup suspend f && dmsetup resume f || fail "swap in f's reloaded table"
[ "$(status_field f 10)" = rw ] || fail "f after the reload: $(dmsetup status f)"
dm_remove f
dm_create g "$T"	# the range is free again
dm_remove g
echo "format rule holds"

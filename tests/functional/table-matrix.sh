#!/bin/bash
# The table line: every malformed line is refused with its own message, good
# lines for the same-device and two-device layouts work, and TABLE status
# round-trips the line (docs: Documentation/dm-ressd.rst, "Constructor").
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
LOGSZ=131072				# 64 MiB log
L=$((DISK_A_SECTORS - LOGSZ))		# origin length on A, log after it
LOGOFF=$L
zero_at "$A" 8 "$LOGOFF"
zero_at "$B" 8 0

base="0 $L ressd $A 0 $A $LOGOFF $LOGSZ"
big=18446744073709551616		# 2^64
max=18446744073709551608		# 2^64 - 8

note "bad lines"
expect_ctr_error "0 $L ressd" "Not enough arguments"
expect_ctr_error "0 $L ressd $A 0 $A $LOGOFF" "Not enough arguments"
expect_ctr_error "0 $L ressd $A x $A $LOGOFF $LOGSZ" "Invalid origin offset"
expect_ctr_error "0 $L ressd $A -8 $A $LOGOFF $LOGSZ" "Invalid origin offset"
expect_ctr_error "0 $L ressd $A +8 $A $LOGOFF $LOGSZ" "Invalid origin offset"
expect_ctr_error "0 $L ressd $A $big $A $LOGOFF $LOGSZ" "Invalid origin offset"
expect_ctr_error "0 $L ressd $A $max $A $LOGOFF $LOGSZ" "Origin range exceeds the origin device"
expect_ctr_error "0 $L ressd $A 0 $A 12abc $LOGSZ" "Invalid log offset"
expect_ctr_error "0 $L ressd $A 0 $A $max $LOGSZ" "Log range exceeds the log device"
expect_ctr_error "0 $L ressd $A 0 $A $LOGOFF 0x100" "Invalid log size"
expect_ctr_error "0 $L ressd $A 0 $A $LOGOFF $max" "Log range too large"
expect_ctr_error "0 $L ressd $A 0 $A $LOGOFF $big" "Invalid log size"
expect_ctr_error "0 0 ressd $A 0 $A $LOGOFF $LOGSZ" "zero-length target"
expect_ctr_error "0 1001 ressd $A 0 $A $LOGOFF $LOGSZ" "Length must be a multiple of 8 sectors"
expect_ctr_error "0 $((L - 8)) ressd $A 4 $A $LOGOFF $LOGSZ" "Origin offset must be a multiple of 8 sectors"
expect_ctr_error "0 $L ressd $A 0 $B 3 $LOGSZ" "Log offset must be a multiple of 8 sectors"
expect_ctr_error "0 $L ressd $A 0 $A $LOGOFF 12" "Log size must be a multiple of 8 sectors"
expect_ctr_error "0 $L ressd $A 0 $A $LOGOFF 16" "Log range too small: at least 72 KiB"
expect_ctr_error "0 $L ressd $A 0 $A $((LOGOFF - 8)) $LOGSZ" "Log range overlaps origin range"
expect_ctr_error "0 $L ressd $A $LOGSZ $A 0 $((LOGSZ + 8))" "Log range overlaps origin range"
expect_ctr_error "0 $((DISK_A_SECTORS + 8)) ressd $A 0 $B 0 $LOGSZ" "Origin range exceeds the origin device"
expect_ctr_error "0 $L ressd $A 0 $B $((DISK_B_SECTORS - 64)) $LOGSZ" "Log range exceeds the log device"
expect_ctr_error "0 $L ressd /dev/nonexistent 0 $A $LOGOFF $LOGSZ" "Error opening origin device"
expect_ctr_error "0 $L ressd $A 0 /dev/nonexistent $LOGOFF $LOGSZ" "Error opening log device"
expect_ctr_error "$base 2x small_write_max 16" "Invalid number of optional arguments"
expect_ctr_error "$base 1 small_write_max" "Optional arguments must be key value pairs"
expect_ctr_error "$base 3 small_write_max 16 high_watermark" "Optional arguments must be key value pairs"
expect_ctr_error "$base 18 a 1 b 2 c 3 d 4 e 5 f 6 g 7 h 8 i 9" "Invalid number of optional arguments"
expect_ctr_error "$base 16 a 1 b 2 c 3 d 4 e 5 f 6 g 7 h 8" "Unknown optional argument"
expect_ctr_error "$base 4 small_write_max 16" "Invalid number of optional arguments"
expect_ctr_error "$base 4294967298 small_write_max 16" "Invalid number of optional arguments"
expect_ctr_error "$base 2 foo 1" "Unknown optional argument"
expect_ctr_error "$base 2 small_write_max 12" "small_write_max must be a multiple of 8 sectors below 4 MiB"
expect_ctr_error "$base 2 small_write_max 0" "small_write_max must be a multiple of 8 sectors below 4 MiB"
expect_ctr_error "$base 2 small_write_max 4294967296" "Invalid small_write_max"
expect_ctr_error "$base 2 small_write_max -16" "Invalid small_write_max"
expect_ctr_error "$base 2 high_watermark 0" "high_watermark must be 1 to 100"
expect_ctr_error "$base 2 high_watermark 101" "high_watermark must be 1 to 100"
expect_ctr_error "$base 2 high_watermark 4294967295" "high_watermark must be 1 to 100"
expect_ctr_error "$base 2 low_watermark 60" "low_watermark must be below high_watermark"
expect_ctr_error "$base 2 low_watermark 100" "low_watermark must be 0 to 99"
expect_ctr_error "$base 2 mover_batch 8" "mover_batch must be a multiple of 8 sectors from 16 to 8192"
expect_ctr_error "$base 2 mover_batch 4294967295" "mover_batch must be a multiple of 8 sectors from 16 to 8192"
expect_ctr_error "$base 2 mover_batch $big" "Invalid mover_batch"
expect_ctr_error "$base 4 high_watermark 60 high_watermark 70" "Duplicate optional argument"
expect_ctr_error "$base 4 small_write_max 1024 mover_batch 1024" "small_write_max must be smaller than mover_batch"
expect_ctr_error "$base 0 extra" "Too many arguments"
M=$MODEL_SSD_A
expect_ctr_error "$base 2 dev_model 1024:0:8" "Invalid dev_model"
expect_ctr_error "$base 2 dev_model $M:0" "Invalid dev_model"
expect_ctr_error "$base 2 dev_model ${M//:/,}" "Invalid dev_model"
expect_ctr_error "$base 2 dev_model 1020:${M#*:}" "dev_model unit must be 0 or a multiple of 8 sectors from 16 to 131072"
expect_ctr_error "$base 2 dev_model 1024:1024:${M#*:*:}" "dev_model unit offset must be a multiple of 8 sectors below the unit"
expect_ctr_error "$base 2 dev_model 1024:0:257:${M#*:*:*:}" "dev_model open units must be at most 256"
expect_ctr_error "$base 2 dev_model ${M%:0}:1000000001" "dev_model costs must be at most 1000000000 ns"
expect_ctr_error "$base 4 dev_model none dev_model $M" "Duplicate optional argument"
expect_ctr_error "$base 2 mover_policy lifo" "mover_policy must be fifo or density"
expect_ctr_error "$base 2 mover_policy density" "mover_policy density needs a dev_model with a unit size"
expect_ctr_error "$base 4 mover_policy density dev_model 0:0:0:50000:31000:62000:1500000:176000:27000:0:0" \
	"mover_policy density needs a dev_model with a unit size"
expect_ctr_error "$base 4 mover_policy fifo mover_policy density" "Duplicate optional argument"
expect_ctr_error "$base 2 log_mode sometimes" "log_mode must be always, never or auto"
expect_ctr_error "$base 2 log_mode auto" "log_mode auto needs a dev_model"
expect_ctr_error "$base 2 data_csum 2" "data_csum must be 0 or 1"
expect_ctr_error "$base 2 data_csum yes" "data_csum must be 0 or 1"
expect_ctr_error "$base 2 data_csum -1" "data_csum must be 0 or 1"
expect_ctr_error "$base 4 data_csum 0 data_csum 1" "Duplicate optional argument"

note "good line, same device"
dm_create r1 "$base"
st=$(dmsetup status r1)
echo "status: $st"
nf=$(wc -w <<<"$st")
[ "$nf" -eq 31 ] || fail "status has $nf words, expected 3 + 10 fields + 18 extras"
[ "$(status_field r1 1)" = "0/$((LOGSZ / 8 - 2))" ] || fail "log use field: $(status_field r1 1)"
[ "$(status_field r1 10)" = rw ] || fail "mode field: $(status_field r1 10)"
t1=$(dmsetup table r1)
echo "table: $t1"
maj_min_a=$(lsblk -dno MAJ:MIN "$A" | tr -d ' ')
want="0 $L ressd $maj_min_a 0 $maj_min_a $LOGOFF $LOGSZ 8 small_write_max 16 high_watermark 50 low_watermark 0 mover_batch 1024"
[ "$t1" = "$want" ] || fail "table status '$t1', expected '$want'"

note "TABLE status round-trips: reload with it, and re-create from it"
dmsetup reload r1 --table "$t1" || fail "reload with the table status"
dmsetup resume r1 || fail "resume after reload"
[ "$(dmsetup table r1)" = "$t1" ] || fail "table changed after reload"
dm_remove r1
dm_create r1 "$t1"
[ "$(dmsetup table r1)" = "$t1" ] || fail "table changed after re-create"
dm_remove r1

note "good line with every optional argument, two devices"
t2="0 $DISK_A_SECTORS ressd $A 0 $B 0 $LOGSZ 8 small_write_max 8 high_watermark 70 low_watermark 10 mover_batch 512"
dm_create r2 "$t2"
maj_min_b=$(lsblk -dno MAJ:MIN "$B" | tr -d ' ')
want="0 $DISK_A_SECTORS ressd $maj_min_a 0 $maj_min_b 0 $LOGSZ 8 small_write_max 8 high_watermark 70 low_watermark 10 mover_batch 512"
[ "$(dmsetup table r2)" = "$want" ] || fail "table status '$(dmsetup table r2)', expected '$want'"
t2b=$(dmsetup table r2)
dm_remove r2
dm_create r2 "$t2b"
[ "$(dmsetup table r2)" = "$want" ] || fail "re-created table differs"
dm_remove r2

# table_roundtrip <what> <optional words> <table after the devices and the
# log size>: a target created with those words shows that table, and a
# reload with its own table keeps it.
table_roundtrip() {
	local want="0 $DISK_A_SECTORS ressd $maj_min_a 0 $maj_min_b 0 $LOGSZ $3"

	dm_create r4 "0 $DISK_A_SECTORS ressd $A 0 $B 0 $LOGSZ $2"
	[ "$(dmsetup table r4)" = "$want" ] || fail "$1: table '$(dmsetup table r4)', expected '$want'"
	dmsetup reload r4 --table "$(dmsetup table r4)" && dmsetup resume r4 || fail "$1: reload"
	[ "$(dmsetup table r4)" = "$want" ] || fail "$1: changed after reload: $(dmsetup table r4)"
	dm_remove r4
}
defaults="small_write_max 16 high_watermark 50 low_watermark 0 mover_batch 1024"

note "a device model: in the table when set, round-trips, and 'none' is no model"
table_roundtrip "dev_model" "2 dev_model $M" "10 $defaults dev_model $M"
table_roundtrip "dev_model none" "2 DEV_MODEL None" "8 $defaults"

note "data_csum: 0 in the table and round-trips, 1 (the default) left out"
table_roundtrip "data_csum 0" "2 data_csum 0" "10 $defaults data_csum 0"
table_roundtrip "data_csum 1" "2 data_csum 1" "8 $defaults"

note "optional keys are case-insensitive and in any order"
dm_create r3 "0 $DISK_A_SECTORS ressd $A 0 $B 0 $LOGSZ 4 LOW_WATERMARK 60 High_Watermark 90"
dmsetup table r3 | grep -q "high_watermark 90 low_watermark 60" || fail "keys: $(dmsetup table r3)"
dm_remove r3
echo "all table checks passed"

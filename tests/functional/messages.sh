#!/bin/bash
# Messages: "set <key> <value>" changes a tunable (seen in TABLE status, so
# that a reload keeps it); bad values and unknown messages are refused and
# change nothing.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
zero_at "$B" 8 0
dm_create ms "0 $DISK_A_SECTORS ressd $A 0 $B 0 65536"
table() { dmsetup table ms; }

dmsetup message ms 0 set high_watermark 80 || fail "set high_watermark"
table | grep -q "high_watermark 80" || fail "high_watermark not applied: $(table)"
dmsetup message ms 0 set low_watermark 70 || fail "set low_watermark"
dmsetup message ms 0 set mover_batch 256 || fail "set mover_batch"
dmsetup message ms 0 set small_write_max 32 || fail "set small_write_max"
want="small_write_max 32 high_watermark 80 low_watermark 70 mover_batch 256"
table | grep -q "$want" || fail "tunables: $(table)"

before=$(table)
for bad in "set high_watermark 60" "set high_watermark 0" "set low_watermark 99" \
	"set mover_batch 24" "set mover_batch 12" "set small_write_max 256" \
	"set small_write_max x" "set nosuchkey 1" "set high_watermark" "nosuchmessage" \
	"set high_watermark 4294967296"; do
	# shellcheck disable=SC2086
	if dmsetup message ms 0 $bad 2>/dev/null; then
		fail "accepted message '$bad'"
	fi
	[ "$(table)" = "$before" ] || fail "message '$bad' changed the table"
	echo "ok: refused '$bad'"
done

note "a reload with the table status keeps the tunables"
dmsetup reload ms --table "$(table)" && dmsetup resume ms || fail reload
table | grep -q "$want" || fail "after reload: $(table)"
dm_remove ms
echo "messages passed"

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

note "a device model set by message: in the table, kept by a reload, dropped by 'none'"
model=$MODEL_SSD_B
dmsetup message ms 0 set dev_model $model || fail "set dev_model"
table | grep -q " 10 $want dev_model $model\$" || fail "dev_model not in the table: $(table)"
before=$(table)
for bad in "set dev_model 4096:0:4" "set dev_model 4100:0:4:50000:47900:436600:2000000:441000:41000:0:0" \
	"set dev_model 4096:0:4:50000:47900:436600:2000000:441000:41000:0:0:0" "set dev_model nonE:0" \
	"set dev_model 4096:0:257:50000:47900:436600:2000000:441000:41000:0:0" "set dev_model"; do
	# shellcheck disable=SC2086
	if dmsetup message ms 0 $bad 2>/dev/null; then
		fail "accepted message '$bad'"
	fi
	[ "$(table)" = "$before" ] || fail "message '$bad' changed the table"
done

note "a reload with the table status keeps the tunables and the model"
dmsetup reload ms --table "$(table)" && dmsetup resume ms || fail reload
[ "$(table)" = "$before" ] || fail "after reload: $(table), before: $before"

note "mover_policy density by message: needs the model's unit, kept by a reload"
dmsetup message ms 0 set mover_policy density || fail "set mover_policy density"
table | grep -q " 12 $want dev_model $model mover_policy density\$" ||
	fail "mover_policy not in the table: $(table)"
dmsetup status ms | awk '{ exit NF == 31 ? 0 : 1 }' || fail "status: not 28 fields: $(dmsetup status ms)"
before=$(table)
for bad in "set mover_policy lifo" "set dev_model none" \
	"set dev_model 0:0:0:50000:31000:62000:1500000:176000:27000:0:0"; do
	# shellcheck disable=SC2086
	if dmsetup message ms 0 $bad 2>/dev/null; then
		fail "accepted message '$bad' with mover_policy density"
	fi
	[ "$(table)" = "$before" ] || fail "message '$bad' changed the table"
done
dmsetup reload ms --table "$(table)" && dmsetup resume ms || fail reload
[ "$(table)" = "$before" ] || fail "after reload: $(table), before: $before"
dmsetup message ms 0 set mover_policy fifo || fail "set mover_policy fifo"
table | grep -q " 10 $want dev_model $model\$" || fail "mover_policy fifo: $(table)"

note "log_mode by message: auto needs a model, never and auto in the table, kept by a reload"
dmsetup message ms 0 set log_mode never || fail "set log_mode never"
table | grep -q " 12 $want dev_model $model log_mode never\$" || fail "log_mode never: $(table)"
dmsetup message ms 0 set log_mode auto || fail "set log_mode auto"
before=$(table)
dmsetup reload ms --table "$before" && dmsetup resume ms || fail reload
[ "$(table)" = "$before" ] || fail "after reload: $(table), before: $before"
dmsetup message ms 0 set dev_model none 2>/dev/null && fail "accepted dev_model none with log_mode auto"
dmsetup message ms 0 set log_mode always || fail "set log_mode always"
table | grep -q " 10 $want dev_model $model\$" || fail "log_mode always: $(table)"
dmsetup message ms 0 set dev_model none || fail "set dev_model none"
table | grep -q " 8 $want\$" || fail "dev_model none: $(table)"
dmsetup reload ms --table "$(table)" && dmsetup resume ms || fail reload
table | grep -q "$want" || fail "after reload: $(table)"
dm_remove ms
echo "messages passed"

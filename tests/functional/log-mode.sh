#!/bin/bash
# log_mode (step g of Documentation/mover-pricing.md): small writes logged
# always, never (passed through, home), or as the device model says, from
# the share of small writes a log of this size would absorb (a ghost log).
# With ssd-c's model as the probe measures it (a page-mapped device whose
# random writes cost about what its sequential ones do): uniform random
# 4 KiB writes over a span eight times the log pass through; a loop over a
# quarter of the log's blocks is logged.  Then the self-checking writer
# while the mode flips between never, always and auto (writes over logged
# blocks that pass through take the invalidation path): every block
# checked after the run and after re-create (replay).
. "$RESSD_TOP/tests/lib/testlib.sh"
. "$RESSD_TOP/tests/lib/writer.sh"

SSD_C=0:0:0:78973:472165:0:0:176000:27000:610142:619338
LOG=8192			# sectors: 1022 slots
t="0 $DISK_A_SECTORS ressd $RESSD_DISK_A 0 $RESSD_DISK_B 0 $LOG 4 dev_model $SSD_C log_mode auto"
zero_at "$RESSD_DISK_B" 8 0
dm_create lm "$t"
dmsetup table lm | grep -q " log_mode auto$" || fail "table: $(dmsetup table lm)"
dev=/dev/mapper/lm
# status extras 22-24: passed_writes log_pass alpha_permille
ws() { # <seed> <blocks> <writes>: 4 KiB direct random writes over the first <blocks>
	"$WRITER" write --dev $dev --blocks "$2" --ops "$3" --seed "$1" --mix w4=1 \
		--journal "$TMPDIR/lm-$1.journal" >/dev/null || fail "writer $1"
}
writer_build
# Before the first decision (a log's worth of small blocks: about 1000
# writes here) nothing has been seen absorbed: the model's choice for that.
note "the first writes, before any measure: the model's choice with nothing absorbed (pass)"
ws 0 8192 300
show_status lm "after 300 writes"
[ "$(status_field lm 22)" -eq 300 ] && [ "$(status_field lm 4)" -eq 0 ] ||
	fail "the first 300 writes: $(status_field lm 22) passed, $(status_field lm 4) logged"
# A model with an erase unit set at run time logs at once (such a device
# always logs), and the page-mapped one set back passes at once again.
note "set dev_model: the new model's choice from its first write"
dmsetup message lm 0 set dev_model "$MODEL_SSD_A" || fail "set dev_model ssd-a"
ws 3 8192 50
[ "$(status_field lm 4)" -eq 50 ] && [ "$(status_field lm 22)" -eq 300 ] ||
	fail "ssd-a's model: $(status_field lm 4) logged, $(status_field lm 22) passed, expected 50 and 300"
dmsetup message lm 0 set dev_model $SSD_C || fail "set dev_model ssd-c"
ws 4 8192 50
[ "$(status_field lm 4)" -eq 50 ] && [ "$(status_field lm 22)" -eq 350 ] ||
	fail "ssd-c's model again: $(status_field lm 4) logged, $(status_field lm 22) passed, expected 50 and 350"
note "uniform random writes over 8 times the log's blocks: passed through"
ws 1 8192 6000
show_status lm "after the random writes"
[ "$(status_field lm 23)" = 1 ] || fail "not passing through: $(dmsetup status lm)"
alpha=$(status_field lm 24)
[ "$alpha" -lt 300 ] || fail "absorbed share $alpha per mille, expected about 125"
passed=$(status_field lm 22)
[ "$passed" -gt 1000 ] || fail "only $passed writes passed through"
echo "passing through: $passed writes, $alpha per mille absorbed"

note "a loop over a quarter of the log's blocks: logged"
redir0=$(status_field lm 4)
ws 2 256 4000
show_status lm "after the loop"
[ "$(status_field lm 23)" = 0 ] || fail "still passing through: $(dmsetup status lm)"
[ "$(status_field lm 24)" -gt 900 ] || fail "absorbed share $(status_field lm 24), expected about 1000"
[ "$(status_field lm 4)" -gt "$redir0" ] || fail "nothing was logged"
dm_remove lm

note "the writer while the mode flips"
J=$TMPDIR/lm.journal NBLK=16384 SECS=${WRITER_SECONDS:-12}
rm -f "$J"
zero_at "$RESSD_DISK_B" 8 0
dm_create lm "$t"
( for m in never always auto never always; do
	sleep 2; dmsetup message lm 0 set log_mode $m || exit 1
  done ) &
flip=$!
writer_run lm "$J" 7 "log_mode flips"
wait $flip || fail "set log_mode"
[ "$(status_field lm 22)" -gt 0 ] && [ "$(status_field lm 4)" -gt 0 ] ||
	fail "no write was both passed and logged: $(dmsetup status lm)"
dm_remove lm
dm_create lm "$t"
writer_verify $dev "$J" "after re-create"
dm_remove lm
echo "log_mode passed"

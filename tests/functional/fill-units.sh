#!/bin/bash
# Gap filling (step e of Documentation/mover-pricing.md): with a device
# model whose merges are dear, the mover writes whole erase units home,
# filling the blocks that are not logged from home, and every write home to
# a unit waits while the mover fills it (I5).  Under the self-checking
# writer (tests/tools/ressd-writer.c: small and large writes, discards,
# O_DSYNC and FUA writes, several in flight), with the mover running all
# the time (high_watermark 5) and the normal area's reads slowed by dm-delay
# so that each fill holds its unit for long while direct writes land beside
# it.  Oracle: every block checked against the writer's journal, after the
# run, after a drain and after remove and re-create (replay); a run is void
# unless units were filled.  Two models: ssd-b's (any unit with a logged
# block is filled whole) and ssd-a's (sparse, prefix and whole units mixed).
. "$RESSD_TOP/tests/lib/testlib.sh"
. "$RESSD_TOP/tests/lib/writer.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
NBLK=16384			# the first 64 MiB of the normal area
SECS=${WRITER_SECONDS:-15}	# per writer run
dev=/dev/mapper/fu

writer_build
# run_case <name> <model> <seed>
run_case() {
	local name=$1 model=$2 seed=$3 j=$TMPDIR/fill-$1.journal t
	note "$name: dev_model $model"
	rm -f "$j"
	zero_at "$B" 8 0
	dm_create fu_o "0 $DISK_A_SECTORS delay $A 0 4 $A 0 0"
	t="0 $DISK_A_SECTORS ressd /dev/mapper/fu_o 0 $B 0 8192 4 high_watermark 5 dev_model $model"
	dm_create fu "$t"
	writer_run fu "$j" "$seed" "$name"
	dmsetup message fu 0 drain || fail "$name: drain"
	show_status fu "after the drain"
	writer_verify $dev "$j" "$name, after the drain"
	# status extras 15-18: fill_read_bytes units_sparse units_prefix units_whole
	filled=$(( $(status_field fu 17) + $(status_field fu 18) ))
	[ "$filled" -gt 0 ] || fail "$name: no unit was filled: $(dmsetup status fu)"
	[ "$(status_field fu 15)" -gt 0 ] || fail "$name: units filled, but nothing read home"
	sparse=$(status_field fu 16)
	echo "$name: $(status_field fu 18) units whole, $(status_field fu 17) prefix," \
		"$(status_field fu 16) sparse, $(status_field fu 15) bytes read home to fill"
	dm_remove fu
	dm_create fu "$t"
	writer_verify $dev "$j" "$name, after re-create"
	dm_remove fu
	dm_remove fu_o
}

run_case ssd-b "$MODEL_SSD_B" 21
run_case ssd-a "$MODEL_SSD_A" 22
[ "$sparse" -gt 0 ] || fail "ssd-a: no unit was written sparse"
echo "gap filling passed"

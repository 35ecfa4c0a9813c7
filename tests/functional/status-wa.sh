#!/bin/bash
# Write accounting (status extras user_write_bytes and dev_write_bytes, the
# measure of write amplification): the target counts every byte its users
# write and every byte it writes to its devices.  Oracles: fio's byte counts
# for the users' side; for the devices' side, dm-ftlsim's own write_bytes,
# with both the normal area and the reserved area on one ftlsim device, equal
# to the byte over logged writes, writes sent home, home writes over logged
# blocks (invalidation records), a commit, mover rounds and a drain
# (superblock checkpoints) that fills erase units (a device model).
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A
ORIGIN=98304	# 48 MiB
LOG=32768	# 16 MiB
[ "$DISK_A_SECTORS" -ge $((ORIGIN + LOG)) ] || fail "$A is too small"
command -v fio >/dev/null || fail "fio is not installed"

ftl_stat() {	# <key>: one key=value field of the ftlsim INFO status
	dmsetup status ftl | tr ' ' '\n' | sed -n "s/^$1=//p"
}
bytes() {	# <user|dev>: status extra 13 or 14
	status_field wa "$([ "$1" = user ] && echo 13 || echo 14)"
}
wfio() {	# <name> <rw> <bs> <offset> <io_size> [fio args]
	local name=$1 rw=$2 bs=$3 off=$4 size=$5
	shift 5
	fio --name="$name" --filename=/dev/mapper/wa --rw="$rw" --bs="$bs" \
		--offset="$off" --size=32M --io_size="$size" --direct=1 \
		--ioengine=libaio --iodepth=4 --randrepeat=0 --randseed=42 \
		--norandommap "$@" --output="$TMPDIR/fio-$name.log" ||
		{ cat "$TMPDIR/fio-$name.log"; fail "fio $name"; }
	user=$((user + $(numfmt --from=iec "$size")))
}
check() {	# <what>: both counters against their oracles
	local u d f
	u=$(($(bytes user) - user0))
	d=$(($(bytes dev) - dev0))
	f=$(ftl_stat write_bytes)
	echo "$1: users wrote $u (fio $user), the target wrote $d (ftlsim $f)"
	[ "$u" = "$user" ] || fail "$1: user_write_bytes grew by $u, fio wrote $user"
	[ "$d" = "$f" ] || fail "$1: dev_write_bytes grew by $d, the device saw $f"
}

dm_create ftl "0 $((ORIGIN + LOG)) ftlsim $A 0 ssd-a"
zero_at /dev/mapper/ftl 8 "$ORIGIN"
dm_create wa "0 $ORIGIN ressd /dev/mapper/ftl 0 /dev/mapper/ftl $ORIGIN $LOG"
command -v udevadm >/dev/null && udevadm settle 2>/dev/null
dmsetup message wa 0 mover pause || fail "mover pause"
user=0 user0=$(bytes user) dev0=$(bytes dev)
[ -n "$user0" ] && [ -n "$dev0" ] || fail "no write byte counters in: $(dmsetup status wa)"
dmsetup message ftl 0 reset || fail "ftlsim reset"

wfio rand randwrite 4k 0 8M
check "4 KiB random writes"
[ "$(ftl_stat write_bytes)" -gt $((8 << 20)) ] || fail "the log writes carry no trailers"
wfio seq write 1M 0 8M
check "1 MiB writes over logged blocks"
dmsetup message wa 0 commit || fail commit
check "commit"
wfio mix randwrite 16k 0 4M
# A model that fills every unit it touches: the fills' writes count too.
dmsetup message wa 0 set dev_model $MODEL_SSD_B ||
	fail "set dev_model"
dmsetup message wa 0 mover resume || fail "mover resume"
dmsetup message wa 0 drain || fail drain
[ "$(status_field wa 7)" -gt 0 ] || fail "the mover moved nothing"
[ "$(status_field wa 18)" -gt 0 ] || fail "no unit was filled: $(dmsetup status wa)"
check "mixed writes, then a drain that fills units"
echo "write amplification: $(awk -v u="$user" -v d="$(ftl_stat write_bytes)" 'BEGIN { printf "%.2f", d / u }')"
dm_remove wa
dm_remove ftl
echo "write accounting passed"

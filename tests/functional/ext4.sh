#!/bin/bash
# ext4 on top: make, mount, write a file tree, unmount, fsck -fn clean;
# remove and re-create the target, then every file must read back the same.
. "$RESSD_TOP/tests/lib/testlib.sh"

A=$RESSD_DISK_A B=$RESSD_DISK_B
M=/run/ressd-mnt
mkdir -p $M
zero_at "$B" 8 0
T="0 $DISK_A_SECTORS ressd $A 0 $B 0 65536"
dm_create e4 "$T"
dev=/dev/mapper/e4

mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 $dev || fail mkfs.ext4
mount $dev $M || fail mount
note "writing a file tree"
for d in 1 2 3 4; do
	mkdir -p $M/d$d
	for f in $(seq 1 40); do
		head -c $(( (f * 7919) % 65536 + 1 )) /dev/urandom >$M/d$d/f$f
	done
done
dd if=/dev/urandom of=$M/big bs=1M count=24 status=none
cp -a "$RESSD_TOP/tests" $M/tree
sync
(cd $M && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$TMPDIR/sums"
umount $M || fail umount
fsck.ext4 -fn $dev || fail "fsck after the workload"

note "remove, re-create, verify"
dm_remove e4
dm_create e4 "$T"
fsck.ext4 -fn $dev || fail "fsck after re-create"
mount $dev $M || fail "mount after re-create"
(cd $M && sha256sum --quiet -c "$TMPDIR/sums") || fail "file contents changed"
umount $M
dm_remove e4
echo "ext4 passed: $(wc -l <"$TMPDIR/sums") files verified"

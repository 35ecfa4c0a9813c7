# Host-side helpers for the demo and the benchmarks: build the modules
# against the Debian kernel's headers and boot that kernel once with
# virtme-ng, as scripts/test-guest.sh does for the functional tests.
# Sourced after scripts/common.sh, not run.

# ressd_build_bench_modules <dir>: build dm_ressd.ko and dm_ftlsim.ko (and
# dm-writeboost.ko when its Debian DKMS source is installed) against the
# newest Debian kernel with headers into <dir>/build.  Sets RESSD_KVER,
# RESSD_KDIR, RESSD_BDIR.  The build log is <dir>/build.log.
ressd_build_bench_modules() {
	local out=$1
	RESSD_KVER=$(ressd_debian_kver) || ressd_die "no Debian kernel with headers (run scripts/deps.sh)"
	RESSD_KDIR=/usr/src/linux-headers-$RESSD_KVER
	RESSD_BDIR=$out/build
	mkdir -p "$RESSD_BDIR"
	rsync -a --delete --exclude=/.out --exclude=results --include='*/' --include='*.c' \
		--include='*.h' --include=Kbuild --include=VERSION --exclude='*' --prune-empty-dirs \
		"$RESSD_TOP/" "$RESSD_BDIR/"
	[ -e "$RESSD_BDIR/tools/ftlsim/Kbuild" ] || ressd_die "tools/ftlsim is missing"
	if ! make -C "$RESSD_KDIR" M="$RESSD_BDIR" modules >"$out/build.log" 2>&1; then
		tail -n 20 "$out/build.log" >&2
		ressd_die "the modules do not build against $RESSD_KDIR (see $out/build.log)"
	fi
	[ -e "$RESSD_BDIR/dm_ressd.ko" ] && [ -e "$RESSD_BDIR/tools/ftlsim/dm_ftlsim.ko" ] ||
		ressd_die "build left no dm_ressd.ko/dm_ftlsim.ko (see $out/build.log)"
}

# ressd_build_writeboost <dir>: build dm-writeboost.ko from Debian's
# dm-writeboost-dkms source (/usr/src/dm-writeboost-*) against RESSD_KDIR
# into <dir>/writeboost.  Prints the module path, or returns 1 with the
# reason in <dir>/writeboost.log.
ressd_build_writeboost() {
	local out=$1
	src=$(ls -d /usr/src/dm-writeboost-* 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$src" ]; then
		echo "no /usr/src/dm-writeboost-* (package dm-writeboost-dkms not installed)" >"$out/writeboost.log"
		return 1
	fi
	rm -rf "$out/writeboost"
	cp -r "$src" "$out/writeboost"
	if ! make -C "$RESSD_KDIR" M="$out/writeboost" modules >"$out/writeboost.log" 2>&1; then
		return 1
	fi
	echo "$out/writeboost/dm-writeboost.ko"
}

# ressd_boot <dir> <disk size> <log file> <guest command...>: boot the Debian
# kernel RESSD_KVER once under virtme-ng (software emulation unless
# RESSD_KVM=1) with one scratch disk (<dir>/disk.img, sparse, /dev/vda in the
# guest) and <dir> writable, run the command, and return its exit status as
# recorded by the command in <dir>/guest.rc (the guest's own status is not
# passed back by vng).  Takes RESSD_VM_LOCK for the whole boot.
ressd_boot() {
	local out=$1 size=$2 log=$3
	shift 3
	local kvm=(--disable-kvm) rc
	[ "${RESSD_KVM:-0}" = 1 ] && kvm=()
	rm -f "$out/disk.img" "$out/guest.rc"
	truncate -s "$size" "$out/disk.img"
	exec 8>"$RESSD_VM_LOCK"
	if ! flock -n 8; then
		ressd_log "waiting for $RESSD_VM_LOCK (another guest is running)"
		flock 8
	fi
	PATH=$RESSD_VENV/bin:$PATH timeout -k 30 "${RESSD_GUEST_TIMEOUT:-3600}" \
		"$RESSD_VENV/bin/vng" --run "/boot/vmlinuz-$RESSD_KVER" "${kvm[@]}" \
		--memory "${RESSD_GUEST_MEM:-2G}" --cpus 2 --rwdir "$out" \
		--qemu-opts="-drive file=$out/disk.img,format=raw,if=virtio,cache=none" \
		--exec "$*" </dev/null >"$log" 2>&1
	rc=$?
	flock -u 8
	exec 8>&-
	rm -f "$out/disk.img"
	if [ -e "$out/guest.rc" ]; then
		return "$(cat "$out/guest.rc")"
	fi
	ressd_log "the guest did not finish (vng exit $rc); see $log"
	return 99
}

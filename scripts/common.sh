# The one shell library of dm-ressd's build, test, demo and benchmark
# scripts.  Sourced, not run: by the scripts on the host and by what runs
# inside a guest (tests/guest-init.sh, tests/lib/testlib.sh,
# tests/bench/lib.sh), so it has no side effect when sourced.
#
#   settings          RESSD_TOP, RESSD_CACHE, RESSD_VENV, RESSD_VM_LOCK
#   packages          ressd_pkg_installed, ressd_apt_install, RESSD_KERNELS,
#                     ressd_debian_kver, ressd_source_tree
#   building          ressd_build_modules, ressd_build_bench_modules,
#                     ressd_writeboost_source, ressd_build_writeboost,
#                     ressd_cross_apt, ressd_cross_headers, ressd_arm64_root
#   booting a guest   ressd_boot_vm (the Debian kernel under QEMU),
#                     ressd_boot_uml (the UML debug kernel),
#                     ressd_boot_arm64 (Debian's arm64 kernel), ressd_boot
#   test data         ressd_file_tree
#   judging           RESSD_BAD_KERNEL_LOG, ressd_kernel_log_bad,
#                     ressd_our_warnings, ressd_kunit_suites, ressd_kunit_judge
#   reporting         ressd_pass, ressd_fail, ressd_report
#
# RESSD_CACHE  where the extracted kernel source, the UML debug kernel and the
#              virtme-ng environment are kept between runs (outside the
#              repository, so that CI on the same machine reuses them).

RESSD_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RESSD_CACHE=${RESSD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dm-ressd}
RESSD_VENV=$RESSD_CACHE/venv
# Every VM or UML boot takes this lock, so that two suites never share the
# machine's two cores (nor the scratch images) at the same time.
RESSD_VM_LOCK=${RESSD_VM_LOCK:-/tmp/dm-ressd-vm.lock}

ressd_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
ressd_die() { ressd_log "error: $*"; exit 1; }

# ressd_pkg_installed <package>: true when the Debian package is installed.
ressd_pkg_installed() {
	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q '^install ok installed$'
}

# ressd_apt_install <package>...: install the Debian packages that are
# missing (as root; apt-get update first).  Returns non-zero, with the reason
# on stderr, when some are missing and cannot be installed.
ressd_apt_install() {
	local p missing=()
	for p in "$@"; do
		ressd_pkg_installed "$p" || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	if [ "$(id -u)" != 0 ]; then
		ressd_log "missing packages (${missing[*]}); run this as root"
		return 1
	fi
	ressd_log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		{ ressd_log "apt-get install ${missing[*]} failed"; return 1; }
}

# The Debian kernel that the functional tests and benchmarks boot, and
# whose headers the module is built against for them: the newest installed
# image of the series RESSD_KERNEL (default 6.1, Debian 12's own) with
# matching headers.  Chosen by series, so that a newer kernel installed
# beside it (6.12 from bookworm's archive) is never taken by surprise: the
# module is always built for the very release the guest boots.
RESSD_KERNEL=${RESSD_KERNEL:-6.1}
# The kernel series the tests run on (scripts/deps.sh test installs them all).
RESSD_KERNELS=(6.1 6.12)
ressd_debian_kver() {
	local k best=
	for k in /usr/src/linux-headers-"$RESSD_KERNEL".*-amd64; do
		[ -d "$k" ] || continue
		k=${k#/usr/src/linux-headers-}
		[ -e "/boot/vmlinuz-$k" ] && [ -d "/lib/modules/$k" ] && best=$(printf '%s\n%s\n' "$best" "$k" | sort -V | tail -n 1)
	done
	[ -n "$best" ] || return 1
	echo "$best"
}

# ressd_source_version [series]: the version of Debian's linux-source-<series>
# package (series RESSD_KERNEL by default): the UML kernel's key.
ressd_source_version() {
	dpkg-query -W -f='${Version}' "linux-source-${1:-$RESSD_KERNEL}" 2>/dev/null
}

# ressd_source_tree [series]: the extracted kernel source tree of
# linux-source-<series> (RESSD_KERNEL by default), extracted once per package
# version.
ressd_source_tree() {
	local series=${1:-$RESSD_KERNEL} ver dir
	ver=$(ressd_source_version "$series") || return 1
	[ -n "$ver" ] || return 1
	dir=$RESSD_CACHE/linux-source-$ver
	mkdir -p "$RESSD_CACHE"
	if [ ! -e "$dir/.extracted" ]; then
		ressd_log "extracting linux-source-$series $ver"
		rm -rf "$dir.tmp" "$dir"
		mkdir -p "$dir.tmp"
		tar -C "$dir.tmp" -xf "/usr/src/linux-source-$series.tar.xz"
		mv "$dir.tmp/linux-source-$series" "$dir"
		rmdir "$dir.tmp"
		touch "$dir/.extracted"
	fi
	echo "$dir"
}

# ---- building ----

# ressd_build_modules <kdir> <build dir> <log> [make args...]: copy the
# kernel sources of the tree (the target, its KUnit suites, dm-ftlsim) to
# <build dir> and build them there against <kdir>, dm-ftlsim and the crash
# harness's recorder included (CONFIG_DM_RESSD_FTLSIM=m,
# CONFIG_DM_RESSD_RECORDER=m), with the make output in <log>.  Returns
# make's status.
ressd_build_modules() {
	local kdir=$1 b=$2 log=$3
	shift 3
	mkdir -p "$b"
	# (/.out first: an exclude after --include='*/' never applies to a
	# directory, and the build directories would copy each other)
	rsync -a --delete --exclude=/.out --exclude=results --include='*/' --include='*.c' \
		--include='*.h' --include=Kbuild --include=VERSION --exclude='*' --prune-empty-dirs \
		"$RESSD_TOP/" "$b/" || return 1
	make -C "$kdir" M="$b" CONFIG_DM_RESSD_FTLSIM=m CONFIG_DM_RESSD_RECORDER=m "$@" \
		modules >"$log" 2>&1
}

# ressd_build_bench_modules <dir>: build dm_ressd.ko and dm_ftlsim.ko against
# the Debian kernel the guests boot into <dir>/build.  Sets RESSD_KVER,
# RESSD_KDIR, RESSD_BDIR.  The build log is <dir>/build.log.
ressd_build_bench_modules() {
	local out=$1
	RESSD_KVER=$(ressd_debian_kver) || ressd_die "no Debian kernel with headers (run scripts/deps.sh)"
	RESSD_KDIR=/usr/src/linux-headers-$RESSD_KVER
	RESSD_BDIR=$out/build
	if ! ressd_build_modules "$RESSD_KDIR" "$RESSD_BDIR" "$out/build.log"; then
		tail -n 20 "$out/build.log" >&2
		ressd_die "the modules do not build against $RESSD_KDIR (see $out/build.log)"
	fi
	[ -e "$RESSD_BDIR/dm_ressd.ko" ] && [ -e "$RESSD_BDIR/tools/ftlsim/dm_ftlsim.ko" ] ||
		ressd_die "build left no dm_ressd.ko/dm_ftlsim.ko (see $out/build.log)"
}

# ressd_writeboost_source: the source of Debian's dm-writeboost-dkms,
# unpacked into the cache (fetched with apt-get download), never installed:
# its DKMS registration would build it for every kernel installed after it,
# and it does not build for 6.12 (bd_inode and blk_limits_io_opt are gone),
# so installing linux-image-6.12 beside it fails in DKMS's postinst and
# leaves dpkg half-configured.  Prints the source directory.
ressd_writeboost_source() {
	local ver dir tmp
	ver=$(apt-cache policy dm-writeboost-dkms 2>/dev/null | sed -n 's/^ *Candidate: //p')
	case $ver in "" | "(none)") ressd_log "no dm-writeboost-dkms in the apt sources"; return 1 ;; esac
	dir=$RESSD_CACHE/dm-writeboost-dkms-$ver
	if [ ! -e "$dir/.unpacked" ]; then
		tmp=$(mktemp -d) || return 1
		if ! (cd "$tmp" && apt-get download -qq "dm-writeboost-dkms=$ver" >/dev/null 2>&1) ||
			! dpkg-deb -x "$tmp"/dm-writeboost-dkms_*.deb "$tmp/x"; then
			rm -rf "$tmp"
			ressd_log "could not fetch dm-writeboost-dkms $ver"
			return 1
		fi
		rm -rf "$dir"
		mkdir -p "$RESSD_CACHE"
		mv "$tmp/x" "$dir"
		rm -rf "$tmp"
		touch "$dir/.unpacked"
	fi
	ls -d "$dir"/usr/src/dm-writeboost-* 2>/dev/null | sort -V | tail -n 1 | grep .
}

# ressd_cross_apt <debian arch> apt-get|apt-cache <args...>: apt through a
# state of its own in the cache (the signed indexes of the machine's apt
# sources, for that architecture and amd64): packages of another
# architecture are fetched with apt-get download, never installed, and no
# foreign architecture is added to dpkg.
ressd_cross_apt() {
	local dir=$RESSD_CACHE/cross/$1 arch=$1 tool=$2
	shift 2
	mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial"
	"$tool" -q -o "APT::Architecture=$arch" -o "APT::Architectures::=$arch" -o APT::Architectures::=amd64 \
		-o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt/cache" \
		-o Dir::State::status=/dev/null "$@"
}

# ressd_cross_headers <debian arch> <flavour>: the headers of Debian's 6.1
# kernel of another architecture (arm64 arm64, armhf armmp), for make
# check's cross builds and the arm64 guest, unpacked into the cache
# (ressd_cross_apt) with the amd64 linux-kbuild package of the same version,
# whose host programs the headers' scripts link points to.  Prints the
# headers directory (KDIR); the package version is in the .version file
# beside .unpacked.
ressd_cross_headers() {
	local arch=$1 flavour=$2 dir meta ver pkg deps kb kbver tmp f
	dir=$RESSD_CACHE/cross/$arch
	if [ -e "$dir/.unpacked" ]; then
		cat "$dir/.unpacked"
		return
	fi
	mkdir -p "$dir"
	# An index that fails (a mirror in sync) drops its suite: the
	# packages are then taken from the suites that loaded.
	ressd_cross_apt "$arch" apt-get update >"$dir/update.log" 2>&1
	meta=linux-headers-$flavour
	ver=$(ressd_cross_apt "$arch" apt-cache policy "$meta:$arch" 2>/dev/null | sed -n 's/^ *Candidate: //p')
	case $ver in "" | "(none)") ressd_log "no $meta:$arch in the apt sources (see $dir/update.log)"; return 1 ;; esac
	pkg=$(ressd_cross_apt "$arch" apt-cache show "$meta:$arch=$ver" 2>/dev/null |
		sed -n 's/^Depends: \(linux-headers-6\.1[^ ,]*-'"$flavour"'\) .*/\1/p' | head -n 1)
	deps=$(ressd_cross_apt "$arch" apt-cache show "$pkg:$arch=$ver" 2>/dev/null | sed -n 's/^Depends: //p' | head -n 1)
	kb=$(printf '%s\n' "$deps" | tr ',' '\n' | sed -n 's/^ *\(linux-kbuild-[^ ]*\) .*/\1/p' | head -n 1)
	# The headers ask for a linux-kbuild of at least their version, which
	# Debian may have rebuilt since (6.1.192-2's headers, kbuild 6.1.192-3):
	# the candidate, when it satisfies that.
	kbver=$(ressd_cross_apt "$arch" apt-cache policy "$kb:amd64" 2>/dev/null | sed -n 's/^ *Candidate: //p')
	[ -n "$pkg" ] && [ -n "$kb" ] && [ -n "$kbver" ] && [ "$kbver" != "(none)" ] &&
		dpkg --compare-versions "$kbver" ge "$ver" ||
		{ ressd_log "cannot resolve $meta:$arch $ver (kbuild: $kb ${kbver:-none})"; return 1; }
	tmp=$(mktemp -d) || return 1
	if ! (cd "$tmp" && ressd_cross_apt "$arch" apt-get download "$pkg:$arch=$ver" \
		"${pkg%-"$flavour"}-common=$ver" "$kb:amd64=$kbver" >"$dir/download.log" 2>&1); then
		rm -rf "$tmp"
		ressd_log "could not fetch $pkg $ver (see $dir/download.log)"
		return 1
	fi
	rm -rf "$dir/root"
	for f in "$tmp"/*.deb; do
		dpkg-deb -x "$f" "$dir/root" || { rm -rf "$tmp"; return 1; }
	done
	rm -rf "$tmp"
	# Its Makefile includes the common headers' by absolute path.
	sed -i "s,^include /usr/src/,include $dir/root/usr/src/," "$dir/root/usr/src/$pkg/Makefile" 2>/dev/null &&
		grep -q "^include $dir/root/usr/src/.*-common/Makefile" "$dir/root/usr/src/$pkg/Makefile" ||
		{ ressd_log "$pkg unpacked without the expected Makefile"; return 1; }
	echo "$ver" >"$dir/.version"
	echo "$dir/root/usr/src/$pkg" >"$dir/.unpacked"
	cat "$dir/.unpacked"
}

# The arm64 guest's modules (rootfs and initramfs below), in load order
# with what they need, for a root on 9p and virtio disks.
RESSD_ARM64_INITRD_MODULES='virtio_pci virtio_blk 9pnet_virtio 9p'

# ressd_arm64_root: the arm64 guest, kept in the cache: Debian 12's
# minimal arm64 userland (debootstrap --foreign: every package unpacked,
# none configured, which the tests do not need; passwd, group and awk set by
# hand), the Debian arm64 kernel image of the headers ressd_cross_headers
# fetched (its modules and depmod's tables in the root), and an initramfs
# of busybox and the modules that mount the root from 9p.  Prints the
# directory: root/, vmlinuz, initrd.img, kver.  (initramfs-tools and
# dracut-core: the arm64 boot test makes its images in this guest.)
RESSD_ARM64_PACKAGES=dmsetup,kmod,procps,gawk,e2fsprogs,util-linux,fio,busybox-static,python3,initramfs-tools,dracut-core
ressd_arm64_root() {
	local dir=$RESSD_CACHE/arm64 kdir kver ver key rc
	kdir=$(ressd_cross_headers arm64 arm64) || return 1
	kver=${kdir##*/linux-headers-}
	ver=$(cat "$RESSD_CACHE/cross/arm64/.version")
	# (built again when the package list, the kernel of the headers or the
	# initramfs's /init changed; one build at a time, and never while a
	# guest runs on it: under the VM lock)
	key="$RESSD_ARM64_PACKAGES $ver $(sha1sum <"$RESSD_TOP/tests/arm64-initrd.sh")"
	if [ "$(cat "$dir/.done" 2>/dev/null)" = "$key" ]; then
		echo "$dir"
		return
	fi
	command -v debootstrap >/dev/null || { ressd_log "no debootstrap (run make deps)"; return 1; }
	ressd_vm_lock
	ressd_arm64_build "$dir" "$kver" "$ver" "$key"
	rc=$?
	ressd_vm_unlock
	[ $rc = 0 ] && echo "$dir"
	return $rc
}
ressd_arm64_build() {	# <dir> <kver> <version> <key>: ressd_arm64_root's build
	local dir=$1 kver=$2 ver=$3 key=$4 tmp f m mods
	[ "$(cat "$dir/.done" 2>/dev/null)" = "$key" ] && return 0
	rm -rf "$dir"
	mkdir -p "$dir"
	ressd_log "building the arm64 guest in $dir"
	if ! debootstrap --foreign --arch=arm64 --variant=minbase \
		--include="$RESSD_ARM64_PACKAGES" \
		bookworm "$dir/root" "${RESSD_DEBIAN_MIRROR:-http://deb.debian.org/debian}" \
		>"$dir/debootstrap.log" 2>&1; then
		ressd_log "debootstrap failed (see $dir/debootstrap.log)"
		return 1
	fi
	for f in "$dir"/root/var/cache/apt/archives/*.deb; do
		dpkg-deb -x "$f" "$dir/root" || return 1
	done
	rm -f "$dir"/root/var/cache/apt/archives/*.deb
	cp "$dir/root/usr/share/base-passwd/passwd.master" "$dir/root/etc/passwd"
	cp "$dir/root/usr/share/base-passwd/group.master" "$dir/root/etc/group"
	ln -sf gawk "$dir/root/usr/bin/awk"
	tmp=$(mktemp -d) || return 1
	if ! (cd "$tmp" && ressd_cross_apt arm64 apt-get download "linux-image-$kver:arm64=$ver" \
		>"$dir/download.log" 2>&1) || ! dpkg-deb -x "$tmp"/*.deb "$dir/root"; then
		rm -rf "$tmp"
		ressd_log "could not fetch linux-image-$kver $ver (see $dir/download.log)"
		return 1
	fi
	rm -rf "$tmp"
	depmod -b "$dir/root" "$kver" || return 1
	cp "$dir/root/boot/vmlinuz-$kver" "$dir/vmlinuz"
	echo "$kver" >"$dir/kver"
	# The initramfs: busybox, the modules in the order modules.dep gives
	# (what a module needs first), and tests/arm64-initrd.sh as /init.
	tmp=$(mktemp -d) || return 1
	mkdir -p "$tmp/bin" "$tmp/lib/modules" "$tmp/proc" "$tmp/sys" "$tmp/dev" "$tmp/newroot"
	cp "$dir/root/bin/busybox" "$tmp/bin/busybox"
	mods=$(for m in $RESSD_ARM64_INITRD_MODULES; do
		awk -v m="/$m.ko" -F': *' 'index($1, m) && substr($1, length($1) - length(m) + 1) == m {
			n = split($2, d, " "); for (i = n; i >= 1; i--) print d[i]; print $1 }' \
			"$dir/root/lib/modules/$kver/modules.dep"
	done | awk '!seen[$0]++')
	[ -n "$mods" ] || { rm -rf "$tmp"; ressd_log "no initramfs modules in modules.dep"; return 1; }
	for m in $mods; do
		cp "$dir/root/lib/modules/$kver/$m" "$tmp/lib/modules/" || { rm -rf "$tmp"; return 1; }
		basename "$m" >>"$tmp/lib/modules/order"
	done
	cp "$RESSD_TOP/tests/arm64-initrd.sh" "$tmp/init"
	chmod +x "$tmp/init"
	(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) >"$dir/initrd.img" || { rm -rf "$tmp"; return 1; }
	rm -rf "$tmp"
	echo "$key" >"$dir/.done"
}

# ressd_arm64_prepare: the packages of the arm64 guest (QEMU, debootstrap,
# the cross compiler), then ressd_arm64_root; prints its directory.
ressd_arm64_prepare() {
	ressd_apt_install qemu-system-arm debootstrap gcc-aarch64-linux-gnu ||
		{ ressd_log "could not install qemu-system-arm, debootstrap, gcc-aarch64-linux-gnu"; return 1; }
	ressd_arm64_root
}

# The arm64 machine: QEMU's software emulation of a Cortex-A72 "virt"
# board, and its console.
RESSD_ARM64_QEMU=(qemu-system-aarch64 -M virt -cpu cortex-a72)
RESSD_ARM64_CONSOLE=ttyAMA0

# ressd_build_writeboost <dir>: build dm-writeboost.ko from Debian's
# dm-writeboost-dkms source (ressd_writeboost_source) against RESSD_KDIR
# into <dir>/writeboost.  Prints the module path, or returns 1 with the
# reason in <dir>/writeboost.log.
ressd_build_writeboost() {
	local out=$1 src
	if ! src=$(ressd_writeboost_source 2>"$out/writeboost.log"); then
		echo "no dm-writeboost source (dm-writeboost-dkms could not be fetched)" >>"$out/writeboost.log"
		return 1
	fi
	rm -rf "$out/writeboost"
	cp -r "$src" "$out/writeboost"
	if ! make -C "$RESSD_KDIR" M="$out/writeboost" modules >"$out/writeboost.log" 2>&1; then
		return 1
	fi
	echo "$out/writeboost/dm-writeboost.ko"
}

# ---- booting a guest ----

# ressd_guest_pid1: what a guest's PID 1 sets up first when it is the
# kernel's init (UML, the arm64 guest): /proc, /sys, /dev (with /dev/fd
# for bash's <(...)), tmpfs on /dev/shm and /run, PATH and HOME.
ressd_guest_pid1() {
	mount -t proc proc /proc
	mount -t sysfs sys /sys
	mount -t devtmpfs dev /dev
	mkdir -p /dev/pts /dev/shm
	mount -t devpts devpts /dev/pts
	[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
	mount -t tmpfs tmp /dev/shm
	mount -t tmpfs run /run
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	export HOME=/run
}

# Every boot takes RESSD_VM_LOCK for its whole length (fd 9).
ressd_vm_lock() {
	exec 9>"$RESSD_VM_LOCK"
	if ! flock -n 9; then
		ressd_log "waiting for $RESSD_VM_LOCK (another guest is running)"
		flock 9
	fi
}
ressd_vm_unlock() {
	flock -u 9
	exec 9>&-
}

# ressd_boot_vm <kver> <rw dir> <console log> <command> <disk image>...: boot
# the Debian kernel <kver> once under virtme-ng (software emulation unless
# RESSD_KVM=1) with the host's root read-only but <rw dir>, each image a
# virtio disk (/dev/vda, /dev/vdb, ...), and run <command> in it.  The
# guest's own exit status is not passed back by vng: the command leaves its
# results in <rw dir>.  Returns vng's status (124 when RESSD_GUEST_TIMEOUT,
# default 3600 s, ran out).
ressd_boot_vm() {
	local kver=$1 rw=$2 log=$3 cmd=$4 img drives= kvm=(--disable-kvm) rc
	shift 4
	for img in "$@"; do
		drives+="-drive file=$img,format=raw,if=virtio,cache=none "
	done
	[ "${RESSD_KVM:-0}" = 1 ] && kvm=()
	ressd_vm_lock
	PATH=$RESSD_VENV/bin:$PATH timeout -k 30 "${RESSD_GUEST_TIMEOUT:-3600}" \
		"$RESSD_VENV/bin/vng" --run "/boot/vmlinuz-$kver" "${kvm[@]}" \
		--memory "${RESSD_GUEST_MEM:-2G}" --cpus 2 --rwdir "$rw" \
		${RESSD_GUEST_APPEND:+--append "$RESSD_GUEST_APPEND"} \
		--qemu-opts="$drives" --exec "$cmd" </dev/null >"$log" 2>&1
	rc=$?
	ressd_vm_unlock
	return $rc
}

# ressd_boot_uml <kdir> <console log> <init script> <disk image>...: boot the
# UML kernel built in <kdir> once with the host's root through hostfs, each
# image a ubd disk (/dev/ubda, /dev/ubdb, ...), and <init script> as PID 1.
# panic_on_warn: a WARN (or a KASAN report) stops the guest at once, so
# nothing goes on past one (RESSD_PANIC_ON_WARN=0 to look further).
# Returns the kernel's status (124 when RESSD_GUEST_TIMEOUT ran out).
ressd_boot_uml() {
	local kdir=$1 log=$2 init=$3 i=0 img ubd=() rc
	shift 3
	for img in "$@"; do
		ubd+=("ubd$i=$img")
		i=$((i + 1))
	done
	ressd_vm_lock
	timeout -k 30 "${RESSD_GUEST_TIMEOUT:-3600}" "$kdir/linux" mem=1G log_buf_len=16M "${ubd[@]}" \
		panic_on_warn="${RESSD_PANIC_ON_WARN:-1}" root=/dev/root rootfstype=hostfs rootflags=/ rw \
		init="$init" con=null con0=fd:0,fd:1 </dev/null >"$log" 2>&1
	rc=$?
	ressd_vm_unlock
	return $rc
}

# ressd_boot_arm64 <guest dir> <out dir> <console log> <init script> <disk
# image>...: boot the arm64 guest of ressd_arm64_root once under
# qemu-system-aarch64 (software emulation, a Cortex-A72 "virt" machine)
# with its root read-only on 9p, the tree read-only and <out dir> writable
# at their host paths, each image a virtio disk (/dev/vda, ...), and
# <init script> as PID 1.  RESSD_ARM64_KERNEL (set for the call only):
# another kernel image, with the drivers of the initramfs built in (the
# KUnit kernel), booted with panic_on_warn as the UML kernel is.  Returns
# QEMU's status (124 when RESSD_GUEST_TIMEOUT, default 3600 s, ran out).
ressd_boot_arm64() {
	local g=$1 out=$2 log=$3 init=$4 img drives=() rc share kimage=$1/vmlinuz builtin=
	shift 4
	for img in "$@"; do
		drives+=(-drive "file=$img,format=raw,if=virtio,cache=none")
	done
	# the mount points of the tree, in the root (the guest's is read-only)
	mkdir -p "$g/root$RESSD_TOP"
	share=security_model=none,multidevs=remap
	[ -n "${RESSD_ARM64_KERNEL:-}" ] && kimage=$RESSD_ARM64_KERNEL \
		builtin=" ressd.builtin panic_on_warn=${RESSD_PANIC_ON_WARN:-1}"
	ressd_vm_lock
	timeout -k 30 "${RESSD_GUEST_TIMEOUT:-3600}" "${RESSD_ARM64_QEMU[@]}" \
		-smp 2 -m "${RESSD_GUEST_MEM:-2G}" -nographic -no-reboot \
		-kernel "$kimage" -initrd "$g/initrd.img" \
		-append "console=$RESSD_ARM64_CONSOLE panic=-1 ressd.top=$RESSD_TOP ressd.out=$out ressd.init=$init$builtin" \
		-virtfs "local,path=$g/root,mount_tag=root,readonly=on,$share" \
		-virtfs "local,path=$RESSD_TOP,mount_tag=top,readonly=on,$share" \
		-virtfs "local,path=$out,mount_tag=out,$share" \
		"${drives[@]}" </dev/null >"$log" 2>&1
	rc=$?
	ressd_vm_unlock
	return $rc
}

# ressd_boot <dir> <disk size> <log file> <guest command...>: the demo's and
# benchmarks' boot: the Debian kernel RESSD_KVER with one fresh sparse
# scratch disk (<dir>/disk.img, /dev/vda in the guest) and <dir> writable;
# returns the command's exit status as it recorded it in <dir>/guest.rc.
ressd_boot() {
	local out=$1 size=$2 log=$3 rc
	shift 3
	rm -f "$out/disk.img" "$out/guest.rc"
	truncate -s "$size" "$out/disk.img"
	ressd_boot_vm "$RESSD_KVER" "$out" "$log" "$*" "$out/disk.img"
	rc=$?
	rm -f "$out/disk.img"
	if [ -e "$out/guest.rc" ]; then
		return "$(cat "$out/guest.rc")"
	fi
	ressd_log "the guest did not finish (vng exit $rc); see $log"
	return 99
}

# ressd_file_tree <dir> <n> <big MiB>: <n> files of random contents and
# sizes (100 B to 96 KiB) and one of <big MiB> in sub/, made in <dir>;
# prints their sha1sum lines (paths from <dir>, sorted) for sha1sum -c.
ressd_file_tree() {
	local i
	mkdir -p "$1/sub" || return 1
	for ((i = 1; i <= $2; i++)); do
		head -c $((RANDOM * 3 + 100)) /dev/urandom >"$1/f$i" || return 1
	done
	head -c $(($3 << 20)) /dev/urandom >"$1/sub/big" || return 1
	(cd "$1" && find . -type f | sort | xargs sha1sum)
}

# ---- judging the kernel log ----

# What fails any guest run when the kernel log shows it: a BUG, a WARNING, a
# KASAN, UBSAN or lockdep report, a trace, a hung task, an oops, a panic.
RESSD_BAD_KERNEL_LOG='BUG:|WARNING:|KASAN|UBSAN|Call Trace|lockdep|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|INFO: task .* blocked|Oops|general protection fault|kernel BUG|Kernel panic'

# ressd_kernel_log_bad [file...]: print the first line of the kernel log
# (the files, else stdin) that fails a run; true when there is one.
ressd_kernel_log_bad() {
	local line
	line=$(grep -h -E "$RESSD_BAD_KERNEL_LOG" "$@" | head -n 1)
	[ -n "$line" ] && printf '%s\n' "$line"
}

# ---- judging a build and KUnit's output ----

# ressd_our_warnings <build dir> <log>: the warnings and errors of a build
# log that point into our files under <build dir> (compared as a fixed
# string: a kernel release such as 6.12.117+deb12 holds a '+').
ressd_our_warnings() {
	awk -v p="$1/" 'index($0, p) == 1 && /^[^:]+:[0-9]+(:[0-9]+)?: (warning|error)/' "$2"
}

# ressd_kunit_suites: the KUnit suites of the tree, one name a line.
ressd_kunit_suites() {
	sed -n 's/^\t\.name = "\([A-Za-z0-9_]*\)",$/\1/p' \
		"$RESSD_TOP"/tests/kunit/*-test.c "$RESSD_TOP"/tools/ftlsim/*-test.c
}

# ressd_kunit_judge <layer> <kernel log> <dir> <kunit.py>: judge what the
# KUnit suites of the tree printed into <kernel log> as they were loaded.
# One KTAP document is made of it in <dir>/ktap.txt: from the first header
# on, each module's own top-level header dropped (6.12 prints one per
# module, 6.1 none), the suites' results numbered in order, and a plan of
# as many suites as the tree has, so that a suite that printed nothing, or
# was cut short, is missing from it.  The kernel's kunit.py parses it into
# <dir>/kunit.txt; every case passed counts in RESSD_PASSED, every case
# failed, crashed or missing in RESSD_FAILED; a suite of the tree with no
# result or "not ok", and a kernel log that fails a run, fail <layer> too.
ressd_kunit_judge() {
	local layer=$1 log=$2 dir=$3 kunitpy=$4 suites s line p f c prc bad
	mapfile -t suites < <(ressd_kunit_suites)
	sed 's/^\[[^]]*\] //' "$log" |
		sed -n '/^\( \{4\}\)\{0,1\}KTAP version/,$p' |
		awk '/^KTAP version/ || /^1\.\.[0-9]+$/ { next }
			/^(not )?ok [0-9]+ / { n++; sub(/ok [0-9]+ /, "ok " n " ") }
			{ print }' >"$dir/ktap.body"
	{
		echo "KTAP version 1"
		echo "1..${#suites[@]}"
		cat "$dir/ktap.body"
	} >"$dir/ktap.txt"
	python3 "$kunitpy" parse "$dir/ktap.txt" >"$dir/kunit.txt" 2>&1
	prc=$?
	sed 's/^/    /' "$dir/kunit.txt" | grep -E 'PASSED|FAILED|SKIPPED|CRASHED|Testing complete|ERROR' || true
	line=$(grep -m1 'Testing complete' "$dir/kunit.txt")
	p=$(sed -n 's/.*passed: \([0-9]*\).*/\1/p' <<<"$line")
	f=$(sed -n 's/.*failed: \([0-9]*\).*/\1/p' <<<"$line")
	c=$(sed -n 's/.*\(crashed\|errors\): \([0-9]*\).*/\2/p' <<<"$line")
	RESSD_PASSED=$((RESSD_PASSED + ${p:-0}))
	RESSD_FAILED=$((RESSD_FAILED + ${f:-0} + ${c:-0}))
	if [ -z "$line" ] || [ "${p:-0}" -eq 0 ]; then
		ressd_fail "$layer" "KTAP: no test result parsed (kunit.py exit $prc)"
	elif [ $prc -ne 0 ] && [ $((${f:-0} + ${c:-0})) -eq 0 ]; then
		ressd_fail "$layer" "kunit.py parse exited $prc"
	fi
	for s in "${suites[@]}"; do
		if grep -qE "^not ok [0-9]+ $s( |\$)" "$dir/ktap.body"; then
			ressd_fail "$layer" "suite $s: not ok"
		elif ! grep -qE "^ok [0-9]+ $s( |\$)" "$dir/ktap.body"; then
			ressd_fail "$layer" "suite $s: no result"
		fi
	done
	if bad=$(sed -n '/KTAP version/,$p' "$log" | ressd_kernel_log_bad); then
		ressd_fail "$layer" "kernel log: $bad"
	fi
}

# ---- reporting ----

# ressd_pass <layer> <what>, ressd_fail <layer> <what>: one PASS or FAIL line,
# counted in RESSD_PASSED and RESSD_FAILED.
RESSD_PASSED=0
RESSD_FAILED=0
ressd_pass() {
	echo "PASS [$1] $2"
	RESSD_PASSED=$((RESSD_PASSED + 1))
}
ressd_fail() {
	echo "FAIL [$1] $2"
	RESSD_FAILED=$((RESSD_FAILED + 1))
}

# ressd_report [<counts file>]: write "<passed> <failed>" to the counts file
# (read by scripts/test-all.sh), print "N passed, N failed" and return
# non-zero on any failure.
ressd_report() {
	[ -n "${1:-}" ] && echo "$RESSD_PASSED $RESSD_FAILED" >"$1"
	echo "$RESSD_PASSED passed, $RESSD_FAILED failed"
	[ "$RESSD_FAILED" -eq 0 ]
}

#!/bin/bash
# Install everything dm-ressd's build, tests, demo and benchmarks need on a
# Debian 12 machine, as root.  Idempotent: a quick no-op when all is there.
#
#   scripts/deps.sh          packages for building, the demo and the tests
#                            of one kernel (RESSD_KERNEL, 6.1 by default)
#   scripts/deps.sh test     also the second kernel make test runs on
#   scripts/deps.sh bench    also the benchmark peers and plotting
#
# A kernel is installed as image, headers and source: 6.1 (Debian 12's
# own) always, and 6.12 (the LTS kernel Debian 12 carries in its
# bookworm-security suite, linux-*-6.12-amd64) for "test" or when
# RESSD_KERNEL is 6.12.  The 6.12 image is bootable: on a machine that
# boots through GRUB it becomes the default entry, as any newer kernel
# installed does.
set -euo pipefail
. "$(dirname "$0")/common.sh"

pkgs=(
	build-essential bc flex bison libelf-dev libssl-dev cpio rsync xz-utils kmod
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	qemu-system-x86 busybox-static
	dmsetup fio blktrace e2fsprogs util-linux fdisk procps gawk jq strace
	sparse python3 python3-venv python3-pip python3-matplotlib dkms
	gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf
)
if [ "${1:-}" = bench ]; then
	pkgs+=(f2fs-tools bcache-tools postmark sqlite3)
fi
series_list=(6.1)
p612=(linux-image-6.12-amd64 linux-headers-6.12-amd64 linux-source-6.12)
if [ "${1:-}" = test ]; then
	series_list=("${RESSD_KERNELS[@]}")
elif [ "$RESSD_KERNEL" = 6.12 ]; then
	series_list+=(6.12)
fi
if [ ${#series_list[@]} -gt 1 ]; then
	pkgs+=("${p612[@]}")
fi

# dm-writeboost-dkms, which an older deps.sh installed, would fail the
# installation of the 6.12 image (its DKMS build fails there): the benchmark
# now unpacks its source instead (ressd_writeboost_source).
if [ "$(id -u)" = 0 ] && ressd_pkg_installed dm-writeboost-dkms &&
	[ ${#series_list[@]} -gt 1 ] && ! ressd_pkg_installed linux-image-6.12-amd64; then
	ressd_log "removing dm-writeboost-dkms: its DKMS build would fail the 6.12 kernel's installation"
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq dm-writeboost-dkms >/dev/null
fi

if ! ressd_apt_install "${pkgs[@]}"; then
	# As root, apt-get update has run by now: a 6.12 package with no
	# candidate means the suite that carries it is missing.
	for p in "${p612[@]}"; do
		[ ${#series_list[@]} -gt 1 ] && [ "$(id -u)" = 0 ] && ! ressd_pkg_installed "$p" &&
			! apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [0-9]' &&
			ressd_die "no package $p in the apt sources: Debian 12 has the 6.12 kernel in bookworm-security ('deb http://deb.debian.org/debian-security bookworm-security main' in /etc/apt/sources.list)"
	done
	ressd_die "could not install the packages"
fi
# The image meta-packages alone pull whichever ABI is newest; make sure the
# headers for that very image are present as well, in each series.
kvers=
for series in "${series_list[@]}"; do
	if ! kver=$(RESSD_KERNEL=$series ressd_debian_kver); then
		[ "$(id -u)" = 0 ] || ressd_die "no Debian $series kernel with headers found"
		apt-get install -y -qq "linux-headers-$(ls /boot/vmlinuz-"$series".*-amd64 | sort -V | tail -n1 | sed 's,.*/vmlinuz-,,')" >/dev/null
		kver=$(RESSD_KERNEL=$series ressd_debian_kver) ||
			ressd_die "no Debian $series kernel with matching headers"
	fi
	kvers+=" $kver"
done
# make check's cross builds for the boards: Debian's arm64 and armhf
# headers, unpacked into the cache (make test-arm64 installs what its guest
# needs besides, and builds it on its first run).
for c in "arm64 arm64" "armhf armmp"; do
	# shellcheck disable=SC2086
	ressd_cross_headers $c >/dev/null || ressd_die "no Debian 6.1 headers for ${c%% *}"
done
if [ "${1:-}" = bench ]; then
	ressd_writeboost_source >/dev/null || ressd_log "warning: no dm-writeboost source: the bench will skip it"
fi

# virtme-ng boots the Debian kernel with the host's root file system.
if ! "$RESSD_VENV/bin/vng" --version >/dev/null 2>&1; then
	ressd_log "installing virtme-ng into $RESSD_VENV"
	mkdir -p "$RESSD_CACHE"
	python3 -m venv "$RESSD_VENV"
	"$RESSD_VENV/bin/pip" install -q --upgrade pip >/dev/null
	"$RESSD_VENV/bin/pip" install -q virtme-ng
fi
ressd_log "dependencies ready (Debian kernels:$kvers)"

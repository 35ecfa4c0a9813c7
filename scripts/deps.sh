#!/bin/bash
# Install everything dm-ressd's build, tests, demo and benchmarks need on a
# Debian 12 machine, as root.  Idempotent: a quick no-op when all is there.
#
#   scripts/deps.sh          packages for building and testing
#   scripts/deps.sh bench    also the benchmark peers and plotting
set -euo pipefail
. "$(dirname "$0")/common.sh"

pkgs=(
	build-essential bc flex bison libelf-dev libssl-dev cpio rsync xz-utils kmod
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	qemu-system-x86 busybox-static
	dmsetup fio blktrace e2fsprogs util-linux procps gawk jq
	sparse python3 python3-venv python3-pip python3-matplotlib dkms
)
if [ "${1:-}" = bench ]; then
	pkgs+=(f2fs-tools bcache-tools dm-writeboost-dkms postmark sqlite3)
fi

ressd_apt_install "${pkgs[@]}" || ressd_die "could not install the packages"
# linux-image-amd64 alone pulls whichever ABI is newest; make sure the
# headers for that very image are present as well.
if ! kver=$(ressd_debian_kver); then
	[ "$(id -u)" = 0 ] || ressd_die "no Debian kernel with headers found"
	apt-get install -y -qq "linux-headers-$(ls /boot/vmlinuz-"$RESSD_KERNEL".*-amd64 | sort -V | tail -n1 | sed 's,.*/vmlinuz-,,')" >/dev/null
	kver=$(ressd_debian_kver) || ressd_die "no Debian kernel with matching headers"
fi

# virtme-ng boots the Debian kernel with the host's root file system.
if ! "$RESSD_VENV/bin/vng" --version >/dev/null 2>&1; then
	ressd_log "installing virtme-ng into $RESSD_VENV"
	mkdir -p "$RESSD_CACHE"
	python3 -m venv "$RESSD_VENV"
	"$RESSD_VENV/bin/pip" install -q --upgrade pip >/dev/null
	"$RESSD_VENV/bin/pip" install -q virtme-ng
fi
ressd_log "dependencies ready (Debian kernel $kver)"

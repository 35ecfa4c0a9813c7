#!/bin/bash
# Build, or reuse from the cache, the User-Mode Linux debug kernel (KUnit,
# KASAN, UBSAN, lockdep) described by tests/uml/debug.config, with
# tests/uml/debug-<series>.config appended where it exists, from Debian's
# linux-source of the series RESSD_KERNEL (6.1 or 6.12).  Prints the build
# directory.  The cache key is the linux-source package version and a hash
# of the configuration fragment.
#
# UML saves and restores its processes' FPU state through ptrace with a
# buffer of a size fixed at build time, 2696 bytes (the XSAVE area of an
# AVX-512 CPU), and the host refuses any size but its own with EFAULT: on a
# CPU with AMX (11008 bytes) every UML process dies at once ("ptrace set fp
# regs failed, errno = 14").  So the host's size is measured
# (tests/uml/xstate-size.c) and, where it differs, UML is built for it, with
# 64 KiB kernel stacks since the buffer also sits in each stack's
# thread_info; the fragment records the size, so that the key follows it.
#
# "uml-kernel.sh arm64" builds instead the arm64 kernel of the same
# debugging options (UML's own drivers left out) with what the arm64 guest
# needs built in (tests/arm64-kunit.config), cross-compiled, for the KUnit
# suites under qemu-system-aarch64 (scripts/test-guest.sh kunit-arm64).
set -euo pipefail
. "$(dirname "$0")/common.sh"

arch=${1:-um}
case $arch in um | arm64) ;; *) ressd_die "usage: uml-kernel.sh [arm64]" ;; esac

src=$(ressd_source_tree) ||
	ressd_die "linux-source-$RESSD_KERNEL is not installed (run scripts/deps.sh test)"
ver=$(ressd_source_version)
mkdir -p "$RESSD_CACHE"
frag=$(mktemp "$RESSD_CACHE/kunitconfig.XXXXXX")
trap 'rm -f "$frag"' EXIT
cat "$RESSD_TOP/tests/uml/debug.config" >"$frag"
extra=$RESSD_TOP/tests/uml/debug-$RESSD_KERNEL.config
[ -e "$extra" ] && cat "$extra" >>"$frag"
xstate=2696
if [ $arch = arm64 ]; then
	sed -i -e '/^CONFIG_HOSTFS=/d' -e '/^CONFIG_BLK_DEV_UBD=/d' -e '/CONFIG_UML_/d' \
		-e '/^CONFIG_KERNEL_STACK_ORDER=/d' "$frag"
	cat "$RESSD_TOP/tests/arm64-kunit.config" >>"$frag"
	kunit_args=(--arch=arm64 --cross_compile=aarch64-linux-gnu-)
	name=kunit-arm64
else
	xs=$RESSD_CACHE/xstate-size
	gcc -O2 -o "$xs" "$RESSD_TOP/tests/uml/xstate-size.c" && xstate=$("$xs") ||
		ressd_log "warning: could not measure the XSAVE area; UML assumes 2696 bytes"
	if [ "$xstate" != 2696 ]; then
		sed -i '/^CONFIG_KERNEL_STACK_ORDER=/d' "$frag"
		printf '# the host XSAVE area: %s bytes\nCONFIG_KERNEL_STACK_ORDER=4\n' "$xstate" >>"$frag"
	fi
	kunit_args=(--arch=um)
	name=uml
fi
hash=$(sha256sum "$frag" | cut -c1-12)
build=$RESSD_CACHE/$name-$ver-$hash

exec 9>"$RESSD_CACHE/$name-build.lock"
flock 9
if [ ! -e "$build/.done" ]; then
	ressd_log "building the $name debug kernel $ver in $build (cold: several minutes)"
	start=$(date +%s)
	mkdir -p "$build"
	if [ $arch = um ]; then
		sed -i "s/DEFINE_LONGS(HOST_FP_SIZE, [0-9]*);/DEFINE_LONGS(HOST_FP_SIZE, $xstate);/" \
			"$src/arch/x86/um/user-offsets.c"
		grep -q "DEFINE_LONGS(HOST_FP_SIZE, $xstate);" "$src/arch/x86/um/user-offsets.c" ||
			ressd_die "cannot set UML's FPU state size in $src/arch/x86/um/user-offsets.c"
	fi
	(cd "$src" && python3 tools/testing/kunit/kunit.py build "${kunit_args[@]}" \
		--kunitconfig="$frag" --build_dir="$build" --jobs="$(nproc)") >"$build/build.log" 2>&1 ||
		{ tail -n 40 "$build/build.log" >&2; ressd_die "$name kernel build failed (log: $build/build.log)"; }
	touch "$build/.done"
	ressd_log "$name kernel built in $(( $(date +%s) - start )) s"
fi
echo "$build"

#!/bin/bash
# make check: W=1 and sparse (C=2) builds against the Debian headers and the
# UML debug kernel of each kernel series the tests run (6.1 and 6.12) with no
# warning from our files, checkpatch --strict on our
# sources, kernel-doc on our headers.  One PASS/FAIL line per check, then
# "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/common.sh"

out=$RESSD_TOP/.out/check
rm -rf "$out"
mkdir -p "$out"
result() {	# <ok?> <name> [detail file]
	if [ "$1" = 0 ]; then
		ressd_pass check "$2"
	else
		ressd_fail check "$2"
		# the lines that say what is wrong, else the start of the file
		[ -n "${3:-}" ] && { grep -E 'error|ERROR|warning|WARNING|CHECK|undefined|not ' "$3" | grep . ||
			cat "$3"; } | head -n 30 | sed 's/^/    /'
	fi
}

src=$(ressd_source_tree 6.1) || ressd_die "linux-source-6.1 is not installed (run make deps)"
cd "$RESSD_TOP"
# Kernel sources: the target, its KUnit suites and dm-ftlsim with its own
# (tools/ftlsim).
mapfile -t cfiles < <(ls ./*.[ch] tests/kunit/*.[ch] tools/ftlsim/*.[ch] 2>/dev/null | grep -v '\.mod\.c$' | sed 's,^\./,,')

# Our sources copied to a build directory of their own for each kernel.
build_check() {	# <name> <kdir> [make args]
	local name=$1 kdir=$2
	shift 2
	local b=$out/$name
	ressd_build_modules "$kdir" "$b" "$b.log" "$@" W=1 C=2
	local rc=$?
	ressd_our_warnings "$b" "$b.log" >"$b.warn"
	[ $rc -eq 0 ] && [ ! -s "$b.warn" ]
	result $? "$name: W=1 C=2 build with no warnings" "$([ -s "$b.warn" ] && echo "$b.warn" || echo "$b.log")"
}

for series in "${RESSD_KERNELS[@]}"; do
	if kver=$(RESSD_KERNEL=$series ressd_debian_kver); then
		build_check "debian-$kver" "/usr/src/linux-headers-$kver"
	else
		result 1 "debian-$series: no Debian $series kernel with headers (run make deps)"
	fi
	if uml=$(RESSD_KERNEL=$series bash "$RESSD_TOP/scripts/uml-kernel.sh"); then
		build_check "uml-debug-$series" "$uml" ARCH=um
	else
		result 1 "uml-debug-$series: kernel build"
	fi
done

# The boards dm-ressd is for: cross builds against Debian's 6.1 headers of
# arm64 and armhf (32-bit, where a u64 '/' or '%' becomes a call of
# __aeabi_uldivmod, which the kernel does not export: div_u64 and friends
# are the way), with a check that every symbol each module needs is
# exported by that kernel or by our own modules.
cross_check() {	# <debian arch> <flavour> <ARCH> <CROSS_COMPILE>
	local arch=$1 kdir name b ko missing=0
	if ! command -v "${4}gcc" >/dev/null; then
		result 1 "cross-$arch: no ${4}gcc (run make deps)"
		return
	fi
	if ! kdir=$(ressd_cross_headers "$1" "$2" 2>"$out/cross-$arch.fetch"); then
		result 1 "cross-$arch: Debian headers (run make deps)" "$out/cross-$arch.fetch"
		return
	fi
	name=cross-$arch-$(basename "$kdir" | sed 's/^linux-headers-//')
	# (modpost only warns of an undefined symbol, and the .ko is made, so
	# that the check below names each one)
	build_check "$name" "$kdir" ARCH="$3" CROSS_COMPILE="$4" KBUILD_MODPOST_WARN=1
	b=$out/$name
	{
		for ko in "$b"/dm_ressd.ko "$b"/tools/ftlsim/dm_ftlsim.ko; do
			[ -e "$ko" ] || { echo "$ko: not built"; continue; }
			"${4}nm" -u "$ko" | awk -v ko="${ko#"$b"/}" '
				FILENAME != "-" { have[$2] = 1; next }
				!($2 in have) { print ko ": " $2 " is not exported by the kernel" }' \
				"$kdir/Module.symvers" "$b/Module.symvers" -
		done
	} >"$b.symbols" 2>&1
	[ -s "$kdir/Module.symvers" ] && [ ! -s "$b.symbols" ] || missing=1
	result $missing "$name: every symbol the modules need is exported" "$b.symbols"
}
cross_check arm64 arm64 arm64 aarch64-linux-gnu-
cross_check armhf armmp arm arm-linux-gnueabihf-

# The options are in .checkpatch.conf, which checkpatch reads from here.
[ -f .checkpatch.conf ] || ressd_die ".checkpatch.conf is missing"
perl "$src/scripts/checkpatch.pl" --quiet -f "${cfiles[@]}" >"$out/checkpatch.txt" 2>&1
grep -qE '^(ERROR|WARNING|CHECK)' "$out/checkpatch.txt" && r=1 || r=0
result $r "checkpatch --strict (${#cfiles[@]} files)" "$out/checkpatch.txt"

mapfile -t hfiles < <(printf '%s\n' "${cfiles[@]}" | grep '\.h$')
perl "$src/scripts/kernel-doc" -none "${hfiles[@]}" >"$out/kernel-doc.txt" 2>&1
[ -s "$out/kernel-doc.txt" ] && r=1 || r=0
result $r "kernel-doc -none (${#hfiles[@]} headers)" "$out/kernel-doc.txt"

ressd_report "$out/counts"

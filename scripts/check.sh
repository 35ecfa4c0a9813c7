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
		[ -n "${3:-}" ] && head -n 30 "$3" | sed 's/^/    /'
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

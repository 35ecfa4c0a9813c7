#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The DKMS package: dkms.conf agrees with VERSION and with Kbuild, and DKMS
# adds, builds, installs and removes it for each Debian kernel the tests run
# (6.1 and 6.12; or the <kver> given) in throwaway trees (scripts/dkms.sh
# test; the machine's DKMS state is left as it was).
# Runs on the host; installs the dkms package when it is missing (root).
# Prints what it checks; exits non-zero on the first failure.
#
#   tests/host/dkms-build.sh [<kver>]
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)

fail() {
	echo "FAIL: $*"
	exit 1
}

ver=$(tr -d ' \t\n' <"$top/VERSION") || fail "no VERSION file"
[ -n "$ver" ] || fail "VERSION is empty"

# dkms.conf as DKMS reads it: sourced by bash, from wherever it lies.
conf=$(
	set +u
	kernel_source_dir=/KSRC dkms_tree=/DKMS
	# shellcheck source=dkms.conf
	. "$top/dkms.conf" >/dev/null
	echo "name=$PACKAGE_NAME"
	echo "version=$PACKAGE_VERSION"
	echo "autoinstall=$AUTOINSTALL"
	echo "modules=${BUILT_MODULE_NAME[*]}"
	echo "make=${MAKE[0]}"
) || fail "dkms.conf does not source cleanly"
val() { sed -n "s/^$1=//p" <<<"$conf"; }

[ "$(val name)" = dm-ressd ] || fail "PACKAGE_NAME is '$(val name)', not dm-ressd"
echo "ok: PACKAGE_NAME dm-ressd"
[ "$(val version)" = "$ver" ] || fail "PACKAGE_VERSION '$(val version)' differs from VERSION '$ver'"
echo "ok: PACKAGE_VERSION $ver, taken from VERSION"
[ "$(val autoinstall)" = yes ] || fail "AUTOINSTALL is not yes"
echo "ok: AUTOINSTALL yes"
[ "$(val make)" = "make -C /KSRC M=/DKMS/dm-ressd/$ver/build modules" ] ||
	fail "MAKE[0] is '$(val make)'"
echo "ok: MAKE[0] builds with the project's Kbuild"

# The package is the module that Kbuild always builds (dm-ftlsim and the
# KUnit suites only on request, and not in the package).
want=$(
	sed -n 's/^obj-m *:\{0,1\}= *\([a-z_]*\)\.o$/\1/p' "$top/Kbuild" 2>/dev/null |
		sort | tr '\n' ' '
)
have=$(tr ' ' '\n' <<<"$(val modules)" | sort | tr '\n' ' ')
if [ -z "$want" ] || [ "$want" != "$have" ]; then
	fail "dkms.conf builds '$have', Kbuild builds '$want'"
fi
echo "ok: dkms.conf lists the modules Kbuild builds: $have"

. "$top/scripts/common.sh"
kvers=("$@")
if [ ${#kvers[@]} -eq 0 ]; then
	for series in "${RESSD_KERNELS[@]}"; do
		k=$(RESSD_KERNEL=$series ressd_debian_kver) ||
			fail "no Debian $series kernel with headers (run scripts/deps.sh test)"
		kvers+=("$k")
	done
fi
for k in "${kvers[@]}"; do
	out=$(bash "$top/scripts/dkms.sh" test "$k" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/    /'
	[ $rc -eq 0 ] || fail "scripts/dkms.sh test $k exited $rc"
	grep -q '^PASS ' <<<"$out" || fail "scripts/dkms.sh test $k did not pass"
	grep -q '^neither dm-ftlsim nor the KUnit suites' <<<"$out" ||
		fail "scripts/dkms.sh test $k did not check that dm-ftlsim is left out"
	echo "ok: dm-ftlsim and the KUnit suites are not in the package for $k"
	echo "ok: dkms add, build, install and remove of dm-ressd $ver for $k"
done

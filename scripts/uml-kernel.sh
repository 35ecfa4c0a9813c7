#!/bin/bash
# Build, or reuse from the cache, the User-Mode Linux debug kernel (KUnit,
# KASAN, UBSAN, lockdep) described by tests/uml/debug.config, with
# tests/uml/debug-<series>.config appended where it exists, from Debian's
# linux-source of the series RESSD_KERNEL (6.1 or 6.12).  Prints the build
# directory.  The cache key is the linux-source package version and a hash
# of the configuration fragment.
set -euo pipefail
. "$(dirname "$0")/common.sh"

src=$(ressd_source_tree) ||
	ressd_die "linux-source-$RESSD_KERNEL is not installed (run scripts/deps.sh test)"
ver=$(ressd_source_version)
mkdir -p "$RESSD_CACHE"
frag=$(mktemp "$RESSD_CACHE/kunitconfig.XXXXXX")
trap 'rm -f "$frag"' EXIT
cat "$RESSD_TOP/tests/uml/debug.config" >"$frag"
extra=$RESSD_TOP/tests/uml/debug-$RESSD_KERNEL.config
[ -e "$extra" ] && cat "$extra" >>"$frag"
hash=$(sha256sum "$frag" | cut -c1-12)
build=$RESSD_CACHE/uml-$ver-$hash

exec 9>"$RESSD_CACHE/uml-build.lock"
flock 9
if [ ! -e "$build/.done" ]; then
	ressd_log "building the UML debug kernel $ver in $build (cold: several minutes)"
	start=$(date +%s)
	mkdir -p "$build"
	(cd "$src" && python3 tools/testing/kunit/kunit.py build --arch=um \
		--kunitconfig="$frag" --build_dir="$build" --jobs="$(nproc)") >"$build/build.log" 2>&1 ||
		{ tail -n 40 "$build/build.log" >&2; ressd_die "UML kernel build failed (log: $build/build.log)"; }
	touch "$build/.done"
	ressd_log "UML kernel built in $(( $(date +%s) - start )) s"
fi
echo "$build"

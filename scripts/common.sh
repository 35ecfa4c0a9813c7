# Shared settings for dm-ressd's build and test scripts.  Sourced, not run.
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
mkdir -p "$RESSD_CACHE"

ressd_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
ressd_die() { ressd_log "error: $*"; exit 1; }

# ressd_apt_install <package>...: install the Debian packages that are
# missing (as root; apt-get update first).  Returns non-zero, with the reason
# on stderr, when some are missing and cannot be installed.
ressd_apt_install() {
	local p missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
			missing+=("$p")
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

# The Debian kernel that the functional tests and benchmarks boot: the
# newest installed 6.1 image with matching headers.
ressd_debian_kver() {
	local k best=
	for k in /usr/src/linux-headers-*-amd64; do
		[ -d "$k" ] || continue
		k=${k#/usr/src/linux-headers-}
		[ -e "/boot/vmlinuz-$k" ] && [ -d "/lib/modules/$k" ] && best=$k
	done
	[ -n "$best" ] || return 1
	echo "$best"
}

# The version of Debian's linux-source-6.1 package: the UML kernel's key.
ressd_source_version() {
	dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null
}

# The extracted kernel source tree (extracted once per package version).
ressd_source_tree() {
	local ver dir
	ver=$(ressd_source_version) || return 1
	[ -n "$ver" ] || return 1
	dir=$RESSD_CACHE/linux-source-$ver
	if [ ! -e "$dir/.extracted" ]; then
		ressd_log "extracting linux-source-6.1 $ver"
		rm -rf "$dir.tmp" "$dir"
		mkdir -p "$dir.tmp"
		tar -C "$dir.tmp" -xf /usr/src/linux-source-6.1.tar.xz
		mv "$dir.tmp/linux-source-6.1" "$dir"
		rmdir "$dir.tmp"
		touch "$dir/.extracted"
	fi
	echo "$dir"
}

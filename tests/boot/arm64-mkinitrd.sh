#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# PID 1 of the arm64 guest (scripts/common.sh, ressd_boot_arm64) that makes
# the initramfs images of tests/boot/root-initramfs.sh arm64: mkinitramfs
# and dracut must run where the programs they copy into the image are
# arm64's.  Each line of <out>/mkinitrd.cmds is "<log name> <command...>"
# (shell-quoted by the host); the command's output goes to
# <out>/<log name>.log and its status to <out>/<log name>.rc.
#
# usage: arm64-mkinitrd.sh <out>
out=$1
. "$(dirname "$0")/../../scripts/common.sh"
ressd_guest_pid1
# the root is read-only: the tools' scratch space
mount -t tmpfs tmp /tmp
mount -t tmpfs vartmp /var/tmp
export TMPDIR=/tmp
run() {	# <log name> <command...>
	local log=$1
	shift
	echo "arm64-mkinitrd: $log: $*" >/dev/console
	"$@" </dev/null >"$out/$log.log" 2>&1
	echo $? >"$out/$log.rc"
}
while IFS= read -r line; do
	eval "run $line"
done <"$out/mkinitrd.cmds"
sync
/bin/busybox poweroff -f

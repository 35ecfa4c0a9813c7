#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# dracut initqueue/settled hook of dm-ressd: open the /etc/ressdtab entries
# with the option "initramfs" (replaying their logs).  The initqueue runs
# it again while the root has not appeared; an entry already open is left
# as it is, so a device that comes late is opened on a later round.
# (Sourced by the initqueue: no exit.)
if [ -x /sbin/ressdsetup ] && [ -r /etc/ressdtab ]; then
    modprobe -q dm_ressd
    if ! /sbin/ressdsetup tab-open --initramfs >/run/ressd-open.log 2>&1; then
        while read -r line; do
            warn "ressd: $line"
        done < /run/ressd-open.log
    fi
fi

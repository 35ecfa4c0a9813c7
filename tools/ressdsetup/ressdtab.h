/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * /etc/ressdtab: the dm-ressd devices to open at boot, one a line, like
 * crypttab:
 *
 *   # <name>  <device>                                   [options]
 *   fast      /dev/disk/by-id/ata-XYZ                    drain-on-stop
 *   slow      UUID=6f0b2c1e-8d3a-4f57-9b1e-2a3c4d5e6f70  noauto,readonly
 *
 * and the commands that use it: tab-check, tab-open, tab-close, the systemd
 * generator and udev-id (for the udev rule).  See ressdsetup(8).
 */
#ifndef RESSD_RESSDTAB_H
#define RESSD_RESSDTAB_H

#include <stdbool.h>

#include "ressd-types.h"

#define RESSDTAB_DEFAULT	"/etc/ressdtab"

/*
 * What tab-open and tab-close run for an entry: the main dispatcher of
 * ressdsetup (run in a child process, as "ressdsetup open ..." would be)
 * and dmsetup itself (for the "set <tunable>" messages after open).
 */
struct tab_ops {
	int (*run)(int argc, char **argv);
	int (*dmsetup)(const char *const *args);
};

extern const char *const tab_usage[];	/* NULL-terminated */

/* The commands; @argc/@argv start at the command name. */
int tab_check_main(int argc, char **argv);
int tab_open_main(int argc, char **argv, const struct tab_ops *ops);
int tab_close_main(int argc, char **argv, const struct tab_ops *ops);
int tab_generator_main(int argc, char **argv);
int tab_udev_id_main(int argc, char **argv);

#endif

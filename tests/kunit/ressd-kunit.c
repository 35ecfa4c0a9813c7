// SPDX-License-Identifier: GPL-2.0-only
/*
 * Module information of dm_ressd_kunit.ko.  Each other file
 * in this directory is one KUnit suite; they run when the module loads.
 */
#include <linux/module.h>

MODULE_DESCRIPTION("KUnit suites for dm-ressd");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * /etc/ressdtab and boot activation: tab-check, tab-open, tab-close, the
 * systemd generator and udev-id.  The format is in ressdtab.h and
 * ressdsetup(8); opening and closing are done by "ressdsetup open" and
 * "ressdsetup close" themselves (through tab_ops), so an entry opens exactly
 * as the command line would open it.
 */
#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dev.h"
#include "label.h"
#include "ressdtab.h"
#include "util.h"

#ifndef RESSDSETUP_PATH
#define RESSDSETUP_PATH	"/usr/local/sbin/ressdsetup"
#endif
#define BY_RESSD_UUID	"/dev/disk/by-ressd-uuid/"

const char *const tab_usage[] = {
	"tab-check [--tab <file>]",
	"tab-open [--tab <file>] [--initramfs | <name>...]",
	"tab-close [--tab <file>] [<name>...]",
	"generator [--tab <file>] <normal-dir> <early-dir> <late-dir>",
	"udev-id <device>",
	NULL
};

/* The tunables an entry may set after open ("dmsetup message <name> 0 set"). */
static const char *const tun_keys[] = {
	"small_write_max", "high_watermark", "low_watermark", "mover_batch"
};
#define NR_TUN	ARRAY_SIZE(tun_keys)

struct tab_entry {
	int line;
	char *name;
	char *device;		/* as written: a path or UUID=<uuid> */
	char uuid[37];		/* for UUID=, lower case; else empty */
	char *log_device;	/* log-device=, or NULL */
	bool noauto, nofail, readonly, drain;
	bool initramfs;		/* opened in the initramfs (the root, or what it needs) */
	bool tun_set[NR_TUN];
	u32 tun[NR_TUN];
};

struct tab {
	const char *path;
	struct tab_entry *e;
	size_t n;
	int errors;
};

static void tab_err(struct tab *t, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void tab_err(struct tab *t, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s:%d: ", progname, t->path, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	t->errors++;
}

static char *xstrdup(const char *s)
{
	char *p = xcalloc(1, strlen(s) + 1);

	return strcpy(p, s);
}

/* A device-mapper name that is also safe in a unit file and a table line. */
static bool valid_name(const char *s)
{
	size_t i, len = strlen(s);

	if (!len || len > 127 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.+:-", s[i]))
			return false;
	return true;
}

/* 8-4-4-4-12 hexadecimal digits; lower-cased into @out (37 bytes). */
static bool parse_uuid(const char *s, char *out)
{
	size_t i;

	if (strlen(s) != 36)
		return false;
	for (i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return false;
		out[i] = (char)tolower((unsigned char)s[i]);
	}
	out[36] = 0;
	return true;
}

/* A path for a table line: absolute, no white space (the caller split at it). */
static bool valid_path(const char *s)
{
	return s[0] == '/' && s[1] && strlen(s) < PATH_MAX;
}

static int parse_device(struct tab *t, struct tab_entry *e, const char *dev)
{
	if (!strncmp(dev, "UUID=", 5)) {
		if (!parse_uuid(dev + 5, e->uuid)) {
			tab_err(t, e->line, "'%s': UUID= needs a UUID like "
				"6f0b2c1e-8d3a-4f57-9b1e-2a3c4d5e6f70 (ressdsetup check shows the label's)",
				dev);
			return -1;
		}
	} else if (!strncmp(dev, "LABEL=", 6) || !strncmp(dev, "PARTUUID=", 9) ||
		   !strncmp(dev, "PARTLABEL=", 10)) {
		tab_err(t, e->line, "'%s': the ressd label has only a UUID: give UUID=<uuid> or "
			"a path (for example /dev/disk/by-partlabel/...)", dev);
		return -1;
	} else if (!valid_path(dev)) {
		tab_err(t, e->line, "device '%s' must be an absolute path or UUID=<uuid>", dev);
		return -1;
	}
	e->device = xcalloc(1, strlen(dev) + 1);
	if (e->uuid[0])		/* canonical, so that duplicates are found */
		sprintf(e->device, "UUID=%s", e->uuid);
	else
		strcpy(e->device, dev);
	return 0;
}

static int parse_tunable(struct tab *t, struct tab_entry *e, const char *key, const char *val)
{
	struct ressd_tun tun = {
		/* valid and as loose as possible, so that only @key can fail */
		.small_write_max = 8, .high_watermark = 100, .low_watermark = 0,
		.mover_batch = 8192,
	};
	u32 *f[NR_TUN] = { &tun.small_write_max, &tun.high_watermark, &tun.low_watermark,
			   &tun.mover_batch };
	const char *why;
	size_t k;

	for (k = 0; k < NR_TUN; k++)
		if (!strcmp(key, tun_keys[k]))
			break;
	if (k == NR_TUN)
		return 1;
	if (e->tun_set[k]) {
		tab_err(t, e->line, "option %s given twice", key);
		return -1;
	}
	if (parse_u32(val, &e->tun[k])) {
		tab_err(t, e->line, "option %s=%s: not a number", key, val);
		return -1;
	}
	e->tun_set[k] = true;
	for (k = 0; k < NR_TUN; k++)
		if (e->tun_set[k])
			*f[k] = e->tun[k];
	why = tun_check(&tun);
	if (why) {
		tab_err(t, e->line, "option %s=%s: %s", key, val, why);
		return -1;
	}
	return 0;
}

static int parse_option(struct tab *t, struct tab_entry *e, char *opt)
{
	char *eq = strchr(opt, '='), *p;
	int r;

	if (!*opt) {
		tab_err(t, e->line, "empty option (two commas, or a comma at an end)");
		return -1;
	}
	if (eq)
		*eq++ = 0;
	if (!eq) {
		if (!strcmp(opt, "defaults") || !strcmp(opt, "auto"))
			return 0;
		if (!strcmp(opt, "noauto"))
			return e->noauto = true, 0;
		if (!strcmp(opt, "nofail"))
			return e->nofail = true, 0;
		if (!strcmp(opt, "readonly") || !strcmp(opt, "read-only"))
			return e->readonly = true, 0;
		if (!strcmp(opt, "drain-on-stop"))
			return e->drain = true, 0;
		if (!strcmp(opt, "initramfs"))
			return e->initramfs = true, 0;
	} else if (!strcmp(opt, "log-device")) {
		if (e->log_device) {
			tab_err(t, e->line, "option log-device given twice");
			return -1;
		}
		if (!valid_path(eq)) {
			tab_err(t, e->line, "option log-device=%s: must be an absolute path", eq);
			return -1;
		}
		e->log_device = xstrdup(eq);
		return 0;
	} else {
		for (p = opt; *p; p++)	/* small-write-max as small_write_max */
			if (*p == '-')
				*p = '_';
		r = parse_tunable(t, e, opt, eq);
		if (r <= 0)
			return r;
	}
	tab_err(t, e->line, "unknown option '%s%s%s' (known: noauto, nofail, readonly, "
		"drain-on-stop, initramfs, log-device=<path>, small_write_max=, high_watermark=, "
		"low_watermark=, mover_batch=)", opt, eq ? "=" : "", eq ? eq : "");
	return -1;
}

static void entry_free(struct tab_entry *e)
{
	free(e->name);
	free(e->device);
	free(e->log_device);
}

/* Parse line @no; a valid entry is added to @t. */
static void parse_line(struct tab *t, int no, char *line)
{
	struct tab_entry e = { .line = no };
	char *field[4], *p, *save = NULL, *opt;
	int n = 0, bad = 0;
	size_t i;

	for (p = line; *p; p++)	/* a comment starts with # at the start of a field */
		if (*p == '#' && (p == line || isspace((unsigned char)p[-1]))) {
			*p = 0;
			break;
		}
	for (p = strtok_r(line, " \t\r\n", &save); p; p = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == 4)
			break;
		field[n++] = p;
	}
	if (!n)
		return;
	if (n < 2 || n > 3) {
		tab_err(t, no, "%s: expected <name> <device> [options]",
			n < 2 ? "1 field" : "more than 3 fields");
		return;
	}
	if (!valid_name(field[0])) {
		tab_err(t, no, "name '%s' is not valid (1 to 127 letters, digits and _.+:-)",
			field[0]);
		return;
	}
	e.name = xstrdup(field[0]);
	for (i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].name, e.name)) {
			tab_err(t, no, "name '%s' is already used on line %d", e.name, t->e[i].line);
			goto out;
		}
	if (parse_device(t, &e, field[1]))
		goto out;
	for (i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].device, e.device)) {
			tab_err(t, no, "device %s is already used on line %d", e.device,
				t->e[i].line);
			goto out;
		}
	if (n == 3) {
		/* strtok would skip empty options, so split by hand */
		for (opt = field[2]; opt; opt = p) {
			p = strchr(opt, ',');
			if (p)
				*p++ = 0;
			bad |= parse_option(t, &e, opt);
		}
		if (bad)
			goto out;
	}
	t->e = realloc(t->e, (t->n + 1) * sizeof(*t->e));
	if (!t->e) {
		errmsg("out of memory");
		exit(8);
	}
	t->e[t->n++] = e;
	return;
out:
	entry_free(&e);
}

/* Read @path into @t: 0 (see t->errors), or -1 when it cannot be read. */
static int tab_load(struct tab *t, const char *path)
{
	char *line = NULL;
	size_t cap = 0;
	int no = 0;
	FILE *f;

	memset(t, 0, sizeof(*t));
	t->path = path;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) >= 0)
		parse_line(t, ++no, line);
	free(line);
	fclose(f);
	return 0;
}

static void tab_free(struct tab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		entry_free(&t->e[i]);
	free(t->e);
}

/* The options of @e in the file's syntax. */
static void entry_options(const struct tab_entry *e, char *buf, size_t n)
{
	size_t len = 0, k;

	buf[0] = 0;
#define ADD(...)	(len += (size_t)snprintf(buf + len, len < n ? n - len : 0, \
					 "%s", len ? "," : ""), \
			 len += (size_t)snprintf(buf + len, len < n ? n - len : 0, __VA_ARGS__))
	if (e->noauto)
		ADD("noauto");
	if (e->nofail)
		ADD("nofail");
	if (e->readonly)
		ADD("readonly");
	if (e->drain)
		ADD("drain-on-stop");
	if (e->initramfs)
		ADD("initramfs");
	if (e->log_device)
		ADD("log-device=%s", e->log_device);
	for (k = 0; k < NR_TUN; k++)
		if (e->tun_set[k])
			ADD("%s=%u", tun_keys[k], e->tun[k]);
#undef ADD
	if (!len)
		snprintf(buf, n, "defaults");
}

/*
 * "[--tab <file>] [positional...]" of tab-* and generator: the tab file, and
 * the positional arguments left in argv[1..*npos].  @initramfs, when not
 * NULL, takes tab-open's --initramfs.
 */
static int tab_args(int argc, char **argv, const char **tabp, int *npos, bool *initramfs)
{
	int i;

	*tabp = RESSDTAB_DEFAULT;
	*npos = 0;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--tab") && i + 1 < argc) {
			*tabp = argv[++i];
		} else if (!strncmp(argv[i], "--tab=", 6)) {
			*tabp = argv[i] + 6;
		} else if (initramfs && !strcmp(argv[i], "--initramfs")) {
			*initramfs = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			errmsg("%s: unknown option %s (see %s %s --help)", argv[0], argv[i],
			       progname, argv[0]);
			return -1;
		} else {
			argv[++*npos] = argv[i];
		}
	}
	return 0;
}

int tab_check_main(int argc, char **argv)
{
	const char *path;
	char opts[1024];
	struct tab t;
	size_t i, nauto = 0;
	int npos;

	if (tab_args(argc, argv, &path, &npos, NULL))
		return 1;
	if (npos) {
		errmsg("tab-check: too many arguments (usage: %s %s)", progname, tab_usage[0]);
		return 1;
	}
	if (tab_load(&t, path)) {
		errmsg("cannot read %s: %s", path, strerror(errno));
		return 1;
	}
	for (i = 0; i < t.n; i++) {
		entry_options(&t.e[i], opts, sizeof(opts));
		printf("%s:%d: %s %s %s\n", path, t.e[i].line, t.e[i].name, t.e[i].device, opts);
		nauto += !t.e[i].noauto;
	}
	printf("%zu entr%s (%zu opened at boot), %d error%s\n", t.n, t.n == 1 ? "y" : "ies",
	       nauto, t.errors, t.errors == 1 ? "" : "s");
	tab_free(&t);
	return t.errors ? 1 : 0;
}

/* ---- finding a device by the UUID of its label ---- */

/* The UUID of the ressd label on @path into @uuid (37 bytes): 0, 1 for none, -1 for an error. */
static int label_uuid(const char *path, char *uuid, bool quiet)
{
	char err[512];
	struct ressd_label l;
	struct rdev d;
	u8 *blk;
	int r = 1;

	if (rdev_open(&d, path, RDEV_READ, err, sizeof(err)) < 0) {
		if (!quiet)
			errmsg("%s", err);
		return -1;
	}
	if (d.size >= RESSD_BLOCK_SIZE) {
		blk = xmalloc_aligned(RESSD_BLOCK_SIZE);
		if (rdev_read(&d, 0, blk, RESSD_BLOCK_SIZE)) {
			if (!quiet)
				errmsg("%s: cannot read the label", path);
			r = -1;
		} else if (!label_decode(blk, &l)) {
			uuid_format(l.uuid, uuid);
			r = 0;
		}
		free(blk);
	}
	rdev_close(&d);
	return r;
}

/* The path of the device whose label has @uuid (malloc'ed), or NULL. */
static char *find_uuid(const char *uuid)
{
	char path[PATH_MAX], got[37];
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), BY_RESSD_UUID "%s", uuid);
	if (!access(path, F_OK))
		return xstrdup(path);
	/* no udev rule (or not run yet): look at every block device */
	dir = opendir("/sys/class/block");
	if (!dir)
		return NULL;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		if (!label_uuid(path, got, true) && !strcmp(got, uuid)) {
			closedir(dir);
			return xstrdup(path);
		}
	}
	closedir(dir);
	return NULL;
}

int tab_udev_id_main(int argc, char **argv)
{
	char uuid[37];
	int r;

	if (argc != 2) {
		errmsg("udev-id: expected one device (usage: %s %s)", progname, tab_usage[4]);
		return 1;
	}
	r = label_uuid(argv[1], uuid, false);
	if (r < 0)
		return 1;
	if (!r)
		printf("RESSD_UUID=%s\n", uuid);
	return 0;
}

/* ---- tab-open, tab-close ---- */

/* Run ressdsetup @argv (NULL-terminated) in a child: its exit status. */
static int run_child(const struct tab_ops *ops, char **argv)
{
	int argc = 0, status;
	pid_t pid;

	while (argv[argc])
		argc++;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		errmsg("fork: %s", strerror(errno));
		return 1;
	}
	if (!pid) {
		int r = ops->run(argc, argv);

		fflush(stdout);
		_exit(r);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/*
 * The entries tab-open or tab-close acts on: the named ones (even noauto),
 * those with the option initramfs (@initramfs: in the initramfs, even
 * noauto), else all but noauto ones (@closing: and but initramfs ones,
 * which stay open until the machine stops).  Returns the number of names
 * not found.
 */
static int select_entries(struct tab *t, int npos, char **names, bool initramfs, bool closing,
			  bool *sel)
{
	int i, missing = 0;
	size_t k;

	for (k = 0; k < t->n; k++)
		sel[k] = initramfs ? t->e[k].initramfs :
			 !npos && !t->e[k].noauto && !(closing && t->e[k].initramfs);
	for (i = 1; i <= npos; i++) {
		const char *name = names[i];

		if (!strncmp(name, "/dev/mapper/", 12))
			name += 12;
		for (k = 0; k < t->n; k++)
			if (!strcmp(t->e[k].name, name))
				break;
		if (k == t->n) {
			errmsg("%s: no valid entry named '%s'", t->path, name);
			missing++;
		} else {
			sel[k] = true;
		}
	}
	return missing;
}

static int open_entry(const struct tab_ops *ops, const struct tab_entry *e)
{
	char *argv[8], *dev, mapper[160], val[16];
	int n = 0, r;
	size_t k;

	snprintf(mapper, sizeof(mapper), "/dev/mapper/%s", e->name);
	if (!access(mapper, F_OK)) {
		printf("%s: %s exists already: left as it is\n", e->name, mapper);
		return 0;
	}
	if (e->uuid[0]) {
		dev = find_uuid(e->uuid);
		if (!dev) {
			errmsg("%s: no device with the ressd label UUID %s", e->name, e->uuid);
			return 1;
		}
	} else {
		dev = xstrdup(e->device);
	}
	argv[n++] = (char *)progname;
	argv[n++] = "open";
	argv[n++] = dev;
	argv[n++] = e->name;
	if (e->log_device) {
		argv[n++] = "--log-device";
		argv[n++] = e->log_device;
	}
	if (e->readonly)
		argv[n++] = "--readonly";
	argv[n] = NULL;
	r = run_child(ops, argv);
	free(dev);
	if (r)
		return r;
	for (k = 0; k < NR_TUN; k++) {
		const char *args[] = { "message", e->name, "0", "set", tun_keys[k], val, NULL };

		if (!e->tun_set[k])
			continue;
		snprintf(val, sizeof(val), "%u", e->tun[k]);
		if (ops->dmsetup(args)) {
			errmsg("%s: 'dmsetup message %s 0 set %s %s' failed (the kernel's reason is "
			       "in its log): the device is open with the label's value",
			       e->name, e->name, tun_keys[k], val);
			r = 1;
		}
	}
	return r;
}

static int close_entry(const struct tab_ops *ops, const struct tab_entry *e)
{
	char *argv[] = { (char *)progname, "close", e->name, e->drain ? "--drain" : NULL, NULL };

	return run_child(ops, argv);
}

/*
 * tab-open and tab-close: @fn on each selected entry, in the order of the
 * file or (closing) the reverse.  1 when any failed or, without names, when
 * the file has errors.
 */
static int tab_each(int argc, char **argv, const struct tab_ops *ops, bool reverse,
		    int (*fn)(const struct tab_ops *, const struct tab_entry *))
{
	const char *path;
	struct tab t;
	bool *sel, initramfs = false;
	int npos, failed;
	size_t i, k;

	if (tab_args(argc, argv, &path, &npos, reverse ? NULL : &initramfs))
		return 1;
	if (initramfs && npos) {
		errmsg("%s: --initramfs takes no names (usage: %s %s)", argv[0], progname,
		       tab_usage[1]);
		return 1;
	}
	if (tab_load(&t, path)) {
		errmsg("cannot read %s: %s", path, strerror(errno));
		return 1;
	}
	sel = xcalloc(t.n, sizeof(*sel));
	failed = select_entries(&t, npos, argv, initramfs, reverse, sel);
	/* (an error on another line must not keep the root from booting) */
	if (!npos && !initramfs)
		failed += t.errors;
	for (i = 0; i < t.n; i++) {
		k = reverse ? t.n - 1 - i : i;
		if (sel[k] && fn(ops, &t.e[k]))
			failed++;
	}
	free(sel);
	tab_free(&t);
	return failed ? 1 : 0;
}

int tab_open_main(int argc, char **argv, const struct tab_ops *ops)
{
	return tab_each(argc, argv, ops, false, open_entry);
}

int tab_close_main(int argc, char **argv, const struct tab_ops *ops)
{
	return tab_each(argc, argv, ops, true, close_entry);
}

/* ---- the systemd generator ---- */

/*
 * systemd's escaping of a unit name part (systemd-escape): '/' as '-' when
 * @path (which is made relative and simplified first), and everything but
 * letters, digits, ':', '_' and a '.' not in front as \xNN.
 */
static void unit_escape(const char *s, bool path, char *out, size_t n)
{
	size_t len = 0;
	bool slash = false;

	if (path) {
		while (*s == '/')
			s++;
		if (!*s) {
			snprintf(out, n, "-");
			return;
		}
	}
	for (; *s && len + 5 < n; s++) {
		if (path && *s == '/') {
			slash = true;
			continue;
		}
		if (slash) {
			out[len++] = '-';
			slash = false;
		}
		if (isalnum((unsigned char)*s) || *s == ':' || *s == '_' || (*s == '.' && len))
			out[len++] = *s;
		else
			len += (size_t)snprintf(out + len, n - len, "\\x%02x", (unsigned char)*s);
	}
	out[len] = 0;
}

static void device_unit(const char *path, char *out, size_t n)
{
	unit_escape(path, true, out, n - 8);
	strcat(out, ".device");
}

/* The path of this ressdsetup for ExecStart= (the one the generator runs). */
static void self_path(char *buf, size_t n)
{
	ssize_t len = readlink("/proc/self/exe", buf, n - 1);

	buf[len > 0 ? len : 0] = 0;
	if (len <= 0 || strpbrk(buf, " \t\n\"'\\%$"))
		snprintf(buf, n, "%s", RESSDSETUP_PATH);
}

static int link_unit(const char *dir, const char *wants, const char *unit)
{
	char path[PATH_MAX], target[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, wants);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	snprintf(path, sizeof(path), "%s/%s/%s", dir, wants, unit);
	snprintf(target, sizeof(target), "../%s", unit);
	if (symlink(target, path) && errno != EEXIST)
		return -1;
	return 0;
}

static int write_unit(const char *dir, const char *tabpath, const char *exe,
		      const struct tab_entry *e)
{
	char unit[620], path[PATH_MAX], dev[PATH_MAX * 4], logdev[PATH_MAX * 4] = "";
	char esc[600], mapper[700], devpath[PATH_MAX];
	FILE *f;

	unit_escape(e->name, false, esc, sizeof(esc));
	snprintf(unit, sizeof(unit), "ressd@%s.service", esc);
	if (e->uuid[0])
		snprintf(devpath, sizeof(devpath), BY_RESSD_UUID "%s", e->uuid);
	else
		snprintf(devpath, sizeof(devpath), "%s", e->device);
	device_unit(devpath, dev, sizeof(dev));
	if (e->log_device)
		device_unit(e->log_device, logdev, sizeof(logdev));
	snprintf(path, sizeof(path), "%s/%s", dir, unit);
	f = fopen(path, "w");
	if (!f) {
		errmsg("generator: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f,
		"# Generated by ressdsetup generator from %s line %d: do not edit.\n"
		"[Unit]\n"
		"Description=dm-ressd device %s\n"
		"Documentation=man:ressdsetup(8)\n"
		"SourcePath=%s\n"
		"DefaultDependencies=no\n"
		"IgnoreOnIsolate=true\n"
		"BindsTo=%s%s%s\n"
		"After=%s%s%s\n"
		"After=systemd-udevd-kernel.socket\n"
		"Before=local-fs-pre.target\n"
		"Wants=local-fs-pre.target\n"
		"Conflicts=umount.target\n"
		"Before=umount.target\n"
		"\n"
		"[Service]\n"
		"Type=oneshot\n"
		"RemainAfterExit=yes\n"
		"TimeoutSec=0\n"
		"ExecStart=%s tab-open --tab %s %s\n",
		tabpath, e->line, e->name, tabpath,
		dev, logdev[0] ? " " : "", logdev, dev, logdev[0] ? " " : "", logdev,
		exe, tabpath, e->name);
	/*
	 * An initramfs entry (the root, or what it needs) was opened in the
	 * initramfs, and ExecStart finds it open; it stays open until the
	 * machine stops (the file system above it is read-only by then, and
	 * the next boot replays what its log holds).
	 */
	if (!e->initramfs)
		fprintf(f, "ExecStop=%s tab-close --tab %s %s\n", exe, tabpath, e->name);
	if (fclose(f)) {
		errmsg("generator: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(devpath, sizeof(devpath), "/dev/mapper/%s", e->name);
	device_unit(devpath, mapper, sizeof(mapper) - 10);
	strcat(mapper, ".requires");
	if (link_unit(dir, e->nofail ? "local-fs.target.wants" : "local-fs.target.requires",
		      unit) ||
	    link_unit(dir, mapper, unit)) {
		errmsg("generator: cannot link %s: %s", unit, strerror(errno));
		return -1;
	}
	return 0;
}

int tab_generator_main(int argc, char **argv)
{
	const char *tabpath;
	char exe[PATH_MAX];
	struct tab t;
	int npos, r = 0;
	size_t k;

	if (tab_args(argc, argv, &tabpath, &npos, NULL))
		return 1;
	if (npos != 1 && npos != 3) {
		errmsg("generator: expected <normal-dir> [<early-dir> <late-dir>] (usage: %s %s)",
		       progname, tab_usage[3]);
		return 1;
	}
	if (tabpath[0] != '/') {	/* it goes into the units */
		errmsg("generator: the tab file must be given by an absolute path");
		return 1;
	}
	if (tab_load(&t, tabpath)) {
		if (errno == ENOENT)	/* no ressdtab: nothing to do */
			return 0;
		errmsg("cannot read %s: %s", tabpath, strerror(errno));
		return 1;
	}
	self_path(exe, sizeof(exe));
	/* lines with errors were reported and are left out; the others are generated */
	for (k = 0; k < t.n; k++)
		if (!t.e[k].noauto && write_unit(argv[1], tabpath, exe, &t.e[k]))
			r = 1;
	tab_free(&t);
	return r;
}

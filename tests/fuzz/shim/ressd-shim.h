/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * User-space stand-in for the kernel headers that dm-ressd-format.c,
 * dm-ressd-rbtree.c and their headers (dm-ressd-codec.h, dm-ressd-index.h)
 * include, so that those files compile unchanged into the fuzz targets
 * (tests/fuzz/).  Every linux/<name>.h in this directory includes this one
 * header.  Those files know nothing of bios, device mapper, workqueues or
 * timers, so nothing of the block layer is here.
 *
 * Two kinds of things live here:
 *
 *  - what the pure code (superblock and record encode/check, replay, the
 *    remap index) really runs: fixed-width and little-endian types, the
 *    bitfield and min/max macros, kvcalloc/kfree, crc32c (shim.c), memchr_inv,
 *    the device-mapper message macros;
 *  - checks the kernel would make at run time, made fatal: WARN_ON*()
 *    (a kernel warning is a bug: the test suites fail on one), BUG_ON(),
 *    lockdep_assert_held() against a "held" flag that spin_lock() and
 *    mutex_lock() set (taking a held lock again aborts too).
 *
 * Nothing here is a model of the kernel's behaviour beyond what the pure
 * code needs; the rb-tree is the kernel's own lib/rbtree.c (see Makefile).
 */
#ifndef RESSD_SHIM_H
#define RESSD_SHIM_H

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- kconfig, compiler ---- */

#define CONFIG_64BIT 1
#define CONFIG_KUNIT 1		/* EXPORT_SYMBOL_IF_KUNIT, VISIBLE_IF_KUNIT */

#define __ARG_PLACEHOLDER_1 0,
#define __take_second_arg(__ignored, val, ...) val
#define __is_defined(x)			___is_defined(x)
#define ___is_defined(val)		____is_defined(__ARG_PLACEHOLDER_##val)
#define ____is_defined(arg1_or_junk)	__take_second_arg(arg1_or_junk 1, 0)
#define IS_BUILTIN(option)	__is_defined(option)
#define IS_MODULE(option)	__is_defined(option##_MODULE)
#define IS_ENABLED(option)	(IS_BUILTIN(option) || IS_MODULE(option))

#define __packed		__attribute__((__packed__))
#define __aligned(x)		__attribute__((__aligned__(x)))
#undef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#define __maybe_unused		__attribute__((__unused__))
#define __must_check		__attribute__((__warn_unused_result__))
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))
#define __init
#define __exit
#define __initconst
#define __user
#define __iomem
#define __rcu
#define __force
#define __bitwise
#define noinline		__attribute__((__noinline__))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define barrier()		__asm__ __volatile__("" : : : "memory")
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, val)	do { *(volatile __typeof__(x) *)&(x) = (val); } while (0)
#define smp_mb()		__sync_synchronize()
#define smp_rmb()		__sync_synchronize()
#define smp_wmb()		__sync_synchronize()

#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), "BUILD_BUG_ON(" #cond ")")
#define BUILD_BUG_ON_ZERO(e)	(0)

/* ---- types ---- */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;	/* as in the kernel: %llu prints it */
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;
typedef u8 __u8;
typedef u16 __u16;
typedef u32 __u32;
typedef u64 __u64;
typedef s32 __s32;
typedef s64 __s64;
typedef u16 __le16;
typedef u32 __le32;
typedef u64 __le64;
typedef u16 __be16;
typedef u32 __be32;
typedef u64 __be64;
typedef u64 sector_t;
typedef unsigned int gfp_t;

#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define S32_MAX		((s32)(U32_MAX >> 1))
#define S64_MAX		((s64)(U64_MAX >> 1))
#define BITS_PER_LONG	64
#define BITS_PER_BYTE	8

#define cpu_to_le16(x)	((__le16)htole16((u16)(x)))
#define cpu_to_le32(x)	((__le32)htole32((u32)(x)))
#define cpu_to_le64(x)	((__le64)htole64((u64)(x)))
#define le16_to_cpu(x)	((u16)le16toh((__le16)(x)))
#define le32_to_cpu(x)	((u32)le32toh((__le32)(x)))
#define le64_to_cpu(x)	((u64)le64toh((__le64)(x)))

/* ---- kernel.h ---- */

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define round_up(x, y)		((((x) - 1) | ((__typeof__(x))((y) - 1))) + 1)
#define round_down(x, y)	((x) & ~((__typeof__(x))((y) - 1)))
#define ALIGN(x, a)		(((x) + ((__typeof__(x))(a) - 1)) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a)	(((x) & ((__typeof__(x))(a) - 1)) == 0)

#define min(a, b) ({ __typeof__(a) _min_a = (a); __typeof__(b) _min_b = (b); \
		     _min_a < _min_b ? _min_a : _min_b; })
#define max(a, b) ({ __typeof__(a) _max_a = (a); __typeof__(b) _max_b = (b); \
		     _max_a > _max_b ? _max_a : _max_b; })
#define min_t(type, a, b) ({ type _min_a = (a); type _min_b = (b); \
			     _min_a < _min_b ? _min_a : _min_b; })
#define max_t(type, a, b) ({ type _max_a = (a); type _max_b = (b); \
			     _max_a > _max_b ? _max_a : _max_b; })
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)
#define swap(a, b) do { __typeof__(a) _swap_t = (a); (a) = (b); (b) = _swap_t; } while (0)
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)

#define SECTOR_SHIFT		9
#define SECTOR_SIZE		(1 << SECTOR_SHIFT)
#define PAGE_SHIFT		12
#define PAGE_SIZE		(1UL << PAGE_SHIFT)
#define NSEC_PER_USEC		1000L
#define NSEC_PER_MSEC		1000000L
#define NSEC_PER_SEC		1000000000L
#define HZ			250

/* ---- bits, bitfield ---- */

#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define GENMASK(h, l)		(((~0UL) - (1UL << (l)) + 1) & (~0UL >> (63 - (h))))
#define GENMASK_ULL(h, l)	(((~0ULL) - (1ULL << (l)) + 1) & (~0ULL >> (63 - (h))))
#define __bf_shf(x)		(__builtin_ffsll(x) - 1)
#define FIELD_MAX(mask)		((__typeof__(mask))((mask) >> __bf_shf(mask)))
#define FIELD_FIT(mask, val)	(!((((__typeof__(mask))(val)) << __bf_shf(mask)) & ~(mask)))
#define FIELD_PREP(mask, val)	((((__typeof__(mask))(val)) << __bf_shf(mask)) & (mask))
#define FIELD_GET(mask, reg)	((__typeof__(mask))(((reg) & (mask)) >> __bf_shf(mask)))

#define BITS_TO_LONGS(n)	DIV_ROUND_UP(n, BITS_PER_LONG)
#define DECLARE_BITMAP(name, bits)	unsigned long name[BITS_TO_LONGS(bits)]
static inline void set_bit(long nr, volatile unsigned long *addr)
{
	addr[nr / BITS_PER_LONG] |= 1UL << (nr % BITS_PER_LONG);
}
static inline void clear_bit(long nr, volatile unsigned long *addr)
{
	addr[nr / BITS_PER_LONG] &= ~(1UL << (nr % BITS_PER_LONG));
}
static inline bool test_bit(long nr, const volatile unsigned long *addr)
{
	return (addr[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG)) & 1;
}
#define __set_bit set_bit
#define __clear_bit clear_bit
static inline void bitmap_zero(unsigned long *dst, unsigned int nbits)
{
	memset(dst, 0, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}
/* The first set bit at or after @offset, or @size (bit by bit: a model). */
static inline unsigned long find_next_bit(const unsigned long *addr,
					  unsigned long size, unsigned long offset)
{
	for (; offset < size; offset++)
		if (test_bit((long)offset, addr))
			return offset;
	return size;
}

/* ---- bugs and warnings: fatal here ---- */

void shim_bug(const char *what, const char *file, int line, const char *cond)
	__attribute__((__noreturn__));
extern int shim_verbose;	/* RESSD_FUZZ_VERBOSE=1: print DMERR and friends */

#define WARN_ON(cond) ({ int __w = !!(cond); \
	if (unlikely(__w)) shim_bug("WARNING", __FILE__, __LINE__, #cond); __w; })
#define WARN_ON_ONCE(cond)	WARN_ON(cond)
#define WARN(cond, ...)		WARN_ON(cond)
#define WARN_ONCE(cond, ...)	WARN_ON(cond)
#define BUG_ON(cond) do { if (unlikely(cond)) shim_bug("BUG", __FILE__, __LINE__, #cond); } while (0)
#define BUG()			shim_bug("BUG", __FILE__, __LINE__, "BUG()")
#define might_sleep()		do { } while (0)
#define cond_resched()		do { } while (0)

#define shim_printk(level, fmt, ...) do { \
	if (shim_verbose) fprintf(stderr, level fmt "\n", ##__VA_ARGS__); \
} while (0)
#define DMERR(fmt, ...)		shim_printk("device-mapper: " DM_MSG_PREFIX ": error: ", fmt, ##__VA_ARGS__)
#define DMWARN(fmt, ...)	shim_printk("device-mapper: " DM_MSG_PREFIX ": warning: ", fmt, ##__VA_ARGS__)
#define DMINFO(fmt, ...)	shim_printk("device-mapper: " DM_MSG_PREFIX ": ", fmt, ##__VA_ARGS__)
#define DMDEBUG(fmt, ...)	shim_printk("device-mapper: " DM_MSG_PREFIX ": debug: ", fmt, ##__VA_ARGS__)
#define DMERR_LIMIT		DMERR
#define DMWARN_LIMIT		DMWARN
#define DMINFO_LIMIT		DMINFO
#define pr_err(fmt, ...)	shim_printk("", fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)	shim_printk("", fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)	shim_printk("", fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)	shim_printk("", fmt, ##__VA_ARGS__)

/* ---- modules, exports ---- */

#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)
#define EXPORT_SYMBOL_NS(sym, ns)
#define EXPORT_SYMBOL_NS_GPL(sym, ns)
#define MODULE_LICENSE(x)
#define MODULE_AUTHOR(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_ALIAS(x)
#define MODULE_IMPORT_NS(x)
#define MODULE_PARM_DESC(name, desc)
#define module_param(name, type, perm)	\
	static __maybe_unused void *__shim_param_##name = &(name)
#define module_param_named(n, v, t, p)	module_param(v, t, p)
#define KERNEL_VERSION(a, b, c)	(((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
#define LINUX_VERSION_CODE	KERNEL_VERSION(6, 1, 0)
#define THIS_MODULE		((struct module *)0)
struct module;

/* ---- string ---- */

void *memchr_inv(const void *s, int c, size_t n);
size_t strscpy(char *dst, const char *src, size_t size);

/* ---- crc32c: the kernel's semantics (seed in, no inversion) ---- */

u32 crc32c(u32 crc, const void *address, unsigned int length);
u32 ressd_crc32c_update(u32 crc, const void *data, unsigned int len);

/* ---- memory ---- */

#define GFP_KERNEL	0x1u
#define GFP_NOIO	0x2u
#define GFP_NOWAIT	0x4u
#define GFP_ATOMIC	0x8u
#define __GFP_NOWARN	0x100u
#define __GFP_ZERO	0x200u

static inline void *kmalloc(size_t n, gfp_t f)
{
	(void)f;
	return malloc(n ? n : 1);
}
static inline void *kzalloc(size_t n, gfp_t f)
{
	(void)f;
	return calloc(1, n ? n : 1);
}
static inline void *kcalloc(size_t n, size_t size, gfp_t f)
{
	(void)f;
	return calloc(n ? n : 1, size ? size : 1);
}
#define kmalloc_array(n, s, f)	kcalloc(n, s, f)
#define kvmalloc(n, f)		kmalloc(n, f)
#define kvzalloc(n, f)		kzalloc(n, f)
#define kvcalloc(n, s, f)	kcalloc(n, s, f)
#define kvmalloc_array(n, s, f)	kcalloc(n, s, f)
#define vzalloc(n)		kzalloc(n, GFP_KERNEL)
#define vmalloc(n)		kmalloc(n, GFP_KERNEL)
static inline void kfree(const void *p)
{
	free((void *)p);
}
#define kvfree(p)		kfree(p)
#define vfree(p)		kfree(p)

/* ---- locks: a held flag, checked ---- */

typedef struct {
	int shim_held;
} spinlock_t;

#define DEFINE_SPINLOCK(x)	spinlock_t x = { 0 }
#define spin_lock_init(l)	((l)->shim_held = 0)

#define shim_lock(l) do { \
	if ((l)->shim_held) shim_bug("lock taken twice", __FILE__, __LINE__, #l); \
	(l)->shim_held = 1; } while (0)
#define shim_unlock(l) do { \
	if (!(l)->shim_held) shim_bug("unlock of a free lock", __FILE__, __LINE__, #l); \
	(l)->shim_held = 0; } while (0)
#define spin_lock(l)			shim_lock(l)
#define spin_unlock(l)			shim_unlock(l)
#define spin_lock_irq(l)		shim_lock(l)
#define spin_unlock_irq(l)		shim_unlock(l)
#define spin_lock_bh(l)			shim_lock(l)
#define spin_unlock_bh(l)		shim_unlock(l)
#define spin_lock_irqsave(l, f)		do { (f) = 0; shim_lock(l); } while (0)
#define spin_unlock_irqrestore(l, f)	do { (void)(f); shim_unlock(l); } while (0)
#define lockdep_assert_held(l) do { \
	if (!(l)->shim_held) shim_bug("lock not held", __FILE__, __LINE__, #l); } while (0)
#define lockdep_assert_not_held(l) do { \
	if ((l)->shim_held) shim_bug("lock held", __FILE__, __LINE__, #l); } while (0)

/* ---- rcu (for the kernel's rbtree.h) ---- */

#define rcu_assign_pointer(p, v)	WRITE_ONCE(p, v)
#define rcu_dereference(p)		READ_ONCE(p)
#define rcu_read_lock()			do { } while (0)
#define rcu_read_unlock()		do { } while (0)

#endif /* RESSD_SHIM_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest programs of `make compare` (harness/compare/) and `make
 * stress` (harness/stress/) share: the uapi values Debian's libc headers
 * may lack, sizes, and small helpers.  Included after the system headers.
 */
#ifndef GUEST_H
#define GUEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <termios.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE	0x100000
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT		21
#endif
#ifndef MFD_HUGETLB
#define MFD_HUGETLB		0x0004U
#endif
#define HUGE_SHIFT(s)		((unsigned int)(s) << 26)	/* MAP/MFD_HUGE_* */

/* PAGEMAP_SCAN (Linux 6.7), which the C library's headers may not have. */
struct scan_region {
	uint64_t start, end, categories;
};

struct scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask;
	uint64_t return_mask;
};

#define SCAN_IOCTL		_IOWR('f', 16, struct scan_arg)
#define IS_WPALLOWED		(1 << 0)
#define IS_WRITTEN		(1 << 1)
#define IS_FILE			(1 << 2)
#define IS_PRESENT		(1 << 3)
#define IS_SWAPPED		(1 << 4)
#define IS_PFNZERO		(1 << 5)
#define IS_HUGE			(1 << 6)
#define IS_SOFT_DIRTY		(1 << 7)
#define IS_ALL			0xff
#define SCAN_WP_MATCHING	(1 << 0)
#define SCAN_CHECK_WPASYNC	(1 << 1)

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define KB			1024UL
#define MB			(1024 * KB)
#define GB			(1024 * MB)
#define PAGE			4096UL

/* A step that could not be set up: "! what". */
static inline void note(const char *fmt, ...)
{
	va_list ap;

	printf("! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Write @val to the file @path; quiet if it does not exist. */
static inline int put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

/* The number in the file @path (0 if empty), or -1 if it cannot be read. */
static inline long get_num(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = 0;
	close(fd);
	return strtol(buf, NULL, 10);
}

/* Mount @type from @src on @dir (made if missing), saying why not. */
static inline void do_mount(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) && errno != EBUSY)
		printf("init: mount %s on %s: %s\n", type, dir,
		       strerror(errno));
}

/* proc, sysfs, devtmpfs, and tmpfs on /tmp and /dev/shm (POSIX shm). */
static inline void mount_guest_fs(void)
{
	do_mount("proc", "/proc", "proc");
	do_mount("sysfs", "/sys", "sysfs");
	do_mount("devtmpfs", "/dev", "devtmpfs");
	do_mount("tmpfs", "/tmp", "tmpfs");
	do_mount("tmpfs", "/dev/shm", "tmpfs");
}

/* The kernel command line, into @buf of @size ("" if unreadable). */
static inline void read_cmdline(char *buf, size_t size)
{
	int fd = open("/proc/cmdline", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	buf[n < 0 ? 0 : n] = 0;
	if (fd >= 0)
		close(fd);
}

/* A zram device of @size as swap: mkswap (version 1, no bad pages), swapon. */
static inline void zram_swap(unsigned long size)
{
	static unsigned char hdr[PAGE];
	uint32_t *info = (uint32_t *)(hdr + 1024);
	char num[32];
	int fd;

	snprintf(num, sizeof(num), "%lu", size);
	if (put("/sys/block/zram0/disksize", num)) {
		printf("init: zram0 disksize: %s\n", strerror(errno));
		return;
	}
	info[0] = 1;				/* version */
	info[1] = size / PAGE - 1;		/* last_page */
	info[2] = 0;				/* nr_badpages */
	memcpy(hdr + PAGE - 10, "SWAPSPACE2", 10);
	fd = open("/dev/zram0", O_WRONLY);
	if (fd < 0 || write(fd, hdr, PAGE) != PAGE) {
		printf("init: /dev/zram0: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	fsync(fd);
	close(fd);
	if (swapon("/dev/zram0", 0))
		printf("init: swapon: %s\n", strerror(errno));
}

/*
 * PAGEMAP_SCAN of [@start, @start + @len) of this process, every category
 * returned: "@prefixPAGEMAP_SCAN: N regions; pages A-B categories 0xC ...",
 * pages counted from @start.
 */
static inline void print_scan(const char *prefix, const char *start,
			      unsigned long len)
{
	struct scan_region r[16];
	struct scan_arg arg = {
		.size = sizeof(arg), .start = (uintptr_t)start,
		.end = (uintptr_t)start + len, .vec = (uintptr_t)r,
		.vec_len = ARRAY_SIZE(r), .return_mask = IS_ALL,
	};
	int fd = open("/proc/self/pagemap", O_RDONLY);
	long i, n = fd < 0 ? -1 : ioctl(fd, SCAN_IOCTL, &arg);

	if (fd >= 0)
		close(fd);
	if (n < 0) {
		note("%sPAGEMAP_SCAN: %s", prefix, strerror(errno));
		return;
	}
	printf("%sPAGEMAP_SCAN: %ld region%s", prefix, n, n == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		printf("; pages %lu-%lu categories 0x%llx",
		       (unsigned long)(r[i].start - (uintptr_t)start) / PAGE,
		       (unsigned long)(r[i].end - (uintptr_t)start) / PAGE,
		       (unsigned long long)r[i].categories);
	printf("\n");
}

/*
 * Have DAMON monitor [@start, @end) of this process: its fixed virtual
 * address operations, the range one region, a sample every 10 ms.  0, or
 * -1 with a note.  Writing "off" to its state stops it.
 */
#define DAMON_KDAMOND		"/sys/kernel/mm/damon/admin/kdamonds/0/"
static inline int damon_watch(const char *start, const char *end)
{
	char pid[16], from[24], to[24], path[160];
	const char *const steps[][2] = {
		{ "contexts/nr_contexts", "1" },
		{ "contexts/0/operations", "fvaddr" },
		{ "contexts/0/monitoring_attrs/intervals/sample_us", "10000" },
		{ "contexts/0/targets/nr_targets", "1" },
		{ "contexts/0/targets/0/pid_target", pid },
		{ "contexts/0/targets/0/regions/nr_regions", "1" },
		{ "contexts/0/targets/0/regions/0/start", from },
		{ "contexts/0/targets/0/regions/0/end", to },
		{ "state", "on" },
	};
	unsigned int i;

	snprintf(pid, sizeof(pid), "%d", getpid());
	snprintf(from, sizeof(from), "%lu", (unsigned long)start);
	snprintf(to, sizeof(to), "%lu", (unsigned long)end);
	if (put("/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", "1")) {
		note("DAMON sysfs: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		snprintf(path, sizeof(path), DAMON_KDAMOND "%s", steps[i][0]);
		if (put(path, steps[i][1])) {
			note("DAMON: cannot write %s to %s: %s", steps[i][1],
			     path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * Power the machine off (on x86 without ACPI, reset: QEMU has -no-reboot),
 * once the console has sent everything written to it: the serial driver
 * transmits from a buffer, which the reboot does not wait for.
 */
static inline void power_off(void)
{
	fflush(stdout);
	tcdrain(STDOUT_FILENO);
	sync();
#ifdef __x86_64__
	reboot(RB_AUTOBOOT);
#endif
	reboot(RB_POWER_OFF);
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

#endif /* GUEST_H */

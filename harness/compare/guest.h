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

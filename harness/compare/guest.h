/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest programs of `make compare` (pmcheck.c, mpcheck.c) share:
 * the uapi values Debian's libc headers may lack, sizes, and the two
 * helpers every step uses.  Included after the system headers.
 */
#ifndef GUEST_H
#define GUEST_H

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

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define KB			1024UL
#define MB			(1024 * KB)
#define GB			(1024 * MB)
#define PAGE			4096UL

/* A step that could not be set up: "! what". */
static void note(const char *fmt, ...)
{
	va_list ap;

	printf("! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Write @val to the file @path; quiet if it does not exist. */
static int put(const char *path, const char *val)
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

#endif /* GUEST_H */

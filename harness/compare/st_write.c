// SPDX-License-Identifier: GPL-2.0
/*
 * Linked into mm/split_huge_page_test with -Wl,--wrap=write,--wrap=close,
 * --wrap=sync: consecutive one-byte write()s to one regular file are
 * gathered and written at once, before any other write, close() or sync().
 * The test writes the 4M file of each of its nine pagecache cases a byte
 * per write(): 36M system calls, minutes under TCG on a debug kernel.  The
 * file, and what the test does with it, are the same.
 */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* The real calls, as system calls: no __real_*() declarations needed. */
#define real_write(fd, buf, n)	syscall(SYS_write, fd, buf, n)
#define real_close(fd)		syscall(SYS_close, fd)
#define real_sync()		syscall(SYS_sync)

static char pending[1 << 16];
static size_t npending;
static int pending_fd = -1;

static void flush(void)
{
	size_t off = 0;
	ssize_t r;

	while (off < npending) {
		r = real_write(pending_fd, pending + off, npending - off);
		if (r <= 0)
			break;
		off += r;
	}
	npending = 0;
	pending_fd = -1;
}

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	struct stat st;

	if (n == 1 && fd == pending_fd && npending < sizeof(pending)) {
		pending[npending++] = *(const char *)buf;
		return 1;
	}
	flush();
	if (n == 1 && !fstat(fd, &st) && S_ISREG(st.st_mode)) {
		pending_fd = fd;
		pending[npending++] = *(const char *)buf;
		return 1;
	}
	return real_write(fd, buf, n);
}

int __wrap_close(int fd)
{
	if (fd == pending_fd)
		flush();
	return real_close(fd);
}

void __wrap_sync(void)
{
	flush();
	real_sync();
}

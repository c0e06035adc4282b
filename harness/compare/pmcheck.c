// SPDX-License-Identifier: GPL-2.0
/*
 * pmcheck: the static checker of `make compare` (harness/compare.sh).
 *
 * It builds a catalogue of mappings at fixed addresses (small anonymous
 * pages, the zero page, the huge zero page, THP mapped by a PMD and by
 * PTEs, 64K mTHP, shmem with pages swapped out (in 64K folios too, and
 * mapped privately), a shmem THP mapped by a PMD and by PTEs, large
 * folios whose PTEs differ in one bit, mTHPs partly CoW'd while a child
 * maps them, a THP that a child maps by PTEs, hugetlb pages in a PMD
 * table a child shares, hwpoison entries, private and shared file
 * mappings, hugetlb of every size the kernel offers, private and shared, CoW after fork, pages
 * swapped out to zram, soft-dirty after each clear_refs value, uffd-wp,
 * mlock, KSM, memory bound to the second NUMA node, PROT_NONE, folios
 * marked idle and so young while their PTEs are old) and prints
 * what /proc says about each: its smaps block, its numa_maps line, its
 * pagemap entries (read whole, at odd offsets and lengths, and without
 * CAP_SYS_ADMIN) and PAGEMAP_SCAN answers, then smaps_rollup, and what
 * procps' pmap -X, a client of smaps, prints.  Then it
 * write-protects mappings registered for async uffd-wp with PAGEMAP_SCAN,
 * and asks both files wrong questions (the errno tables).
 *
 * The output is normalised so that two boots of one kernel print the same
 * bytes: mappings are named by their catalogue label and their offset in
 * the catalogue, not by address, device or inode; pagemap PFNs and swap
 * offsets are not printed, but what /proc/kpageflags says of each pfn
 * (the bits that do not depend on timing) and whether the pfns of a
 * folio's pages follow each other are.  Run on the stock and on the patched kernel,
 * the two outputs must be identical: a difference is a bug of the patched
 * kernel until shown to be one of stock.
 *
 * Lines: "PMCHECK: ..." for the harness, "= label" before the dump of a
 * mapping, "!" for a step of the catalogue that could not be set up (the
 * same on both kernels, or the comparison shows it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <linux/capability.h>
#include <linux/userfaultfd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define THP			"/sys/kernel/mm/transparent_hugepage/"

/* Each mapping gets its own aligned gigabyte, from here on. */
#define BASE			(64 * GB)

struct region {
	const char *label;
	unsigned long addr;
	unsigned long len;
};

static struct region regions[128];
static int nr_regions;
static unsigned long next_slot = BASE;

static int scan_fd = -1;

/* Map @len bytes at @addr as @label; the next slot begins a gigabyte on. */
static char *map_at(const char *label, unsigned long addr, unsigned long len,
		    int prot, int flags, int fd, off_t off)
{
	void *p;

	next_slot = ((addr + len + GB - 1) & ~(GB - 1)) + GB;
	if (nr_regions == ARRAY_SIZE(regions)) {
		note("%s: more than %zu regions", label, ARRAY_SIZE(regions));
		return NULL;
	}
	p = mmap((void *)addr, len, prot, flags | MAP_FIXED_NOREPLACE, fd, off);
	if (p == MAP_FAILED) {
		note("%s: mmap: %s", label, strerror(errno));
		return NULL;
	}
	regions[nr_regions++] = (struct region){ label, addr, len };
	return p;
}

/* Map @len bytes of the next gigabyte slot (two for 1G pages) as @label. */
static char *map_off(const char *label, unsigned long len, int prot,
		     int flags, int fd, off_t off, unsigned long align)
{
	return map_at(label, (next_slot + align - 1) & ~(align - 1), len, prot,
		      flags, fd, off);
}

/*
 * Map @len bytes as @label across a gigabyte boundary, half on either side:
 * a run of leaves that crosses the end of a PMD table and of its PUD entry.
 */
static char *map_across(const char *label, unsigned long len, int flags)
{
	unsigned long boundary = ((next_slot + GB - 1) & ~(GB - 1)) + GB;

	return map_at(label, boundary - len / 2, len, PROT_READ | PROT_WRITE,
		      flags, -1, 0);
}

static char *map(const char *label, unsigned long len, int prot, int flags,
		 int fd, unsigned long align)
{
	return map_off(label, len, prot, flags, fd, 0, align);
}

static char *anon(const char *label, unsigned long len, int advice)
{
	char *p = map(label, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 2 * MB);

	if (p && advice && madvise(p, len, advice))
		note("%s: madvise %d: %s", label, advice, strerror(errno));
	return p;
}

static void touch(char *p, unsigned long len, unsigned long step, int val)
{
	unsigned long i;

	for (i = 0; i < len; i += step)
		p[i] = (char)(val + i / step);
}

/* Where readall() puts what it reads, so that the reads are not dropped. */
unsigned long pmcheck_sink;

static void readall(const char *p, unsigned long len, unsigned long step)
{
	unsigned long i;

	for (i = 0; i < len; i += step)
		pmcheck_sink += p[i];
}

static void pageout(const char *label, char *p, unsigned long len)
{
	if (madvise(p, len, MADV_PAGEOUT))
		note("%s: MADV_PAGEOUT: %s", label, strerror(errno));
}

/* The region that holds @addr, or NULL. */
static const struct region *region_of(unsigned long addr)
{
	int i;

	for (i = 0; i < nr_regions; i++)
		if (addr >= regions[i].addr &&
		    addr < regions[i].addr + regions[i].len)
			return &regions[i];
	return NULL;
}

/*
 * The smaps blocks of the VMAs within the catalogue: the header line
 * becomes "label+offset-label+offset perms", the rest is printed as is.
 */
static void dump_smaps(const char *file)
{
	const struct region *r = NULL;
	unsigned long start, end;
	char line[512], perms[8];
	FILE *f = fopen(file, "r");

	if (!f) {
		note("%s: %s", file, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) == 3 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			r = region_of(start);
			if (r)
				printf("smaps %s+%#lx-+%#lx %s\n", r->label,
				       start - r->addr, end - r->addr, perms);
			continue;
		}
		if (r)
			printf("  %s", line);
	}
	fclose(f);
}

static void dump_numa_maps(void)
{
	const struct region *r;
	unsigned long start;
	char line[1024], *rest;
	FILE *f = fopen("/proc/self/numa_maps", "r");

	if (!f) {
		note("numa_maps: %s", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		start = strtoul(line, &rest, 16);
		r = region_of(start);
		if (r)
			printf("numa_maps %s+%#lx%s", r->label,
			       start - r->addr, rest);
	}
	fclose(f);
}

#define PM_PFN(e)		((e) & ((1ULL << 55) - 1))
#define PM_PRESENT		(1ULL << 63)
#define PM_SWAP			(1ULL << 62)
/*
 * The /proc/kpageflags bits that do not depend on timing: KPF_MMAP,
 * KPF_ANON, KPF_COMPOUND_HEAD, KPF_COMPOUND_TAIL, KPF_HUGE, KPF_NOPAGE,
 * KPF_KSM, KPF_THP, KPF_ZERO_PAGE.
 */
#define KPF_STABLE		((1ULL << 11) | (1ULL << 12) | (1ULL << 15) | \
				 (1ULL << 16) | (1ULL << 17) | (1ULL << 20) | \
				 (1ULL << 21) | (1ULL << 22) | (1ULL << 24))
#define KPF_TAIL		(1ULL << 16)

/* /proc/self/pagemap opened with and without CAP_SYS_ADMIN; kpageflags. */
static int pagemap_fd = -1, pagemap_nopfn_fd = -1, kpageflags_fd = -1;

/* Read @n pagemap entries from page @pg on; the number of entries read. */
static long pm_read(int fd, uint64_t *buf, unsigned long pg, unsigned long n)
{
	ssize_t got = pread(fd, buf, n * 8, pg * 8);

	return got < 0 ? -1 : got / 8;
}

/*
 * What a pagemap entry says, as printed: its flags (bits 55-63), for a
 * swap entry its swap type, for a present page the stable kpageflags of
 * its pfn and, for a compound tail page, whether its pfn follows that of
 * the page before (as it must within a folio mapped in order).  PFNs and
 * swap offsets themselves differ between boots.
 */
static void pm_describe(const uint64_t *e, uint64_t *kpf, unsigned long n,
			uint64_t *key)
{
	unsigned long i, j;

	/* kpageflags of each present page, one read per run of pfns. */
	for (i = 0; i < n; i = j) {
		uint64_t pfn = PM_PFN(e[i]);

		j = i + 1;
		kpf[i] = 0;
		if (!(e[i] & PM_PRESENT) || !pfn || kpageflags_fd < 0)
			continue;
		while (j < n && (e[j] & PM_PRESENT) &&
		       PM_PFN(e[j]) == pfn + (j - i))
			j++;
		if (pread(kpageflags_fd, kpf + i, (j - i) * 8, pfn * 8) !=
		    (ssize_t)(j - i) * 8)
			memset(kpf + i, 0xff, (j - i) * 8);
	}
	for (i = 0; i < n; i++) {
		uint64_t k = e[i] >> 55;

		if (e[i] & PM_SWAP)
			k |= (e[i] & 31) << 9;
		if (e[i] & PM_PRESENT) {
			k |= (kpf[i] & KPF_STABLE) << 16;
			if ((kpf[i] & KPF_TAIL) && i &&
			    PM_PFN(e[i]) != PM_PFN(e[i - 1]) + 1)
				k |= 1ULL << 14;
		}
		key[i] = k;
	}
}

static void pm_print_run(const char *label, unsigned long first,
			 unsigned long last, uint64_t key)
{
	printf("pagemap %s %lu-%lu %#llx", label, first, last,
	       (unsigned long long)(key & 0x1ff));
	if (key & (31 << 9))
		printf(" swaptype=%llu", (unsigned long long)(key >> 9) & 31);
	if (key >> 16)
		printf(" kpf=%#llx", (unsigned long long)(key >> 16));
	if (key & (1ULL << 14))
		printf(" pfn-gap");
	printf("\n");
}

/*
 * Reads at unaligned offsets and of odd lengths, some ending past the
 * region, must return what the full read returned, entry for entry; a
 * read without CAP_SYS_ADMIN the same flags with no pfn or swap offset.
 * Prints the number of entries that differ.
 */
static void pm_check_reads(const struct region *r, const uint64_t *full,
			   unsigned long n)
{
	static const unsigned long reads[][2] = {
		{ 1, 1 }, { 3, 7 }, { 15, 18 }, { 511, 3 }, { 513, 1021 },
		{ 1000, 2000 }, { 262143, 2 }, { 262145, 511 },
	};
	static uint64_t buf[4096];
	unsigned long bad = 0, nopfn_bad = 0, i, k, off, cnt;
	long got;

	for (k = 0; k < ARRAY_SIZE(reads) + 1; k++) {
		if (k < ARRAY_SIZE(reads)) {
			off = reads[k][0];
			cnt = reads[k][1];
		} else {
			/* Across the end of the region, into the gap. */
			off = n > 5 ? n - 5 : 0;
			cnt = 9;
		}
		if (off >= n)
			continue;
		got = pm_read(pagemap_fd, buf, r->addr / PAGE + off, cnt);
		if (got != (long)cnt) {
			bad++;
			continue;
		}
		for (i = 0; i < cnt; i++)
			if (buf[i] != (off + i < n ? full[off + i] : 0))
				bad++;
	}
	for (off = 0; off < n; off += cnt) {
		cnt = n - off < 4096 ? n - off : 4096;
		got = pm_read(pagemap_nopfn_fd, buf, r->addr / PAGE + off, cnt);
		if (got != (long)cnt) {
			nopfn_bad++;
			break;
		}
		for (i = 0; i < cnt; i++)
			if (buf[i] != (full[off + i] & ~((1ULL << 55) - 1)))
				nopfn_bad++;
	}
	printf("pagemap-reads %s: %lu differ, %lu differ without pfns\n",
	       r->label, bad, nopfn_bad);
}

/*
 * The pagemap of every page of the catalogue, as runs "first-last flags"
 * of entries that pm_describe() describes the same way; then the checks
 * of pm_check_reads().
 */
static void dump_pagemap(void)
{
	static uint64_t buf[512], kpf[512], key[512];
	unsigned long i, n, first = 0, page, cnt;
	uint64_t run;
	uint64_t *full;
	int r;

	if (pagemap_fd < 0)
		return;
	for (r = 0; r < nr_regions; r++) {
		n = regions[r].len / PAGE;
		full = malloc(n * 8);
		run = ~0ULL;
		for (page = 0; full && page < n; page += cnt) {
			cnt = n - page < 512 ? n - page : 512;
			if (pm_read(pagemap_fd, buf, regions[r].addr / PAGE + page,
				    cnt) != (long)cnt) {
				note("pagemap %s: %s", regions[r].label,
				     strerror(errno));
				free(full);
				full = NULL;
				break;
			}
			memcpy(full + page, buf, cnt * 8);
			pm_describe(buf, kpf, cnt, key);
			for (i = 0; i < cnt; i++) {
				if (key[i] == run)
					continue;
				if (run != ~0ULL)
					pm_print_run(regions[r].label, first,
						     page + i - 1, run);
				run = key[i];
				first = page + i;
			}
		}
		if (run != ~0ULL)
			pm_print_run(regions[r].label, first, n - 1, run);
		if (full)
			pm_check_reads(&regions[r], full, n);
		free(full);
	}
}

/*
 * One PAGEMAP_SCAN of the errno table: @arg as given (size and vec set
 * here when 0 / ~0), into a vector of 8 whose unused entries must stay as
 * they were.
 */
static void scan_error(int fd, const char *what, struct scan_arg arg)
{
	static struct scan_region vec[8];
	unsigned int i, spoilt = 0;
	long ret;

	memset(vec, 0xa5, sizeof(vec));
	if (!arg.size)
		arg.size = sizeof(arg);
	if (arg.vec == ~0ULL)
		arg.vec = (uintptr_t)vec;
	errno = 0;
	ret = ioctl(fd, SCAN_IOCTL, &arg);
	for (i = ret > 0 ? ret : 0; i < ARRAY_SIZE(vec); i++)
		if (vec[i].start != 0xa5a5a5a5a5a5a5a5ULL)
			spoilt++;
	printf("scan-errno %s: %ld %s, walk_end %+lld, %u entries past the count written\n",
	       what, ret, ret < 0 ? strerror(errno) : "ok",
	       (long long)(arg.walk_end - BASE), spoilt);
}

/* PAGEMAP_SCAN with wrong or odd arguments; @fd of an exited task's. */
static void scan_errors(int exited_fd)
{
	const struct scan_arg ok = {
		.start = BASE, .end = BASE + 64 * PAGE, .vec = ~0ULL,
		.vec_len = 3, .return_mask = IS_ALL,
	};
	struct scan_arg a;
	int fd = scan_fd;

#define SCAN_TRY(what, field, val)					\
	do {								\
		a = ok;							\
		a.field = val;						\
		scan_error(fd, what, a);				\
	} while (0)

	scan_error(fd, "as it should be", ok);
	SCAN_TRY("size too small", size, sizeof(a) - 8);
	SCAN_TRY("size too large", size, sizeof(a) + 8);
	SCAN_TRY("unknown flag", flags, 1 << 2);
	SCAN_TRY("category_mask outside the categories", category_mask, 1 << 8);
	SCAN_TRY("category_inverted outside", category_inverted, 1 << 9);
	SCAN_TRY("category_anyof_mask outside", category_anyof_mask, 1 << 10);
	SCAN_TRY("return_mask outside", return_mask, 1ULL << 63);
	SCAN_TRY("vec_len 0", vec_len, 0);
	SCAN_TRY("NULL vec", vec, 0);
	SCAN_TRY("vec unmapped", vec, 4096);
	SCAN_TRY("vec in the kernel", vec, 0xffff800000000000ULL);
	SCAN_TRY("start after end", start, BASE + 128 * PAGE);
	SCAN_TRY("start == end", end, BASE);
	SCAN_TRY("unaligned start", start, BASE + 1);
	SCAN_TRY("unaligned end", end, BASE + 3 * PAGE + 1);
	SCAN_TRY("end past TASK_SIZE", end, 1ULL << 49);
	SCAN_TRY("end wraps", end, ~0ULL - 4095);
	SCAN_TRY("max_pages 0", max_pages, 0);
	SCAN_TRY("max_pages 1", max_pages, 1);
	SCAN_TRY("check wp-async without uffd", flags, SCAN_CHECK_WPASYNC);
	SCAN_TRY("wp without uffd", flags, SCAN_WP_MATCHING);
	if (exited_fd >= 0) {
		fd = exited_fd;
		scan_error(fd, "of an exited task", ok);
	}
#undef SCAN_TRY
}

/* Open /proc/self/pagemap without CAP_SYS_ADMIN in the effective set. */
static int open_pagemap_nopfn(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2], saved[2];
	int fd;

	if (syscall(SYS_capget, &hdr, saved))
		return -1;
	memcpy(data, saved, sizeof(data));
	data[CAP_SYS_ADMIN / 32].effective &= ~(1U << (CAP_SYS_ADMIN % 32));
	if (syscall(SYS_capset, &hdr, data))
		return -1;
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (syscall(SYS_capset, &hdr, saved))
		note("capset: %s", strerror(errno));
	return fd;
}

/*
 * Fork a child that waits until the pipe whose write end goes to @wfd is
 * closed, then exits; its pid (-1 if there is none, with @wfd closed).
 */
static pid_t fork_waiter(const char *what, int *wfd)
{
	int fds[2];
	pid_t pid;
	char c;

	fflush(stdout);
	if (pipe(fds)) {
		note("%s: pipe: %s", what, strerror(errno));
		*wfd = -1;
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		while (read(fds[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(fds[0]);
	*wfd = fds[1];
	if (pid < 0) {
		note("%s: fork: %s", what, strerror(errno));
		close(fds[1]);
		*wfd = -1;
	}
	return pid;
}

/* One line of the table of pm_errors(): what a read returned. */
static void pm_error(const char *what, ssize_t ret, const unsigned char *buf,
		     size_t size, size_t count)
{
	size_t i, spoilt = 0;

	for (i = count; buf && i < size; i++)
		if (buf[i] != 0xa5)
			spoilt++;
	printf("pagemap-errno %s: %zd %s, %zu bytes past the count written\n",
	       what, ret, ret < 0 ? strerror(errno) : "ok", spoilt);
}

/*
 * Reads of pagemap that are wrong or odd: each gets the same answer from
 * both kernels, and nothing is written past what the read returns.
 */
static void pm_errors(void)
{
	static uint64_t words[512];
	unsigned char *buf = (unsigned char *)words;
	unsigned long top = 1UL << 47;	/* x86_64's TASK_SIZE, page rounded */
	int wfd, fd = pagemap_fd;
	ssize_t ret;
	int n = 0;
	pid_t pid;

#define PM_TRY(what, count, off)					\
	do {								\
		memset(buf, 0xa5, sizeof(words));			\
		errno = 0;						\
		ret = pread(fd, buf, count, off);			\
		pm_error(what, ret, buf, sizeof(words), ret > 0 ? ret : 0); \
	} while (0)

	PM_TRY("offset 3", 8, 3);
	PM_TRY("offset 8, count 7", 7, 8);
	PM_TRY("offset 8, count 12", 12, 8);
	PM_TRY("count 0", 0, 8);
	PM_TRY("count 24 at 0", 24, 0);
	PM_TRY("at the catalogue, count 24", 24, BASE / PAGE * 8);
	PM_TRY("ending at 2^47", 64, top / PAGE * 8 - 16);
	PM_TRY("at 2^47", 64, top / PAGE * 8);
	PM_TRY("ending at 2^48", 64, (top << 1) / PAGE * 8 - 16);
	PM_TRY("at 2^48", 64, (top << 1) / PAGE * 8);
	PM_TRY("at 2^60", 64, 1LL << 60);
	PM_TRY("at 2^63 - 8", 64, 0x7ffffffffffffff8LL);
	errno = 0;
	ret = syscall(SYS_pread64, fd, NULL, 64, BASE / PAGE * 8);
	pm_error("into NULL", ret, NULL, 0, 0);

	/* A task that has exited, whose pagemap was opened before. */
	pid = fork_waiter("pagemap-errno", &wfd);
	if (pid > 0) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
		fd = open(path, O_RDONLY);
		close(wfd);
		waitpid(pid, NULL, 0);
		if (fd < 0) {
			note("pagemap-errno: %s: %s", path, strerror(errno));
		} else {
			PM_TRY("of an exited task", 64, BASE / PAGE * 8);
			scan_errors(fd);
			close(fd);
		}
	}

	/* Another user's pagemap, and one's own, as nobody. */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char path[64];
		int fd2;

		snprintf(path, sizeof(path), "/proc/%d/pagemap", getppid());
		if (setgid(65534) || setuid(65534))
			_exit(2);
		errno = 0;
		fd2 = open(path, O_RDONLY);
		printf("pagemap-errno open as another user: %d %s\n",
		       fd2 < 0 ? -1 : 0, fd2 < 0 ? strerror(errno) : "ok");
		/* Not dumpable after setuid(): /proc/self is root's. */
		errno = 0;
		fd2 = open("/proc/self/pagemap", O_RDONLY);
		printf("pagemap-errno own pagemap as nobody: %d %s\n",
		       fd2 < 0 ? -1 : 0, fd2 < 0 ? strerror(errno) : "ok");
		if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
			_exit(3);
		errno = 0;
		fd2 = open("/proc/self/pagemap", O_RDONLY);
		ret = fd2 < 0 ? -1 : pread(fd2, buf, 64 * 8, BASE / PAGE * 8);
		for (n = 0; ret == 64 * 8 && n < 64; n++)
			if (PM_PFN(words[n]))
				break;
		printf("pagemap-errno own pagemap as dumpable nobody: %zd %s, %s\n",
		       ret, ret < 0 ? strerror(errno) : "ok",
		       n == 64 ? "no pfns" : "pfns shown");
		fflush(stdout);
		_exit(0);
	}
	fflush(stdout);
	if (pid > 0)
		waitpid(pid, NULL, 0);
#undef PM_TRY
}

/* A PAGEMAP_SCAN: its masks, vec_len, and the range within a region. */
struct scan_case {
	const char *name;
	uint64_t flags, max_pages, inverted, mask, anyof, ret_mask;
	unsigned long vec_len;
	long start_off, end_off;	/* bytes from the region's ends */
};

static const struct scan_case scan_cases[] = {
	{ "all", 0, 0, 0, 0, 0, IS_ALL, 512, 0, 0 },
	{ "present-or-swapped, no file", 0, 0, 0, 0, IS_PRESENT | IS_SWAPPED,
	  IS_ALL & ~IS_FILE, 512, 0, 0 },
	{ "written", 0, 0, 0, IS_WRITTEN, 0, IS_WRITTEN, 512, 0, 0 },
	{ "not present, file", 0, 0, IS_PRESENT, IS_PRESENT, 0, IS_ALL, 512,
	  0, 0 },
	{ "huge or file, max_pages 7", 0, 7, 0, 0, IS_HUGE | IS_FILE, IS_ALL,
	  512, 0, 0 },
	{ "all, vec_len 2", 0, 0, 0, 0, 0, IS_ALL, 2, 0, 0 },
	{ "present, unaligned end, from page 3", 0, 0, 0, IS_PRESENT, 0,
	  IS_ALL, 512, 3 * PAGE, -100 },
	{ "soft-dirty or pfnzero", 0, 0, 0, 0, IS_SOFT_DIRTY | IS_PFNZERO,
	  IS_SOFT_DIRTY | IS_PFNZERO | IS_PRESENT, 512, 0, 0 },
};

/*
 * Run one PAGEMAP_SCAN of [start, end) and print what it returned, in pages
 * from @base: "scan label what: ret walk_end [start-end categories]...".
 */
static long scan_print(const char *label, const char *what, unsigned long base,
		       unsigned long start, unsigned long end,
		       const struct scan_case *c)
{
	static struct scan_region vec[513];
	struct scan_arg arg = {
		.size = sizeof(arg),
		.flags = c->flags,
		.start = start,
		.end = end,
		.vec = c->vec_len ? (uintptr_t)vec : 0,
		.vec_len = c->vec_len,
		.max_pages = c->max_pages,
		.category_inverted = c->inverted,
		.category_mask = c->mask,
		.category_anyof_mask = c->anyof,
		.return_mask = c->ret_mask,
	};
	long ret, i;

	memset(vec, 0xa5, sizeof(vec));
	errno = 0;
	ret = ioctl(scan_fd, SCAN_IOCTL, &arg);
	printf("scan %s %s: %ld%s%s walk_end %+ld", label, what, ret,
	       ret < 0 ? " " : "", ret < 0 ? strerror(errno) : "",
	       ((long)arg.walk_end - (long)base) / (long)PAGE);
	for (i = 0; i < ret && i < (long)c->vec_len; i++)
		printf(" %ld-%ld:%#llx",
		       ((long)vec[i].start - (long)base) / (long)PAGE,
		       ((long)vec[i].end - (long)base) / (long)PAGE,
		       (unsigned long long)vec[i].categories);
	/* Nothing past what was returned. */
	for (i = ret > 0 ? ret : 0; i < (long)ARRAY_SIZE(vec); i++)
		if (vec[i].start != 0xa5a5a5a5a5a5a5a5ULL)
			break;
	if (i < (long)ARRAY_SIZE(vec))
		printf(" (vec[%ld] written)", i);
	printf("\n");
	return ret;
}

/* The read-only scans of every region of the catalogue. */
static void dump_scans(void)
{
	unsigned int c;
	int r;

	if (scan_fd < 0)
		return;
	for (r = 0; r < nr_regions; r++) {
		const struct region *g = &regions[r];

		for (c = 0; c < ARRAY_SIZE(scan_cases); c++)
			scan_print(g->label, scan_cases[c].name, g->addr,
				   g->addr + scan_cases[c].start_off,
				   g->addr + g->len + scan_cases[c].end_off,
				   &scan_cases[c]);
	}
}

/*
 * The mincore() vector of each mapping, as runs of one value: read whole,
 * then in pieces at odd offsets and lengths (mincore() walks in chunks of
 * a page of vector), which must agree with it.
 */
static void dump_mincore(void)
{
	static const unsigned long pieces[] = { 1, 3, 17, 511, 513, 4097 };
	unsigned long i, n, first, off, len, step;
	unsigned char *vec, *part;
	unsigned int k, bad;
	int r;

	for (r = 0; r < nr_regions; r++) {
		n = regions[r].len / PAGE;
		vec = malloc(n);
		part = malloc(n);
		if (!vec || !part) {
			note("mincore %s: no memory", regions[r].label);
			break;
		}
		if (mincore((void *)regions[r].addr, regions[r].len, vec)) {
			printf("mincore %s: %s\n", regions[r].label,
			       strerror(errno));
			free(vec);
			free(part);
			continue;
		}
		for (first = 0, i = 1; i <= n; i++) {
			if (i < n && vec[i] == vec[first])
				continue;
			printf("mincore %s %lu-%lu %#x\n", regions[r].label,
			       first, i - 1, vec[first]);
			first = i;
		}
		bad = 0;
		for (k = 0; k < ARRAY_SIZE(pieces); k++) {
			/* At most about 64 pieces of each length. */
			step = pieces[k] > n / 64 ? pieces[k] : n / 64;
			for (off = (k * 7) % n; off < n; off += step) {
				len = pieces[k] < n - off ? pieces[k] : n - off;
				if (mincore((void *)(regions[r].addr + off * PAGE),
					    len * PAGE, part) ||
				    memcmp(part, vec + off, len))
					bad++;
			}
		}
		if (bad)
			printf("mincore %s: %u pieces differ\n",
			       regions[r].label, bad);
		free(vec);
		free(part);
	}
}

/*
 * Read every page of this process's own mappings outside the catalogue
 * (its program, data, heap and stack), so that what smaps_rollup says of
 * them does not depend on which of their pages the code run since the
 * last clear_refs touched: where stock bugs show, the two kernels print
 * different amounts, through different code.
 */
static void read_own_mappings(void)
{
	unsigned long start, end;
	char line[512], perms[8];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f) {
		note("maps: %s", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3 ||
		    perms[0] != 'r' || region_of(start))
			continue;
		/* Not [vvar], [vdso] or [vsyscall]. */
		if (strchr(line, '[') && !strstr(line, "[heap]") &&
		    !strstr(line, "[stack]"))
			continue;
		readall((const char *)start, end - start, PAGE);
	}
	fclose(f);
}

static void dump_rollup(void)
{
	char line[512];
	FILE *f;

	read_own_mappings();
	f = fopen("/proc/self/smaps_rollup", "r");

	if (!f) {
		note("smaps_rollup: %s", strerror(errno));
		return;
	}
	/* The first line is the address range of the whole process. */
	if (fgets(line, sizeof(line), f))
		while (fgets(line, sizeof(line), f))
			printf("rollup %s", line);
	fclose(f);
}

/* Print @s with each run of blanks made one space. */
static void print_collapsed(const char *s)
{
	int blank = 0;

	for (; *s; s++) {
		if (*s == ' ' || *s == '\t') {
			blank = 1;
			continue;
		}
		if (blank)
			putchar(' ');
		blank = 0;
		putchar(*s);
	}
}

/*
 * What procps' pmap -X (Debian's, a client of smaps) says of the
 * catalogue: the header (the smaps fields it found) and the line of each
 * VMA of the catalogue, its address as label+offset, without the device
 * and inode columns, blanks collapsed (pmap's column widths follow the
 * widest value of any VMA).
 */
static void dump_pmap(void)
{
	static char *const envp[] = { "LD_LIBRARY_PATH=/lib", NULL };
	char pid[16], line[1024], perm[8], off[32], dev[16], inode[32];
	char *const argv[] = { "/bin/pmap", "-X", pid, NULL };
	posix_spawn_file_actions_t fa;
	const struct region *r;
	unsigned long start;
	int fd[2], status = -1, n;
	pid_t child;
	FILE *out;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (pipe(fd)) {
		note("pmap: pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	/* posix_spawn(): no fork, which would make the pages shared. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	n = posix_spawn(&child, argv[0], &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (n) {
		note("pmap: %s", strerror(n));
		close(fd[0]);
		return;
	}
	out = fdopen(fd[0], "r");
	while (out && fgets(line, sizeof(line), out)) {
		if (strstr(line, " Address ")) {
			printf("pmap header");
			print_collapsed(line);
			continue;
		}
		if (sscanf(line, "%lx %7s %31s %15s %31s %n", &start, perm, off,
			   dev, inode, &n) != 5)
			continue;
		r = region_of(start);
		if (r) {
			printf("pmap %s+%#lx %s %s ", r->label,
			       start - r->addr, perm, off);
			print_collapsed(line + n);
		}
	}
	if (out)
		fclose(out);
	if (waitpid(child, &status, 0) != child ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		printf("pmap: exit status %#x\n", status);
}

static void dump(const char *when)
{
	printf("= %s\n", when);
	dump_smaps("/proc/self/smaps");
	dump_numa_maps();
	dump_pagemap();
	dump_scans();
	dump_mincore();
	dump_rollup();
	dump_pmap();
}

/* A tmpfs file of @len bytes at @path, filled with a pattern. */
static int tmpfile_of(const char *path, unsigned long len)
{
	char page[PAGE];
	unsigned long i;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0) {
		note("%s: %s", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < len; i += PAGE) {
		memset(page, (int)(i / PAGE), sizeof(page));
		if (write(fd, page, sizeof(page)) != sizeof(page)) {
			note("%s: write: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
	}
	return fd;
}

#ifndef MADV_HWPOISON
#define MADV_HWPOISON		100
#endif

/* The SIGBUS that MADV_HWPOISON sends (with BUS_MCEERR_AR) on return. */
static void on_sigbus(int sig)
{
	(void)sig;
}

/*
 * Page @n of the @len bytes at @p, all written, replaced by a hwpoison
 * entry: memory failure as MADV_HWPOISON simulates it.
 */
static void hwpoison(const char *label, char *p, unsigned long len,
		     unsigned long n)
{
	if (!p)
		return;
	touch(p, len, PAGE, 26);
	if (madvise(p + n * PAGE, PAGE, MADV_HWPOISON))
		note("%s: MADV_HWPOISON: %s", label, strerror(errno));
}

/* @len bytes of anonymous memory in 64K folios, each page written. */
static char *anon_64k(const char *label, unsigned long len, int val)
{
	char *p;

	if (put(THP "hugepages-64kB/enabled", "always")) {
		note("%s: no 64K mTHP control", label);
		return NULL;
	}
	p = anon(label, len, MADV_HUGEPAGE);
	if (p)
		touch(p, len, PAGE, val);
	put(THP "hugepages-64kB/enabled", "never");
	return p;
}

/*
 * Pages @first to @first + @n - 1 of @p read (@val 0) or written (with
 * @val and on): the PTEs of a large folio that differ in a bit.
 */
static void pages(char *p, unsigned long first, unsigned long n, int val)
{
	if (!p)
		return;
	if (val)
		touch(p + first * PAGE, n * PAGE, PAGE, val);
	else
		readall(p + first * PAGE, n * PAGE, PAGE);
}

/*
 * Idle page tracking (/sys/kernel/mm/page_idle/bitmap, one bit per pfn):
 * mark the folios of each page of @p idle (@mark), or count those still
 * idle.  Either makes the young PTEs and PMDs of a folio old and marks the
 * folio young instead (folio_set_young()): smaps counts such a folio as
 * Referenced, clear_refs clears it.  The number of pages still idle, or -1.
 */
static long idle_bitmap(const char *label, char *p, unsigned long len, int mark)
{
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int fd = open("/sys/kernel/mm/page_idle/bitmap", O_RDWR);
	unsigned long i;
	uint64_t e, bits;
	long idle = 0;

	for (i = 0; p && pm >= 0 && fd >= 0 && i < len; i += PAGE) {
		if (pm_read(pm, &e, ((unsigned long)p + i) / PAGE, 1) != 1 ||
		    !(e & PM_PRESENT) || !PM_PFN(e))
			break;
		bits = 1ULL << (PM_PFN(e) % 64);
		if (mark ? pwrite(fd, &bits, 8, PM_PFN(e) / 64 * 8) != 8 :
			   pread(fd, &e, 8, PM_PFN(e) / 64 * 8) != 8)
			break;
		idle += !mark && (e & bits);
	}
	if (!p || pm < 0 || fd < 0 || i < len) {
		note("%s: idle bitmap: %s", label,
		     p ? strerror(errno) : "no mapping");
		idle = -1;
	}
	if (pm >= 0)
		close(pm);
	if (fd >= 0)
		close(fd);
	return idle;
}

/*
 * Folios that are young while their PTEs or PMD are old: four 64K mTHPs and
 * a THP mapped by a PMD, all written, then marked idle, and a few pages of
 * two of the mTHPs read again before and after the bitmap is read.  Every
 * folio is young; only the pages read again have young PTEs.  The bitmap
 * answers for the first page of a large folio only (and for a folio on an
 * LRU list only, which a small page may not be yet: none here).
 */
static void page_idle_layout(void)
{
	static const struct {
		const char *label;
		unsigned long len, first[2], n[2];
	} l[] = {
		{ "page-idle-64k", 256 * KB, { 3, 20 }, { 2, 1 } },
		{ "page-idle-thp", 2 * MB, { 0, 0 }, { 0, 0 } },
	};
	char *p[ARRAY_SIZE(l)];
	unsigned long i, j;

	p[0] = anon_64k(l[0].label, l[0].len, 27);
	p[1] = anon(l[1].label, l[1].len, MADV_HUGEPAGE);
	if (p[1])
		touch(p[1], l[1].len, PAGE, 27);
	for (i = 0; i < ARRAY_SIZE(l); i++) {
		if (idle_bitmap(l[i].label, p[i], l[i].len, 1) < 0)
			continue;
		for (j = 0; j < 2; j++)
			pages(p[i], l[i].first[j], l[i].n[j], 0);
		printf("%s: %ld of %lu pages idle\n", l[i].label,
		       idle_bitmap(l[i].label, p[i], l[i].len, 0),
		       l[i].len / PAGE);
		for (j = 0; j < 2; j++)
			pages(p[i], l[i].first[j], l[i].n[j], 0);
	}
}

/*
 * A shmem THP mapped twice: by a PMD, and by PTEs at an address that is not
 * a multiple of 2M.
 */
static void shmem_thp_twice(void)
{
	int fd = memfd_create("pmcheck-shmem-thp", 0);
	char *p;

	if (fd < 0 || ftruncate(fd, 2 * MB)) {
		note("shmem-thp: memfd: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	if (put(THP "shmem_enabled", "advise"))
		note("shmem-thp: shmem_enabled: %s", strerror(errno));
	p = map("shmem-thp", 2 * MB, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		2 * MB);
	if (p && madvise(p, 2 * MB, MADV_HUGEPAGE))
		note("shmem-thp: madvise: %s", strerror(errno));
	if (p)
		touch(p, 2 * MB, PAGE, 23);
	put(THP "shmem_enabled", "never");
	p = map_at("shmem-thp-by-ptes", next_slot + PAGE, 2 * MB,
		   PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p)
		readall(p, 2 * MB, PAGE);
	close(fd);
}

/*
 * 2M hugetlb pages of a shared mapping of a whole PUD-aligned gigabyte:
 * the child of the fork below (which inherits no page table of a shared
 * mapping) faults them in through the same PMD table, which it then
 * shares (their mapcount stays 1).
 */
static char *hugetlb_shared_pmd(void)
{
	const char *label = "hugetlb-2M-shared-pmd";
	int fd = memfd_create(label, MFD_HUGETLB | HUGE_SHIFT(21));
	char *p;

	if (fd < 0 || ftruncate(fd, GB)) {
		note("%s: %s", label, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	p = map(label, GB, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
		fd, GB);
	close(fd);
	if (p)
		touch(p, 4 * MB, 2 * MB, 24);
	return p;
}

/*
 * Anonymous shared memory in 64K folios, half of it swapped out as 64K swap
 * entries, and two private writable mappings of its file (opened through
 * /proc/self/map_files): smaps finds what they have swapped out from the
 * holes of its walk.  The first, from 32K into the file, has a page CoW'd:
 * a PTE table of empty PTEs.  The second begins and ends in the middle of a
 * swapped out 64K folio and has no table.
 */
static void shmem_64k_swapped(void)
{
	char path[64], *shm, *priv;
	int fd;

	if (put(THP "hugepages-64kB/shmem_enabled", "always")) {
		note("shmem-64k: no 64K shmem mTHP control");
		return;
	}
	shm = map("shmem-64k-shared", 1 * MB, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 2 * MB);
	if (shm)
		touch(shm, 1 * MB, PAGE, 16);
	put(THP "hugepages-64kB/shmem_enabled", "never");
	if (!shm)
		return;
	pageout("shmem-64k-shared", shm + 256 * KB, 512 * KB);

	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx",
		 (unsigned long)shm, (unsigned long)shm + 1 * MB);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		note("shmem-64k: %s: %s", path, strerror(errno));
		return;
	}
	priv = map_off("shmem-64k-private", 1 * MB - 32 * KB,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 32 * KB, 2 * MB);
	if (priv)
		priv[0] = 1;
	map_off("shmem-64k-private-half", 256 * KB, PROT_READ | PROT_WRITE,
		MAP_PRIVATE, fd, 288 * KB, 2 * MB);
	close(fd);
}

static void hugetlb(const char *label, unsigned long size, int shared)
{
	int log = __builtin_ctzl(size);
	/* Two pages, the second not faulted; one of 1G or more. */
	unsigned long len = size < GB ? 2 * size : size;
	char *p, *again;

	if (shared) {
		int fd = memfd_create(label, MFD_HUGETLB | HUGE_SHIFT(log));

		if (fd < 0) {
			note("%s: memfd_create: %s", label, strerror(errno));
			return;
		}
		if (ftruncate(fd, len)) {
			note("%s: ftruncate: %s", label, strerror(errno));
			close(fd);
			return;
		}
		p = map(label, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			size > GB ? size : GB);
		/*
		 * The same file again, never touched here: its page is in
		 * the page cache, and no page table of this mapping exists.
		 */
		if (asprintf(&again, "%s-again", label) > 0)
			map(again, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			    size > GB ? size : GB);
		close(fd);
	} else {
		p = map(label, len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			HUGE_SHIFT(log), -1, size > GB ? size : GB);
	}
	if (p)
		touch(p, size, PAGE, 7);
}

/* The number in /sys/kernel/mm/hugepages/hugepages-@kb/@what, or 0. */
static unsigned long huge_count(unsigned long kb, const char *what)
{
	char path[128];
	long n;

	snprintf(path, sizeof(path),
		 "/sys/kernel/mm/hugepages/hugepages-%lukB/%s", kb, what);
	n = get_num(path);
	return n < 0 ? 0 : n;
}

/* Whether hugetlb pages of @kb kB are reserved. */
static int have_huge(unsigned long kb)
{
	return huge_count(kb, "nr_hugepages") > 0;
}

/* Register @len bytes at @p for uffd-wp; write-protect the first @wp_len. */
static void uffd_wp(char *p, unsigned long len, unsigned long wp_len)
{
	struct uffdio_api api = { .api = UFFD_API, .features = 0 };
	struct uffdio_register reg = {
		.range = { (unsigned long)p, len },
		.mode = UFFDIO_REGISTER_MODE_WP,
	};
	struct uffdio_writeprotect wp = {
		.range = { (unsigned long)p, wp_len },
		.mode = UFFDIO_WRITEPROTECT_MODE_WP,
	};
	int fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		note("uffd: userfaultfd: %s", strerror(errno));
		return;
	}
	if (ioctl(fd, UFFDIO_API, &api) ||
	    ioctl(fd, UFFDIO_REGISTER, &reg) ||
	    ioctl(fd, UFFDIO_WRITEPROTECT, &wp))
		note("uffd: ioctl: %s", strerror(errno));
	/* Kept open: the registration lives as long as the file. */
}

/* Let ksmd merge what it can: two full scans. */
static void ksm_merge(void)
{
	char buf[32];
	int i, fd;

	if (put("/sys/kernel/mm/ksm/pages_to_scan", "10000") ||
	    put("/sys/kernel/mm/ksm/sleep_millisecs", "0") ||
	    put("/sys/kernel/mm/ksm/run", "1")) {
		note("ksm: not available");
		return;
	}
	for (i = 0; i < 600; i++) {
		fd = open("/sys/kernel/mm/ksm/full_scans", O_RDONLY);
		memset(buf, 0, sizeof(buf));
		if (fd < 0 || read(fd, buf, sizeof(buf) - 1) < 0)
			buf[0] = 0;
		if (fd >= 0)
			close(fd);
		if (atoi(buf) >= 3)
			break;
		usleep(100000);
	}
	put("/sys/kernel/mm/ksm/run", "0");
}

/*
 * clear_refs 1-3 clear the young bits without flushing the TLB (stock
 * does so on purpose): an access through a stale TLB entry then does not
 * set the bit again, and what is Referenced depends on what the TLB held,
 * i.e. on the kernel's own code.  Unmapping 4M of populated memory makes
 * both x86 and arm64 flush the whole mm's TLB.
 */
static void flush_tlb(void)
{
	char *p = mmap(NULL, 4 * MB, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		note("flush: mmap: %s", strerror(errno));
		return;
	}
	touch(p, 4 * MB, PAGE, 0);
	munmap(p, 4 * MB);
}

static long mbind_node(void *p, unsigned long len, int node)
{
	unsigned long mask = 1UL << node;

	/* MPOL_BIND == 2 */
	return syscall(SYS_mbind, p, len, 2, &mask, 8 * sizeof(mask), 0);
}

/* Guest time in ns: under -icount shift=0, executed instructions. */
static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* Read all of @path; returns the number of bytes. */
static long read_all(const char *path)
{
	static char buf[1 << 16];
	long total = 0, n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	close(fd);
	return total;
}

#define BENCH_READS	7

/* The median of BENCH_READS times in @t. */
static unsigned long long median(unsigned long long *t)
{
	qsort(t, BENCH_READS, sizeof(t[0]), cmp_ull);
	return t[BENCH_READS / 2];
}

/*
 * The median time of BENCH_READS reads of each /proc file, and of the
 * pagemap entries of the layout at @p (its first 4G at most: a pagemap
 * read of 64G of holes under TCG would take minutes).
 */
static void bench_files(const char *layout, const char *p, unsigned long len)
{
	static const char *const files[] = {
		"/proc/self/smaps", "/proc/self/smaps_rollup",
		"/proc/self/numa_maps",
	};
	static uint64_t pmbuf[65536];
	unsigned long long t[BENCH_READS], t0;
	unsigned long n, off, cnt;
	unsigned int f, r;
	unsigned char *mcvec;
	long bytes = 0;

	for (f = 0; f < ARRAY_SIZE(files); f++) {
		read_all(files[f]);	/* warm */
		for (r = 0; r < BENCH_READS; r++) {
			t0 = now_ns();
			bytes = read_all(files[f]);
			t[r] = now_ns() - t0;
		}
		printf("PMBENCH: %s %s %llu %ld\n", layout,
		       strrchr(files[f], '/') + 1, median(t), bytes);
		/* At once: make trace waits for these lines. */
		fflush(stdout);
	}

	n = (len < 4 * GB ? len : 4 * GB) / PAGE;
	for (r = 0; r <= BENCH_READS; r++) {
		t0 = now_ns();
		bytes = 0;
		for (off = 0; off < n; off += cnt) {
			cnt = n - off < 65536 ? n - off : 65536;
			bytes += pread(pagemap_fd, pmbuf, cnt * 8,
				       ((unsigned long)p / PAGE + off) * 8);
		}
		/* The first read warms. */
		if (r)
			t[r - 1] = now_ns() - t0;
	}
	printf("PMBENCH: %s pagemap %llu %ld\n", layout, median(t), bytes);
	fflush(stdout);

	/*
	 * PAGEMAP_SCAN of the layout, as CRIU asks it: present or swapped
	 * pages, their categories but PAGE_IS_FILE, in a vector of 4096,
	 * again from walk_end until the end.
	 */
	for (r = 0; r <= BENCH_READS; r++) {
		static struct scan_region vec[4096];
		struct scan_arg arg = {
			.size = sizeof(arg),
			.start = (uintptr_t)p,
			.end = (uintptr_t)p + len,
			.vec = (uintptr_t)vec,
			.vec_len = ARRAY_SIZE(vec),
			.category_anyof_mask = IS_PRESENT | IS_SWAPPED,
			.return_mask = IS_ALL & ~IS_FILE,
		};
		long n;

		t0 = now_ns();
		bytes = 0;
		do {
			n = ioctl(pagemap_fd, SCAN_IOCTL, &arg);
			if (n < 0)
				break;
			bytes += n;
			arg.start = arg.walk_end;
		} while (arg.walk_end < arg.end);
		if (r)
			t[r - 1] = now_ns() - t0;
	}
	printf("PMBENCH: %s pagemap_scan %llu %ld\n", layout, median(t), bytes);
	fflush(stdout);

	/* mincore() of the layout. */
	mcvec = malloc(len / PAGE);
	for (r = 0; mcvec && r <= BENCH_READS; r++) {
		t0 = now_ns();
		if (mincore((void *)p, len, mcvec))
			note("%s: mincore: %s", layout, strerror(errno));
		if (r)
			t[r - 1] = now_ns() - t0;
	}
	printf("PMBENCH: %s mincore %llu %ld\n", layout, median(t),
	       len / PAGE);
	fflush(stdout);
	free(mcvec);

	/*
	 * mbind(MPOL_MF_MOVE) of the layout to both nodes: every folio is
	 * where the policy wants it, so this is the walk that finds nothing
	 * to move (and, once, the policy set).
	 */
	for (r = 0; r <= BENCH_READS; r++) {
		unsigned long nodes = 3;

		t0 = now_ns();
		/* MPOL_BIND == 2, MPOL_MF_MOVE == 2 */
		if (syscall(SYS_mbind, p, len, 2, &nodes, 8 * sizeof(nodes), 2))
			note("%s: mbind: %s", layout, strerror(errno));
		if (r)
			t[r - 1] = now_ns() - t0;
	}
	printf("PMBENCH: %s mbind %llu %ld\n", layout, median(t), 0L);
	fflush(stdout);
}

/*
 * Fragment the THPs of [p, p + len): a child shares them while the parent
 * writes one page of each 2M, which maps the rest of the THP by PTEs around
 * a CoW'd page; then a hole and a few swapped out pages every 8M.
 */
static void fragment(char *p, unsigned long len)
{
	unsigned long i;
	pid_t pid;
	int wfd;

	pid = fork_waiter("fragmented-256M", &wfd);
	for (i = 0; i < len; i += 2 * MB)
		p[i + (i / (2 * MB) % 512) * PAGE] = 2;
	if (pid > 0) {
		close(wfd);
		waitpid(pid, NULL, 0);
	}
	for (i = 0; i < len; i += 8 * MB) {
		if (madvise(p + i + 100 * PAGE, 4 * PAGE, MADV_DONTNEED))
			note("fragmented-256M: MADV_DONTNEED: %s", strerror(errno));
		pageout("fragmented-256M", p + i + 200 * PAGE, 16 * PAGE);
	}
}

/*
 * The layouts of the bench mode, one at a time in a fresh mapping (the
 * process's own few VMAs are the same for both kernels).
 */
static void bench(void)
{
	unsigned long i;
	char *p;

	p = anon("small-512M", 512 * MB, MADV_NOHUGEPAGE);
	if (p) {
		touch(p, 512 * MB, PAGE, 1);
		bench_files("small-512M", p, 512 * MB);
		munmap(p, 512 * MB);
	}
	p = anon("thp-512M", 512 * MB, MADV_HUGEPAGE);
	if (p) {
		touch(p, 512 * MB, PAGE, 1);
		bench_files("thp-512M", p, 512 * MB);
		munmap(p, 512 * MB);
	}
	/* 64K mTHP only: no PMD THP for this MADV_HUGEPAGE mapping. */
	if (!put(THP "hugepages-64kB/enabled", "always") &&
	    !put(THP "hugepages-2048kB/enabled", "never")) {
		p = anon("mthp64K-256M", 256 * MB, MADV_HUGEPAGE);
		if (p) {
			touch(p, 256 * MB, PAGE, 1);
			bench_files("mthp64K-256M", p, 256 * MB);
			munmap(p, 256 * MB);
		}
	}
	put(THP "hugepages-64kB/enabled", "never");
	put(THP "hugepages-2048kB/enabled", "inherit");
	p = anon("thp-pte-256M", 256 * MB, MADV_HUGEPAGE);
	if (p) {
		touch(p, 256 * MB, PAGE, 1);
		/* One page of each THP zapped: all PTE-mapped. */
		for (i = 0; i < 256 * MB; i += 2 * MB)
			madvise(p + i + 5 * PAGE, PAGE, MADV_DONTNEED);
		bench_files("thp-pte-256M", p, 256 * MB);
		munmap(p, 256 * MB);
	}
	p = anon("fragmented-256M", 256 * MB, MADV_HUGEPAGE);
	if (p) {
		touch(p, 256 * MB, PAGE, 1);
		fragment(p, 256 * MB);
		bench_files("fragmented-256M", p, 256 * MB);
		munmap(p, 256 * MB);
	}
	if (have_huge(2048)) {
		p = map("hugetlb2M-256M", 256 * MB, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			HUGE_SHIFT(21), -1, GB);
		if (p) {
			touch(p, 256 * MB, 2 * MB, 1);
			bench_files("hugetlb2M-256M", p, 256 * MB);
			munmap(p, 256 * MB);
		}
	}
	if (have_huge(1048576)) {
		p = map("hugetlb1G-1G", GB, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			HUGE_SHIFT(30), -1, GB);
		if (p) {
			touch(p, GB, 2 * MB, 1);
			bench_files("hugetlb1G-1G", p, GB);
			munmap(p, GB);
		}
	}
	/* MAP_NORESERVE: 64G is more than the guest could commit. */
	p = map("sparse-64G", 64 * GB, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, GB);
	if (p && madvise(p, 64 * GB, MADV_NOHUGEPAGE))
		note("sparse-64G: madvise: %s", strerror(errno));
	if (p) {
		touch(p, 64 * GB, 2 * MB, 1);
		bench_files("sparse-64G", p, 64 * GB);
		munmap(p, 64 * GB);
	}
	p = anon("vmas-2000", 2000 * 8 * PAGE, MADV_NOHUGEPAGE);
	if (p) {
		/* 2000 VMAs of 1-4 pages: every other page PROT_READ. */
		for (i = 0; i < 2000; i++) {
			touch(p + i * 8 * PAGE, (1 + i % 4) * PAGE, PAGE, 1);
			mprotect(p + i * 8 * PAGE + 4 * PAGE, 4 * PAGE,
				 PROT_READ);
		}
		bench_files("vmas-2000", p, 2000 * 8 * PAGE);
		munmap(p, 2000 * 8 * PAGE);
	}
}

/* A userfaultfd in async write-protect mode, with markers for holes. */
static int uffd_async(void)
{
	struct uffdio_api api = {
		.api = UFFD_API,
		.features = (1 << 15) | (1 << 13) | (1 << 12),
	};
	int fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (fd < 0 || ioctl(fd, UFFDIO_API, &api)) {
		note("uffd async: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void uffd_register(int fd, const char *label, char *p,
			  unsigned long len)
{
	struct uffdio_register reg = {
		.range = { (unsigned long)p, len },
		.mode = UFFDIO_REGISTER_MODE_WP,
	};

	if (fd >= 0 && p && ioctl(fd, UFFDIO_REGISTER, &reg))
		note("%s: UFFDIO_REGISTER: %s", label, strerror(errno));
}

/* The write-protect scan: PM_SCAN_WP_MATCHING of the written pages. */
static const struct scan_case scan_wp_written = {
	"wp written", SCAN_WP_MATCHING | SCAN_CHECK_WPASYNC, 0, 0, IS_WRITTEN,
	0, IS_WRITTEN, 512, 0, 0,
};

/* Scan @len bytes of @p from @off with @c, if it was mapped. */
static void scan_at(const char *label, char *p, unsigned long off,
		    unsigned long len, const struct scan_case *c)
{
	if (p)
		scan_print(label, c->name, (unsigned long)p,
			   (unsigned long)p + off, (unsigned long)p + off + len,
			   c);
}

/*
 * PAGEMAP_SCAN with PM_SCAN_WP_MATCHING over mappings registered for async
 * uffd-wp: what it reports, and what it leaves write-protected (the dump
 * that follows shows PM_UFFD_WP of each page).
 */
static void scan_wp(void)
{
	static const struct scan_case wp_max3 = {
		"wp written, max_pages 3", SCAN_WP_MATCHING, 3, 0, IS_WRITTEN,
		0, IS_WRITTEN | IS_HUGE, 512, 0, 0,
	};
	static const struct scan_case wp_any = {
		"wp present or huge", SCAN_WP_MATCHING, 0, 0, IS_WRITTEN,
		IS_PRESENT | IS_HUGE, IS_ALL, 512, 0, 0,
	};
	static const struct scan_case wp_novec = {
		"wp all, no vec", SCAN_WP_MATCHING, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	static const struct scan_case all = {
		"all", 0, 0, 0, 0, 0, IS_ALL, 512, 0, 0,
	};
	struct {
		const char *label;
		unsigned long size;	/* hugetlb page size, 0 if none */
		char *p;
		unsigned long len;
	} m[] = {
		{ "wp-anon", 0, NULL, 0 }, { "wp-thp", 0, NULL, 0 },
		{ "wp-thp2", 0, NULL, 0 }, { "wp-shmem", 0, NULL, 0 },
		{ "wp-hugetlb-2M", 2 * MB, NULL, 0 },
		{ "wp-hugetlb-1G", GB, NULL, 0 },
		{ "wp-hugetlb-64K", 64 * KB, NULL, 0 },
		{ "wp-hugetlb-32M", 32 * MB, NULL, 0 },
		{ "wp-hugetlb-2M-gap", 2 * MB, NULL, 0 },
	};
	const unsigned int gap = ARRAY_SIZE(m) - 1;
	unsigned int i;
	int fd, ufd;

	m[0].len = 4 * MB;
	m[0].p = anon(m[0].label, m[0].len, MADV_NOHUGEPAGE);
	if (m[0].p) {
		touch(m[0].p, 1 * MB, PAGE, 20);
		/* Swap entries to write-protect too. */
		pageout(m[0].label, m[0].p + 256 * KB, 128 * KB);
	}
	for (i = 1; i <= 2; i++) {
		m[i].len = 4 * MB;
		m[i].p = anon(m[i].label, m[i].len, MADV_HUGEPAGE);
		if (m[i].p)
			touch(m[i].p, m[i].len, PAGE, 21);
	}
	/*
	 * The catalogue's private 1G page makes room for wp-hugetlb-1G: two
	 * 1G pages are all x86_64 gets at boot in 8G.
	 */
	for (i = 0; i < (unsigned int)nr_regions; i++)
		if (!strcmp(regions[i].label, "hugetlb-1G-private"))
			munmap((void *)regions[i].addr, regions[i].len);

	fd = memfd_create("pmcheck-wp", 0);
	if (fd >= 0 && !ftruncate(fd, 1 * MB)) {
		m[3].len = 1 * MB;
		m[3].p = map(m[3].label, m[3].len, PROT_READ | PROT_WRITE,
			     MAP_SHARED, fd, 2 * MB);
		if (m[3].p)
			touch(m[3].p, 512 * KB, PAGE, 22);
	}
	if (fd >= 0)
		close(fd);
	for (i = 4; i < ARRAY_SIZE(m); i++) {
		if (!have_huge(m[i].size / KB))
			continue;
		if (i == gap) {
			/*
			 * Two 2M pages either side of a 1G boundary, the
			 * second never touched: no PMD table holds its entry.
			 */
			m[i].len = 4 * MB;
			m[i].p = map_off(m[i].label, GB + 2 * MB,
					 PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS |
					 MAP_NORESERVE, -1, 0, GB);
			if (m[i].p) {
				/* Keep [1G - 2M, 1G + 2M) of it, as hugetlb. */
				munmap(m[i].p, GB + 2 * MB);
				m[i].p = mmap(m[i].p + GB - 2 * MB, m[i].len,
					      PROT_READ | PROT_WRITE,
					      MAP_PRIVATE | MAP_ANONYMOUS |
					      MAP_HUGETLB | HUGE_SHIFT(21) |
					      MAP_FIXED_NOREPLACE, -1, 0);
				regions[nr_regions - 1].addr += GB - 2 * MB;
				regions[nr_regions - 1].len = m[i].len;
				if (m[i].p == MAP_FAILED) {
					note("%s: mmap: %s", m[i].label,
					     strerror(errno));
					m[i].p = NULL;
				}
			}
			if (m[i].p)
				touch(m[i].p, 2 * MB, PAGE, 23);
			continue;
		}
		m[i].len = m[i].size < GB ? 2 * m[i].size : m[i].size;
		m[i].p = map(m[i].label, m[i].len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			     HUGE_SHIFT(__builtin_ctzl(m[i].size)), -1,
			     m[i].size > GB ? m[i].size : GB);
		if (!m[i].p)
			note("%s: %lu pages free of %lu", m[i].label,
			     huge_count(m[i].size / KB, "free_hugepages"),
			     huge_count(m[i].size / KB, "nr_hugepages"));
		if (m[i].p)
			touch(m[i].p, m[i].size, PAGE, 23);
	}

	ufd = uffd_async();
	for (i = 0; i < ARRAY_SIZE(m); i++)
		uffd_register(ufd, m[i].label, m[i].p, m[i].len);
	printf("= PAGEMAP_SCAN write-protect\n");

	/* Write-protect what is written, wp-thp2 aside. */
	for (i = 0; i < ARRAY_SIZE(m); i++)
		if (i != 2)
			scan_at(m[i].label, m[i].p, 0, m[i].len,
				&scan_wp_written);
	/* Write again here and there. */
	if (m[0].p) {
		m[0].p[5 * PAGE] = 1;
		m[0].p[300 * PAGE] = 1;		/* was a hole */
		m[0].p[3 * MB] = 1;		/* was a missing table */
	}
	if (m[1].p)
		m[1].p[MB + 5 * PAGE] = 1;	/* splits the THP */
	if (m[3].p) {
		m[3].p[2 * PAGE] = 1;
		m[3].p[600 * KB] = 1;
	}
	for (i = 4; i < ARRAY_SIZE(m); i++)
		if (m[i].p)
			m[i].p[PAGE] = 1;
	for (i = 0; i < ARRAY_SIZE(m); i++)
		scan_at(m[i].label, m[i].p, 0, m[i].len, &all);

	/* Part of a THP: split; then a whole THP: write-protected. */
	scan_at(m[2].label, m[2].p, MB, MB, &wp_max3);
	scan_at(m[2].label, m[2].p, 2 * MB, 2 * MB, &wp_any);
	/* No output: every PTE that is not write-protected yet. */
	scan_at(m[0].label, m[0].p, 0, m[0].len, &wp_novec);
	/* And a hugetlb hole with no table: a marker in a new one. */
	scan_at(m[gap].label, m[gap].p, 0, m[gap].len, &wp_novec);
	/* Part of a hugetlb page: not write-protected, and the walk goes on. */
	for (i = 4; i < ARRAY_SIZE(m); i++)
		scan_at(m[i].label, m[i].p, PAGE, m[i].len - PAGE,
			&scan_wp_written);
	for (i = 0; i < ARRAY_SIZE(m); i++) {
		scan_at(m[i].label, m[i].p, 0, m[i].len, &all);
		scan_at(m[i].label, m[i].p, 0, m[i].len, &scan_wp_written);
	}
	dump("after PAGEMAP_SCAN write-protect");
}

/*
 * smaps_rollup drops the mmap lock where a writer waits for it, then goes
 * on from the end of the last VMA it read: from the middle of a VMA, if
 * that one was merged with the next meanwhile.  A thread changes the
 * protection of the upper half of "rollup-race" back and forth (two VMAs,
 * then one) while smaps_rollup is read again and again: every read must
 * say what it says of the quiet process.
 *
 * What makes the writer's change fall between the two halves: the rollup
 * looks for a waiting writer after every other VMA (not after the one it
 * reads right after a drop), and a drop lets the writer in only once it
 * has waited a jiffy (until then, the reader takes the lock back first).
 * So a long walk ("rollup-race-long", 256M of small pages) lets the wait
 * run out, the drop after it or after the next VMA tells the writer so,
 * and the drop after the VMA after that lets it in.  The writer also
 * splits and merges "rollup-race-pair" between the two, which moves the
 * lower half to that place whichever of the long walk and the pair is
 * looked after.
 */
#define RACE_LEN	(2 * MB)
#define RACE_LONG	(256 * MB)
#define RACE_READS	96

static int race_go[2], race_done[2];
static int race_stop;		/* __atomic: the two threads share it */
static int race_started;	/* __atomic: the writer made a change */
static char *race_half[2];
static unsigned long race_len[2];

/*
 * The writer: per byte read from race_go, until race_stop, turns write
 * access off or on for the upper half of the pair or of rollup-race, as
 * a pseudo-random sequence seeded by the clock picks; then on for both,
 * and it says how many changes it made.
 */
static void *race_writer(void *arg)
{
	int prot[2] = { PROT_READ | PROT_WRITE, PROT_READ | PROT_WRITE };
	struct timespec ts;
	unsigned long n = 0;
	uint32_t x;
	char c;
	int i;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	x = ts.tv_nsec | 1;
	while (read(race_go[0], &c, 1) == 1 && c == 'r') {
		for (n = 0; !__atomic_load_n(&race_stop, __ATOMIC_RELAXED); n++) {
			/* xorshift32: the rollup's steps must not fall in step. */
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			i = x >> 31;
			prot[i] ^= PROT_WRITE;
			if (mprotect(race_half[i], race_len[i], prot[i]))
				break;
			__atomic_store_n(&race_started, 1, __ATOMIC_RELAXED);
		}
		/* Failed at once: the reads go on (and the round fails). */
		__atomic_store_n(&race_started, 1, __ATOMIC_RELAXED);
		for (i = 0; i < 2; i++) {
			prot[i] = PROT_READ | PROT_WRITE;
			if (mprotect(race_half[i], race_len[i], prot[i]))
				n = 0;
		}
		if (write(race_done[1], &n, sizeof(n)) != sizeof(n))
			break;
	}
	return NULL;
}

static ssize_t read_rollup(char *buf, size_t size)
{
	int fd = open("/proc/self/smaps_rollup", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	buf[n < 0 ? 0 : n] = 0;
	return n;
}

/*
 * One round: a quiet read, RACE_READS with the writer running, one quiet
 * again.  The number of reads unlike the first, or -1; the first unlike
 * it copied to @bad.  The reads start once the writer has made its first
 * change: a vCPU the host left waiting must not make a round without one.
 */
static int race_round(char bad[4096])
{
	static char quiet[4096], again[4096], reads[RACE_READS][4096];
	unsigned long n = 0;
	int i, unlike = 0;

	if (read_rollup(quiet, sizeof(quiet)) <= 0)
		return -1;
	__atomic_store_n(&race_stop, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&race_started, 0, __ATOMIC_RELAXED);
	if (write(race_go[1], "r", 1) != 1)
		return -1;
	while (!__atomic_load_n(&race_started, __ATOMIC_RELAXED))
		sched_yield();
	for (i = 0; i < RACE_READS; i++)
		read_rollup(reads[i], sizeof(reads[i]));
	__atomic_store_n(&race_stop, 1, __ATOMIC_RELAXED);
	if (read(race_done[0], &n, sizeof(n)) != sizeof(n) || !n ||
	    read_rollup(again, sizeof(again)) <= 0)
		return -1;
	bad[0] = 0;
	for (i = 0; i < RACE_READS; i++) {
		if (strcmp(reads[i], quiet) && !unlike++)
			memcpy(bad, reads[i], sizeof(reads[i]));
	}
	if (strcmp(again, quiet) && !unlike++)
		memcpy(bad, again, sizeof(again));
	return unlike;
}

static void rollup_race(void)
{
	char *l = anon("rollup-race-long", RACE_LONG, MADV_NOHUGEPAGE);
	char *pair = anon("rollup-race-pair", 2 * PAGE, MADV_NOHUGEPAGE);
	char *p = anon("rollup-race", RACE_LEN, MADV_NOHUGEPAGE);
	static char bad[4096];
	cpu_set_t cpu1;
	pthread_t t;
	int unlike;

	if (!l || !pair || !p)
		return;
	touch(l, RACE_LONG, PAGE, 28);
	touch(pair, 2 * PAGE, PAGE, 28);
	touch(p, RACE_LEN, PAGE, 28);
	race_half[0] = pair + PAGE;
	race_len[0] = PAGE;
	race_half[1] = p + RACE_LEN / 2;
	race_len[1] = RACE_LEN / 2;
	if (pipe(race_go) || pipe(race_done) ||
	    pthread_create(&t, NULL, race_writer, NULL)) {
		note("rollup-race: %s", strerror(errno));
		return;
	}
	/*
	 * pmcheck runs on CPU 0 (see init.c); the writer on CPU 1, so that
	 * it waits for the mmap lock while a read of smaps_rollup holds it.
	 */
	CPU_ZERO(&cpu1);
	CPU_SET(1, &cpu1);
	if (pthread_setaffinity_np(t, sizeof(cpu1), &cpu1))
		note("rollup-race: no CPU 1 for the writer");
	/* The first round runs every piece of code once: pages made young. */
	race_round(bad);
	unlike = race_round(bad);
	if (write(race_go[1], "q", 1) != 1 || pthread_join(t, NULL))
		note("rollup-race: the writer did not stop");
	if (unlike < 0) {
		note("rollup-race: the writer did not run");
		return;
	}
	printf("rollup-race: %d of %d reads unlike the quiet one\n", unlike,
	       RACE_READS + 1);
	if (unlike)
		printf("rollup-race: first unlike:\n%s", bad);
}

int main(int argc, char **argv)
{
	char *small, *zero, *hzero, *thp, *split, *mthp, *shm, *fpriv, *fshared;
	char *cow, *swp, *sd, *uffd, *locked, *ksm1, *ksm2, *node1, *none;
	char *across, *bits, *tbits, *wbits, *mcow, *tchild, *hspmd = NULL;
	int fd, v, sync_fd[2];
	unsigned long i;
	pid_t pid;
	char c;

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	/* On a line of its own: the console may hold the firmware's text. */
	printf("\nPMCHECK: BEGIN\n");
	if (argc > 1 && !strcmp(argv[1], "bench")) {
		pagemap_fd = open("/proc/self/pagemap", O_RDONLY);
		bench();
		printf("PMCHECK: END\n");
		fflush(stdout);
		return 0;
	}

	small = anon("anon-small", 256 * KB, MADV_NOHUGEPAGE);
	if (small)
		touch(small, 192 * KB, PAGE, 1);	/* a hole at the end */
	zero = anon("zero-page", 64 * KB, MADV_NOHUGEPAGE);
	if (zero)
		readall(zero, 64 * KB, PAGE);

	/* Read faults of a THP-sized range: the huge zero page. */
	hzero = anon("huge-zero-page", 4 * MB, MADV_HUGEPAGE);
	if (hzero)
		readall(hzero, 4 * MB, PAGE);

	thp = anon("thp-pmd", 4 * MB, MADV_HUGEPAGE);
	if (thp)
		touch(thp, 4 * MB, PAGE, 2);
	split = anon("thp-pte", 4 * MB, MADV_HUGEPAGE);
	if (split) {
		touch(split, 4 * MB, PAGE, 3);
		/* Zap one page of each THP: both become PTE-mapped. */
		if (madvise(split + 64 * KB, PAGE, MADV_DONTNEED) ||
		    madvise(split + 2 * MB + 1 * MB, 2 * PAGE, MADV_DONTNEED))
			note("thp-pte: MADV_DONTNEED: %s", strerror(errno));
	}

	if (!put("/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled",
		 "always")) {
		mthp = anon("mthp-64k", 1 * MB, MADV_NOHUGEPAGE);
		if (mthp) {
			/* MADV_NOHUGEPAGE also stops mTHP: allow it again. */
			if (madvise(mthp, 1 * MB, MADV_HUGEPAGE))
				note("mthp-64k: MADV_HUGEPAGE: %s",
				     strerror(errno));
			touch(mthp, 1 * MB, PAGE, 4);
			/* CoW-like: one page of a 64K folio replaced. */
			if (madvise(mthp + 64 * KB + PAGE, PAGE, MADV_DONTNEED))
				note("mthp-64k: MADV_DONTNEED: %s",
				     strerror(errno));
			mthp[64 * KB + PAGE] = 1;
		}
		put("/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled",
		    "never");
	} else {
		note("mthp-64k: no 64K mTHP control");
	}

	fd = memfd_create("pmcheck-shmem", 0);
	if (fd >= 0 && !ftruncate(fd, 1 * MB)) {
		shm = map("shmem", 1 * MB, PROT_READ | PROT_WRITE, MAP_SHARED,
			  fd, 2 * MB);
		if (shm) {
			touch(shm, 512 * KB, PAGE, 5);
			pageout("shmem", shm + 128 * KB, 64 * KB);
		}
	} else {
		note("shmem: memfd: %s", strerror(errno));
	}
	if (fd >= 0)
		close(fd);

	shmem_64k_swapped();
	shmem_thp_twice();

	fd = tmpfile_of("/tmp/pmcheck-file", 512 * KB);
	if (fd >= 0) {
		fpriv = map("file-private", 512 * KB, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE, fd, 2 * MB);
		if (fpriv) {
			readall(fpriv, 256 * KB, PAGE);
			touch(fpriv + 128 * KB, 64 * KB, PAGE, 6);  /* CoW */
		}
		fshared = map("file-shared", 512 * KB, PROT_READ | PROT_WRITE,
			      MAP_SHARED, fd, 2 * MB);
		if (fshared) {
			readall(fshared, 128 * KB, PAGE);
			touch(fshared + 256 * KB, 64 * KB, PAGE, 8);
		}
		close(fd);
	}

	if (have_huge(2048)) {
		hugetlb("hugetlb-2M-private", 2 * MB, 0);
		hugetlb("hugetlb-2M-shared", 2 * MB, 1);
	}
	if (have_huge(1048576)) {
		hugetlb("hugetlb-1G-private", GB, 0);
		hugetlb("hugetlb-1G-shared", GB, 1);
	}
	if (have_huge(64)) {
		hugetlb("hugetlb-64K-private", 64 * KB, 0);
		hugetlb("hugetlb-64K-shared", 64 * KB, 1);
	}
	if (have_huge(32768)) {
		hugetlb("hugetlb-32M-private", 32 * MB, 0);
		hugetlb("hugetlb-32M-shared", 32 * MB, 1);
	}
	if (have_huge(2048))
		hspmd = hugetlb_shared_pmd();
	/* Two THPs and two 2M hugetlb pages, one on each side of 1G. */
	across = map_across("thp-across-1G", 4 * MB, MAP_PRIVATE | MAP_ANONYMOUS);
	if (across) {
		if (madvise(across, 4 * MB, MADV_HUGEPAGE))
			note("thp-across-1G: madvise: %s", strerror(errno));
		touch(across, 4 * MB, PAGE, 11);
	}
	if (have_huge(2048)) {
		across = map_across("hugetlb-2M-private-across-1G", 4 * MB,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
				    HUGE_SHIFT(21));
		if (across)
			touch(across, 4 * MB, PAGE, 12);
	}

	swp = anon("anon-swapped", 256 * KB, MADV_NOHUGEPAGE);
	if (swp) {
		touch(swp, 256 * KB, PAGE, 9);
		pageout("anon-swapped", swp, 128 * KB);
	}

	uffd = anon("uffd-wp", 256 * KB, MADV_NOHUGEPAGE);
	if (uffd) {
		touch(uffd, 256 * KB, PAGE, 10);
		uffd_wp(uffd, 256 * KB, 128 * KB);
	}

	locked = anon("mlocked", 128 * KB, MADV_NOHUGEPAGE);
	if (locked && mlock(locked, 64 * KB))
		note("mlocked: mlock: %s", strerror(errno));

	ksm1 = anon("ksm", 256 * KB, MADV_NOHUGEPAGE);
	if (ksm1) {
		memset(ksm1, 0x5a, 256 * KB);
		ksm2 = ksm1 + 128 * KB;
		for (i = 0; i < 64 * KB; i += PAGE)
			ksm2[i + 1] = 1;	/* half of them differ */
		if (madvise(ksm1, 256 * KB, MADV_MERGEABLE))
			note("ksm: MADV_MERGEABLE: %s", strerror(errno));
		else
			ksm_merge();
	}

	node1 = anon("numa-node1", 256 * KB, MADV_NOHUGEPAGE);
	if (node1) {
		if (mbind_node(node1, 256 * KB, 1))
			note("numa-node1: mbind: %s", strerror(errno));
		touch(node1, 256 * KB, PAGE, 11);
	}

	none = anon("prot-none", 128 * KB, MADV_NOHUGEPAGE);
	if (none) {
		touch(none, 64 * KB, PAGE, 12);
		mprotect(none, 128 * KB, PROT_NONE);
	}

#ifdef __x86_64__
	/*
	 * A private pfn mapping (VM_PFNMAP) of the BIOS area, two of its
	 * pages CoW'd: normal pages in a pfn mapping.
	 */
	fd = open("/dev/mem", O_RDONLY);
	if (fd < 0) {
		note("pfnmap-cow: /dev/mem: %s", strerror(errno));
	} else {
		char *pfn = map_off("pfnmap-cow", 64 * KB,
				    PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
				    0xe0000, GB);

		if (pfn) {
			readall(pfn, 64 * KB, PAGE);
			touch(pfn + 4 * PAGE, 2 * PAGE, PAGE, 15);
		}
		close(fd);
	}
#endif

	/*
	 * Large folios whose PTEs differ in one bit: 64K mTHPs and a THP
	 * mapped by PTEs (its last page zapped), a few pages of a folio read
	 * or written again after each clear_refs value (below: Referenced,
	 * soft-dirty); pages of two mTHPs MADV_FREE'd and some of them
	 * written again (LazyFree, dirty); the first one and a half mTHPs of
	 * another region write-protected by uffd-wp; and mTHPs some pages of
	 * which are CoW'd while a child maps them (below).  A batch of PTEs
	 * must end where such a bit changes, or report it for any of its
	 * PTEs where the walk says it ignores it.  The first two are not
	 * mapped by the child after fork: written after clear_refs 4, their
	 * pages stay in their folios.
	 */
	bits = anon_64k("mthp-bits", 512 * KB, 17);
	if (bits) {
		if (madvise(bits, 512 * KB, MADV_DONTFORK) ||
		    madvise(bits + 64 * PAGE, 32 * PAGE, MADV_FREE))
			note("mthp-bits: madvise: %s", strerror(errno));
		pages(bits, 70, 2, 18);
		pages(bits, 85, 1, 18);
	}
	tbits = anon("thp-pte-bits", 2 * MB, MADV_HUGEPAGE);
	if (tbits) {
		touch(tbits, 2 * MB, PAGE, 19);
		if (madvise(tbits, 2 * MB, MADV_DONTFORK) ||
		    madvise(tbits + 2 * MB - PAGE, PAGE, MADV_DONTNEED))
			note("thp-pte-bits: madvise: %s", strerror(errno));
	}
	wbits = anon_64k("mthp-uffd-wp", 256 * KB, 20);
	if (wbits)
		uffd_wp(wbits, 256 * KB, 96 * KB);
	mcow = anon_64k("mthp-cow", 256 * KB, 21);
	/* A THP that the child of the fork below maps by PTEs. */
	tchild = anon("thp-by-ptes-in-child", 2 * MB, MADV_HUGEPAGE);
	if (tchild)
		touch(tchild, 2 * MB, PAGE, 25);

	/* hwpoison entries: of a small page, and of a page of a THP. */
	signal(SIGBUS, on_sigbus);
	hwpoison("hwpoison", anon("hwpoison", 64 * KB, MADV_NOHUGEPAGE),
		 64 * KB, 5);
	hwpoison("thp-hwpoison", anon("thp-hwpoison", 2 * MB, MADV_HUGEPAGE),
		 2 * MB, 100);

	page_idle_layout();

	sd = anon("soft-dirty", 256 * KB, MADV_NOHUGEPAGE);
	cow = anon("cow", 256 * KB, MADV_NOHUGEPAGE);
	if (cow)
		touch(cow, 256 * KB, PAGE, 13);

	pagemap_fd = open("/proc/self/pagemap", O_RDONLY);
	scan_fd = pagemap_fd;
	pagemap_nopfn_fd = open_pagemap_nopfn();
	kpageflags_fd = open("/proc/kpageflags", O_RDONLY);
	if (pagemap_fd < 0 || pagemap_nopfn_fd < 0 || kpageflags_fd < 0)
		note("pagemap: %s", strerror(errno));
	pm_errors();

	dump("catalogue");

	/* After fork: the child writes half of "cow", the parent looks. */
	if (pipe(sync_fd)) {
		note("fork: pipe: %s", strerror(errno));
		sync_fd[0] = -1;
		sync_fd[1] = -1;
	}
	pid = fork();
	if (pid == 0) {
		if (cow)
			touch(cow, 128 * KB, PAGE, 14);
		/* Splits the child's PMD; the parent's stays. */
		if (tchild && mprotect(tchild + PAGE, PAGE, PROT_READ))
			_exit(1);
		if (hspmd)
			readall(hspmd, 4 * MB, 2 * MB);
		if (write(sync_fd[1], "", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	if (pid < 0 || read(sync_fd[0], &c, 1) != 1)
		note("fork: the child did not start");
	/* Pages of mTHPs the child maps too, CoW'd: partly shared folios. */
	pages(mcow, 5, 2, 22);
	pages(mcow, 20, 1, 22);
	dump("after fork, the child wrote half of cow");
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}

	/* clear_refs 1-5, each after the same writes. */
	for (v = 1; v <= 5; v++) {
		char what[64], val[4];

		if (sd)
			touch(sd, 128 * KB, PAGE, v);
		if (small)
			readall(small, 64 * KB, PAGE);
		snprintf(val, sizeof(val), "%d", v);
		if (put("/proc/self/clear_refs", val))
			note("clear_refs %d: %s", v, strerror(errno));
		flush_tlb();
		if (sd)
			touch(sd + 64 * KB, 32 * KB, PAGE, v);
		/* Within a folio: some pages read, some written. */
		pages(bits, 3, 2, 0);
		pages(bits, 9, 2, v);
		pages(bits, 40, 1, 0);
		pages(tbits, 100, 2, 0);
		pages(tbits, 300, 3, v);
		snprintf(what, sizeof(what), "after clear_refs %d", v);
		dump(what);
	}

	scan_wp();
	rollup_race();

	printf("PMCHECK: END\n");
	fflush(stdout);
	return 0;
}

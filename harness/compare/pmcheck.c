// SPDX-License-Identifier: GPL-2.0
/*
 * pmcheck: the static checker of `make compare` (harness/compare.sh).
 *
 * It builds a catalogue of mappings at fixed addresses (small anonymous
 * pages, the zero page, THP mapped by a PMD and by PTEs, 64K mTHP, shmem
 * with pages swapped out, private and shared file mappings, hugetlb of
 * every size the kernel offers, private and shared, CoW after fork, pages
 * swapped out to zram, soft-dirty after each clear_refs value, uffd-wp,
 * mlock, KSM, memory bound to the second NUMA node, PROT_NONE) and prints
 * what /proc says about each: its smaps block, its numa_maps line and the
 * flags of its pagemap entries, then smaps_rollup.
 *
 * The output is normalised so that two boots of one kernel print the same
 * bytes: mappings are named by their catalogue label and their offset in
 * the catalogue, not by address, device or inode; pagemap PFNs and swap
 * offsets are not printed.  Run on the stock and on the patched kernel,
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
#include <signal.h>
#include <linux/userfaultfd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
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
#define THP			"/sys/kernel/mm/transparent_hugepage/"
#define HUGE_SHIFT(s)		((unsigned int)(s) << 26)	/* MAP/MFD_HUGE_* */

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define KB			1024UL
#define MB			(1024 * KB)
#define GB			(1024 * MB)
#define PAGE			4096UL
/* Each mapping gets its own aligned gigabyte, from here on. */
#define BASE			(64 * GB)

struct region {
	const char *label;
	unsigned long addr;
	unsigned long len;
};

static struct region regions[64];
static int nr_regions;
static unsigned long next_slot = BASE;

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

/* Map @len bytes of the next gigabyte slot (two for 1G pages) as @label. */
static char *map_off(const char *label, unsigned long len, int prot,
		     int flags, int fd, off_t off, unsigned long align)
{
	unsigned long addr;
	void *p;

	addr = (next_slot + align - 1) & ~(align - 1);
	next_slot = addr + ((len + GB - 1) & ~(GB - 1)) + GB;
	p = mmap((void *)addr, len, prot, flags | MAP_FIXED_NOREPLACE, fd, off);
	if (p == MAP_FAILED) {
		note("%s: mmap: %s", label, strerror(errno));
		return NULL;
	}
	regions[nr_regions++] = (struct region){ label, addr, len };
	return p;
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

/*
 * The pagemap flags (bits 55-63) of every page of the catalogue, as runs
 * "first-last flags"; no PFN or swap offset (they differ between boots).
 */
static void dump_pagemap(void)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	uint64_t buf[512], flags, run = ~0ULL;
	unsigned long i, n, first = 0, page;
	int r;

	if (fd < 0) {
		note("pagemap: %s", strerror(errno));
		return;
	}
	for (r = 0; r < nr_regions; r++) {
		n = regions[r].len / PAGE;
		run = ~0ULL;
		for (page = 0; page < n; page += 512) {
			unsigned long cnt = n - page < 512 ? n - page : 512;
			off_t off = (regions[r].addr / PAGE + page) * 8;

			if (pread(fd, buf, cnt * 8, off) != (ssize_t)cnt * 8) {
				note("pagemap %s: %s", regions[r].label,
				     strerror(errno));
				break;
			}
			for (i = 0; i < cnt; i++) {
				flags = buf[i] >> 55;
				if (flags == run)
					continue;
				if (run != ~0ULL)
					printf("pagemap %s %lu-%lu %#llx\n",
					       regions[r].label, first,
					       page + i - 1,
					       (unsigned long long)run);
				run = flags;
				first = page + i;
			}
		}
		if (run != ~0ULL)
			printf("pagemap %s %lu-%lu %#llx\n", regions[r].label,
			       first, n - 1, (unsigned long long)run);
	}
	close(fd);
}

static void dump_rollup(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

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

static void dump(const char *when)
{
	printf("= %s\n", when);
	dump_smaps("/proc/self/smaps");
	dump_numa_maps();
	dump_pagemap();
	dump_rollup();
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

static void hugetlb(const char *label, unsigned long size, int shared)
{
	int log = __builtin_ctzl(size);
	/* Two pages, the second not faulted; one of 1G or more. */
	unsigned long len = size < GB ? 2 * size : size;
	char *p;

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
		close(fd);
	} else {
		p = map(label, len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			HUGE_SHIFT(log), -1, size > GB ? size : GB);
	}
	if (p)
		touch(p, size, PAGE, 7);
}

/* Whether hugetlb pages of @kb kB are reserved. */
static int have_huge(unsigned long kb)
{
	char path[128], buf[32] = "";
	int fd;

	snprintf(path, sizeof(path),
		 "/sys/kernel/mm/hugepages/hugepages-%lukB/nr_hugepages", kb);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = 0;
	close(fd);
	return atoi(buf) > 0;
}

static void uffd_wp(char *p, unsigned long len)
{
	struct uffdio_api api = { .api = UFFD_API, .features = 0 };
	struct uffdio_register reg = {
		.range = { (unsigned long)p, len },
		.mode = UFFDIO_REGISTER_MODE_WP,
	};
	struct uffdio_writeprotect wp = {
		.range = { (unsigned long)p, len / 2 },
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

/* The median time of BENCH_READS reads of each /proc file. */
static void bench_files(const char *layout)
{
	static const char *const files[] = {
		"/proc/self/smaps", "/proc/self/smaps_rollup",
		"/proc/self/numa_maps",
	};
	unsigned long long t[BENCH_READS], t0;
	unsigned int f, r;
	long n = 0;

	for (f = 0; f < ARRAY_SIZE(files); f++) {
		read_all(files[f]);	/* warm */
		for (r = 0; r < BENCH_READS; r++) {
			t0 = now_ns();
			n = read_all(files[f]);
			t[r] = now_ns() - t0;
		}
		qsort(t, BENCH_READS, sizeof(t[0]), cmp_ull);
		printf("PMBENCH: %s %s %llu %ld\n", layout,
		       strrchr(files[f], '/') + 1, t[BENCH_READS / 2], n);
	}
}

/*
 * Fragment the THPs of [p, p + len): a child shares them while the parent
 * writes one page of each 2M, which maps the rest of the THP by PTEs around
 * a CoW'd page; then a hole and a few swapped out pages every 8M.
 */
static void fragment(char *p, unsigned long len)
{
	unsigned long i;
	int fds[2];
	pid_t pid;
	char c;

	if (pipe(fds)) {
		note("fragmented-256M: pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		/* Until the parent is done writing. */
		while (read(fds[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(fds[0]);
	if (pid < 0)
		note("fragmented-256M: fork: %s", strerror(errno));
	for (i = 0; i < len; i += 2 * MB)
		p[i + (i / (2 * MB) % 512) * PAGE] = 2;
	close(fds[1]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
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
		bench_files("small-512M");
		munmap(p, 512 * MB);
	}
	p = anon("thp-512M", 512 * MB, MADV_HUGEPAGE);
	if (p) {
		touch(p, 512 * MB, PAGE, 1);
		bench_files("thp-512M");
		munmap(p, 512 * MB);
	}
	/* 64K mTHP only: no PMD THP for this MADV_HUGEPAGE mapping. */
	if (!put(THP "hugepages-64kB/enabled", "always") &&
	    !put(THP "hugepages-2048kB/enabled", "never")) {
		p = anon("mthp64K-256M", 256 * MB, MADV_HUGEPAGE);
		if (p) {
			touch(p, 256 * MB, PAGE, 1);
			bench_files("mthp64K-256M");
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
		bench_files("thp-pte-256M");
		munmap(p, 256 * MB);
	}
	p = anon("fragmented-256M", 256 * MB, MADV_HUGEPAGE);
	if (p) {
		touch(p, 256 * MB, PAGE, 1);
		fragment(p, 256 * MB);
		bench_files("fragmented-256M");
		munmap(p, 256 * MB);
	}
	if (have_huge(2048)) {
		p = map("hugetlb2M-256M", 256 * MB, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			HUGE_SHIFT(21), -1, GB);
		if (p) {
			touch(p, 256 * MB, 2 * MB, 1);
			bench_files("hugetlb2M-256M");
			munmap(p, 256 * MB);
		}
	}
	if (have_huge(1048576)) {
		p = map("hugetlb1G-1G", GB, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			HUGE_SHIFT(30), -1, GB);
		if (p) {
			touch(p, GB, 2 * MB, 1);
			bench_files("hugetlb1G-1G");
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
		bench_files("sparse-64G");
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
		bench_files("vmas-2000");
		munmap(p, 2000 * 8 * PAGE);
	}
}

int main(int argc, char **argv)
{
	char *small, *zero, *thp, *split, *mthp, *shm, *fpriv, *fshared;
	char *cow, *swp, *sd, *uffd, *locked, *ksm1, *ksm2, *node1, *none;
	int fd, v, sync_fd[2];
	unsigned long i;
	pid_t pid;
	char c;

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	/* On a line of its own: the console may hold the firmware's text. */
	printf("\nPMCHECK: BEGIN\n");
	if (argc > 1 && !strcmp(argv[1], "bench")) {
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

	swp = anon("anon-swapped", 256 * KB, MADV_NOHUGEPAGE);
	if (swp) {
		touch(swp, 256 * KB, PAGE, 9);
		pageout("anon-swapped", swp, 128 * KB);
	}

	uffd = anon("uffd-wp", 256 * KB, MADV_NOHUGEPAGE);
	if (uffd) {
		touch(uffd, 256 * KB, PAGE, 10);
		uffd_wp(uffd, 256 * KB);
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

	sd = anon("soft-dirty", 256 * KB, MADV_NOHUGEPAGE);
	cow = anon("cow", 256 * KB, MADV_NOHUGEPAGE);
	if (cow)
		touch(cow, 256 * KB, PAGE, 13);

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
		if (write(sync_fd[1], "", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	if (pid < 0 || read(sync_fd[0], &c, 1) != 1)
		note("fork: the child did not start");
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
		snprintf(what, sizeof(what), "after clear_refs %d", v);
		dump(what);
	}

	printf("PMCHECK: END\n");
	fflush(stdout);
	return 0;
}

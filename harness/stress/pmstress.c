// SPDX-License-Identifier: GPL-2.0
/*
 * pmstress: the reader of `make stress` (harness/stress.sh).  For the given
 * number of seconds it reads, at random, what the page-table walkers of the
 * kernel report about every task of the guest while stress-ng and trinity
 * change those tasks under it, and checks each value for what a mapping
 * could hold:
 *
 * - smaps and smaps_rollup: Rss is the sum of its four parts; Pss, its
 *   parts, Referenced, Anonymous, LazyFree, AnonHugePages and Locked are no
 *   larger than what contains them; nothing is larger than the VMA;
 * - numa_maps: the node counts add up to mapped= (when printed), anon=,
 *   dirty=, active=, swapcache= and writeback= are no larger;
 * - pagemap, at a random offset and length of a task's address space: no
 *   entry with a bit the ABI leaves zero, none both present and swapped, an
 *   entry neither present nor swapped carries at most soft-dirty and
 *   uffd-wp, a present pfn lies in memory;
 * - PAGEMAP_SCAN of a random range with random categories: the ranges it
 *   returns are sorted, disjoint, page aligned, inside the range scanned
 *   and below walk_end, have the categories asked for, and no more pages
 *   than max_pages;
 * - clear_refs 1 to 5 written to random tasks.
 *
 * A thread of its own keeps changing a region of this process (mmap over,
 * mprotect, madvise of every kind that moves pages, mremap, writes, forks
 * that write, children that fault in hugetlb pages of every size and of a
 * gigabyte of shared 2M hugetlb whose PMD tables they share, then unshare
 * or zap), on which the reader also runs mincore() (bytes 0 or 1),
 * mbind(MPOL_MF_MOVE) (0, or the errors of a range that changed under it)
 * and PAGEMAP_SCAN with PM_SCAN_WP_MATCHING on memory registered for async
 * uffd-wp; a quarter of its reads are of the last hugetlb child.  A hole
 * that nothing maps must read as one: empty pagemap entries, mincore()
 * ENOMEM, no PAGEMAP_SCAN range.
 *
 * Every failed check prints "PMSTRESS: FAIL ..."; the last line is
 * "PMSTRESS: done" with the counts.  Usage: pmstress SECONDS [SEED]
 *
 * "pmstress selftest" feeds the checks values that a mapping cannot hold,
 * and some that it can, and says whether each was caught or let through.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "../compare/guest.h"

#define PM_PFN_MASK		((1ULL << 55) - 1)
#define PM_SOFT_DIRTY		(1ULL << 55)
#define PM_EXCLUSIVE		(1ULL << 56)
#define PM_UFFD_WP		(1ULL << 57)
#define PM_ZERO_BITS		(7ULL << 58)	/* 58-60: always zero */
#define PM_FILE			(1ULL << 61)
#define PM_SWAP			(1ULL << 62)
#define PM_PRESENT		(1ULL << 63)

/* This process's own region, low so that no mmap(NULL) lands in its hole. */
#define OWN_BASE		(4 * GB)
#define OWN_LEN			(64 * MB)
#define HOLE			(OWN_BASE + OWN_LEN + 2 * MB)	/* 2M, never mapped */
#define WP_BASE			(HOLE + 4 * MB)
#define WP_LEN			(8 * MB)
#define HOLE_PAGES		(2 * MB / PAGE)
/* A gigabyte of shared 2M hugetlb: the PMD tables of forks are shared. */
#define SHARED_BASE		(8 * GB)

static unsigned long max_pfn, node_mask = 1;
static pid_t child;		/* __atomic: the churn thread sets it */
/* The hugetlb sizes of /sys/kernel/mm/hugepages, in bytes. */
static unsigned long huge_sizes[8];
static unsigned int nr_huge_sizes;
static int stop;		/* __atomic: main tells the churn to stop */
static unsigned int seed;
static unsigned long fails;
static int quiet;		/* the self-test: count failures only */
static unsigned long n_smaps, n_rollup, n_numa, n_pagemap, n_scan, n_wp;
static unsigned long n_clear, n_mincore, n_mbind, n_churn;

/* Write @v at @p: a store the compiler keeps, that faults the page in. */
static void poke(char *p, char v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static unsigned int rnd(unsigned int *s)
{
	*s = *s * 1103515245 + 12345;
	return (*s >> 8) & 0xffffff;
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	fails++;
	if (quiet)
		return;
	printf("PMSTRESS: FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/*
 * Read all of @path into @buf (NUL-terminated): the length, @size - 1 if
 * it filled the buffer, and @size (after "") if it cannot be read.
 */
static long slurp(const char *path, char *buf, size_t size)
{
	long total = 0, n;
	int fd = open(path, O_RDONLY);

	buf[0] = 0;
	if (fd < 0)
		return size;
	while (total < (long)size - 1 &&
	       (n = read(fd, buf + total, size - 1 - total)) > 0)
		total += n;
	close(fd);
	buf[total] = 0;
	return total;
}

/* The highest pfn of "System RAM" in /proc/iomem. */
static unsigned long ram_end_pfn(void)
{
	static char buf[65536];
	unsigned long start, end, max = 0;
	char *line;

	if (slurp("/proc/iomem", buf, sizeof(buf)) >= (long)sizeof(buf))
		return ~0UL;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (strstr(line, "System RAM") &&
		    sscanf(line, " %lx-%lx", &start, &end) == 2 && end > max)
			max = end;
	return max ? max / PAGE : ~0UL;
}

/* Up to @max pids of /proc into @pids; returns how many. */
static int list_pids(int *pids, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while (n < max && (e = readdir(d)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
			pids[n++] = atoi(e->d_name);
	closedir(d);
	return n;
}

/* The fields of one smaps block (or of smaps_rollup), in kB. */
enum {
	F_SIZE, F_RSS, F_PSS, F_PSS_DIRTY, F_PSS_ANON, F_PSS_FILE, F_PSS_SHMEM,
	F_SH_CLEAN, F_SH_DIRTY, F_PR_CLEAN, F_PR_DIRTY, F_REF, F_ANON,
	F_LAZY, F_ANON_THP, F_SHMEM_PMD, F_FILE_PMD, F_SH_HUGETLB,
	F_PR_HUGETLB, F_SWAP, F_SWAP_PSS, F_LOCKED, F_NR
};

static const char *const field_names[F_NR] = {
	"Size", "Rss", "Pss", "Pss_Dirty", "Pss_Anon", "Pss_File", "Pss_Shmem",
	"Shared_Clean", "Shared_Dirty", "Private_Clean", "Private_Dirty",
	"Referenced", "Anonymous", "LazyFree", "AnonHugePages",
	"ShmemPmdMapped", "FilePmdMapped", "Shared_Hugetlb", "Private_Hugetlb",
	"Swap", "SwapPss", "Locked",
};

/*
 * Check the fields of one block (0 where a field is not printed: Size in
 * smaps_rollup, the Pss_* parts in smaps).
 */
static void check_smaps_block(const char *what, const char *head,
			      const long *f, int rollup)
{
	long parts = f[F_SH_CLEAN] + f[F_SH_DIRTY] + f[F_PR_CLEAN] +
		     f[F_PR_DIRTY];

	if (f[F_RSS] != parts)
		fail("%s %s: Rss %ld != the sum of its parts %ld", what, head,
		     f[F_RSS], parts);
#define LE(a, b) do {							\
	if (f[a] > f[b])						\
		fail("%s %s: %s %ld > %s %ld", what, head,		\
		     field_names[a], f[a], field_names[b], f[b]);	\
} while (0)
	LE(F_PSS, F_RSS);
	LE(F_PSS_DIRTY, F_PSS);
	LE(F_REF, F_RSS);
	LE(F_ANON, F_RSS);
	LE(F_LAZY, F_ANON);
	LE(F_ANON_THP, F_ANON);
	LE(F_SHMEM_PMD, F_RSS);
	LE(F_FILE_PMD, F_RSS);
	LE(F_SWAP_PSS, F_SWAP);
	LE(F_LOCKED, F_PSS);
#undef LE
	if (f[F_PSS_ANON] + f[F_PSS_FILE] + f[F_PSS_SHMEM] > f[F_PSS])
		fail("%s %s: Pss_Anon+Pss_File+Pss_Shmem %ld > Pss %ld", what,
		     head, f[F_PSS_ANON] + f[F_PSS_FILE] + f[F_PSS_SHMEM],
		     f[F_PSS]);
	if (!rollup && f[F_RSS] > f[F_SIZE])
		fail("%s %s: Rss %ld > Size %ld", what, head, f[F_RSS],
		     f[F_SIZE]);
	if (!rollup && f[F_SH_HUGETLB] + f[F_PR_HUGETLB] > f[F_SIZE])
		fail("%s %s: hugetlb %ld > Size %ld", what, head,
		     f[F_SH_HUGETLB] + f[F_PR_HUGETLB], f[F_SIZE]);
}

/* The text @buf of smaps (@rollup 0) or smaps_rollup of @pid. */
static void check_smaps_text(int pid, char *buf, int rollup)
{
	const char *what = rollup ? "smaps_rollup" : "smaps";
	char head[128] = "", name[64], *line, *save;
	unsigned long start, end;
	long f[F_NR], val;
	int i, in_block = 0;

	/* One more round after the last line, for the last block. */
	for (line = strtok_r(buf, "\n", &save); line || in_block;
	     line = line ? strtok_r(NULL, "\n", &save) : NULL) {
		/* A block begins with its VMA's line, "start-end perms ...". */
		if (!line || sscanf(line, "%lx-%lx %63s", &start, &end,
				    name) == 3) {
			if (in_block)
				check_smaps_block(what, head, f, rollup);
			if (!line)
				break;
			snprintf(head, sizeof(head), "%d %.100s", pid, line);
			for (i = 0; i < F_NR; i++)
				f[i] = 0;
			in_block = 1;
			continue;
		}
		if (sscanf(line, "%63[^:]: %ld kB", name, &val) != 2)
			continue;
		for (i = 0; i < F_NR; i++)
			if (!strcmp(name, field_names[i]))
				f[i] = val;
	}
}

/* smaps (@rollup 0) or smaps_rollup of @pid. */
static void check_smaps(int pid, int rollup)
{
	static char buf[4 << 20];
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid,
		 rollup ? "smaps_rollup" : "smaps");
	/* A read that filled the buffer ends in a cut block: not checked. */
	if (slurp(path, buf, sizeof(buf)) >= (long)sizeof(buf) - 1)
		return;
	if (rollup)
		n_rollup++;
	else
		n_smaps++;
	check_smaps_text(pid, buf, rollup);
}

/* The value of " @key=N" in @line, or -1. */
static long numa_field(const char *line, const char *key)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}

/* One line of numa_maps of @pid. */
static void check_numa_line(int pid, const char *line)
{
	static const char *const parts[] = {
		"anon", "dirty", "active", "swapcache", "writeback",
	};
	long nodes = 0, mapped, val;
	const char *p;
	unsigned int i;

	for (p = strstr(line, " N"); p; p = strstr(p + 2, " N"))
		if (p[2] >= '0' && p[2] <= '9' && strchr(p, '='))
			nodes += strtol(strchr(p, '=') + 1, NULL, 10);
	mapped = numa_field(line, "mapped");
	if (mapped >= 0 && mapped != nodes)
		fail("numa_maps %d %.80s: mapped=%ld, nodes %ld", pid, line,
		     mapped, nodes);
	for (i = 0; i < ARRAY_SIZE(parts); i++) {
		val = numa_field(line, parts[i]);
		if (val > nodes)
			fail("numa_maps %d %.80s: %s=%ld > nodes %ld", pid,
			     line, parts[i], val, nodes);
	}
	val = numa_field(line, "mapmax");
	if (val >= 0 && val < 2)
		fail("numa_maps %d %.80s: mapmax=%ld", pid, line, val);
}

static void check_numa_maps(int pid)
{
	static char buf[1 << 20];
	char path[64], *line, *save;

	snprintf(path, sizeof(path), "/proc/%d/numa_maps", pid);
	if (slurp(path, buf, sizeof(buf)) >= (long)sizeof(buf) - 1)
		return;
	n_numa++;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		check_numa_line(pid, line);
}

/* Check @n pagemap entries from @addr; @hole: nothing may be mapped. */
static void check_pagemap_entries(int pid, unsigned long addr,
				  const uint64_t *e, unsigned long n, int hole)
{
	unsigned long i;

	for (i = 0; i < n; i++, addr += PAGE) {
		if (hole && e[i]) {
			fail("pagemap %d %#lx: %#llx in a hole", pid, addr,
			     (unsigned long long)e[i]);
			continue;
		}
		if (e[i] & PM_ZERO_BITS)
			fail("pagemap %d %#lx: %#llx has a bit of 58-60", pid,
			     addr, (unsigned long long)e[i]);
		if ((e[i] & PM_PRESENT) && (e[i] & PM_SWAP))
			fail("pagemap %d %#lx: %#llx present and swapped", pid,
			     addr, (unsigned long long)e[i]);
		if (!(e[i] & (PM_PRESENT | PM_SWAP)) &&
		    (e[i] & ~(PM_SOFT_DIRTY | PM_UFFD_WP)))
			fail("pagemap %d %#lx: %#llx: not present, not swapped",
			     pid, addr, (unsigned long long)e[i]);
		if ((e[i] & PM_PRESENT) && (e[i] & PM_PFN_MASK) > max_pfn)
			fail("pagemap %d %#lx: %#llx: pfn beyond memory", pid,
			     addr, (unsigned long long)e[i]);
	}
}

/* The start and end of a random VMA of @pid (0 if none). */
static unsigned long random_vma(int pid, unsigned int *s, unsigned long *end)
{
	static char buf[1 << 20];
	unsigned long start = 0, a, b;
	char path[64], *line, *save;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (slurp(path, buf, sizeof(buf)) >= (long)sizeof(buf))
		return 0;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%lx-%lx", &a, &b) == 2 &&
		    !strstr(line, "[vsyscall]") && rnd(s) % ++n == 0) {
			start = a;
			*end = b;
		}
	return start;
}

/* pagemap of @pid at a random offset and length around a random VMA. */
static void check_pagemap(int pid, unsigned int *s)
{
	static uint64_t e[8192];
	unsigned long start, end = 0, n;
	char path[64];
	ssize_t got;
	int fd;

	start = random_vma(pid, s, &end);
	if (!start)
		return;
	/* From a little before the VMA, into the gap before it. */
	start -= (rnd(s) % 16) * PAGE;
	n = 1 + rnd(s) % ARRAY_SIZE(e);
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	got = pread(fd, e, n * 8, start / PAGE * 8);
	close(fd);
	if (got < 0)
		return;
	n_pagemap++;
	if (got % 8)
		fail("pagemap %d: read of %lu entries returned %zd bytes", pid,
		     n, got);
	check_pagemap_entries(pid, start, e, got / 8, 0);
}

/* The @n ranges @vec that PAGEMAP_SCAN returned for @arg. */
static void check_scan_vec(const char *what, const struct scan_arg *arg,
			   const struct scan_region *vec, long n)
{
	unsigned long prev = arg->start, pages = 0;
	uint64_t cats, seen;
	long i;

	if ((unsigned long)n > arg->vec_len)
		fail("%s: %ld ranges for a vector of %llu", what, n,
		     (unsigned long long)arg->vec_len);
	if (arg->walk_end < arg->start || arg->walk_end > arg->end ||
	    arg->walk_end % PAGE)
		fail("%s [%#llx, %#llx): walk_end %#llx", what,
		     (unsigned long long)arg->start,
		     (unsigned long long)arg->end,
		     (unsigned long long)arg->walk_end);
	for (i = 0; i < n && (unsigned long)i < arg->vec_len; i++) {
		cats = vec[i].categories;
		if (vec[i].start < prev || vec[i].end <= vec[i].start ||
		    vec[i].end > arg->walk_end || vec[i].start % PAGE ||
		    vec[i].end % PAGE)
			fail("%s [%#llx, %#llx) walk_end %#llx: range %ld is [%#llx, %#llx), after %#lx",
			     what, (unsigned long long)arg->start,
			     (unsigned long long)arg->end,
			     (unsigned long long)arg->walk_end, i,
			     (unsigned long long)vec[i].start,
			     (unsigned long long)vec[i].end, prev);
		if (cats & ~arg->return_mask)
			fail("%s: categories %#llx outside return_mask %#llx",
			     what, (unsigned long long)cats,
			     (unsigned long long)arg->return_mask);
		/* Each category of category_mask is as asked, where seen. */
		seen = arg->return_mask & arg->category_mask;
		if (((cats ^ arg->category_inverted) & seen) != seen)
			fail("%s: categories %#llx against mask %#llx inverted %#llx",
			     what, (unsigned long long)cats,
			     (unsigned long long)arg->category_mask,
			     (unsigned long long)arg->category_inverted);
		/* One of category_anyof_mask, if all of them are seen. */
		seen = arg->category_anyof_mask;
		if (seen && !(seen & ~arg->return_mask) &&
		    !((cats ^ arg->category_inverted) & seen))
			fail("%s: categories %#llx, none of anyof %#llx inverted %#llx",
			     what, (unsigned long long)cats,
			     (unsigned long long)seen,
			     (unsigned long long)arg->category_inverted);
		/* Consecutive ranges of the same categories are merged. */
		if (i && vec[i].start == vec[i - 1].end &&
		    cats == vec[i - 1].categories)
			fail("%s: ranges %ld and %ld not merged", what, i - 1,
			     i);
		pages += (vec[i].end - vec[i].start) / PAGE;
		prev = vec[i].end;
	}
	if (arg->max_pages && pages > arg->max_pages)
		fail("%s: %lu pages, max_pages %llu", what, pages,
		     (unsigned long long)arg->max_pages);
}

/*
 * PAGEMAP_SCAN through @fd with @arg's range, flags and masks; checks what
 * it returns, and returns it (-1 with errno on an error).
 */
static long scan(int fd, const char *what, struct scan_arg *arg)
{
	static struct scan_region vec[64];
	long n;

	arg->size = sizeof(*arg);
	arg->vec = (uintptr_t)vec;
	if (!arg->vec_len || arg->vec_len > ARRAY_SIZE(vec))
		arg->vec_len = ARRAY_SIZE(vec);
	n = ioctl(fd, SCAN_IOCTL, arg);
	if (n >= 0)
		check_scan_vec(what, arg, vec, n);
	return n;
}

/* PAGEMAP_SCAN of a random VMA of @pid with random categories. */
static void check_scan(int pid, unsigned int *s)
{
	struct scan_arg arg = { 0 };
	unsigned long end = 0;
	char path[64];
	int fd;

	arg.start = random_vma(pid, s, &end);
	if (!arg.start)
		return;
	arg.end = end + (rnd(s) % 4) * PAGE;
	arg.return_mask = rnd(s) & IS_ALL;
	if (!arg.return_mask)
		arg.return_mask = IS_PRESENT;
	switch (rnd(s) % 3) {
	case 0:
		arg.category_anyof_mask = arg.return_mask;
		break;
	case 1:
		arg.category_mask = 1 << (rnd(s) % 8);
		arg.category_inverted = rnd(s) % 2 ? arg.category_mask : 0;
		arg.return_mask |= arg.category_mask;
		break;
	default:
		arg.category_anyof_mask = IS_PRESENT | IS_SWAPPED;
		break;
	}
	if (rnd(s) % 2)
		arg.max_pages = 1 + rnd(s) % 1024;
	arg.vec_len = 1 + rnd(s) % 64;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	/* The task may be gone, its range past TASK_SIZE, or short of memory. */
	if (scan(fd, "PAGEMAP_SCAN", &arg) >= 0)
		n_scan++;
	else if (errno != ESRCH && errno != EINVAL && errno != EFAULT &&
		 errno != ENOMEM && errno != EINTR)
		fail("PAGEMAP_SCAN %d: %s", pid, strerror(errno));
	close(fd);
}

static void write_clear_refs(int pid, unsigned int *s)
{
	char path[64], val[2] = { '1' + rnd(s) % 5, 0 };

	snprintf(path, sizeof(path), "/proc/%d/clear_refs", pid);
	if (!put(path, val))
		n_clear++;
}

/*
 * A child that faults in a few pages of the shared hugetlb gigabyte (its
 * PMD table is shared with the other processes that map it), and of a
 * private hugetlb mapping of a random size; that lives a moment for the
 * reader to walk, then unshares its table (mprotect of part of it) or
 * zaps a page, and exits.  Out of huge pages, it dies of SIGBUS.
 */
static void hugetlb_child(unsigned int *s)
{
	unsigned long size, i;
	char *p = NULL;
	pid_t pid;

	pid = fork();
	if (pid) {
		if (pid > 0) {
			__atomic_store_n(&child, pid, __ATOMIC_RELAXED);
			waitpid(pid, NULL, 0);
		}
		return;
	}
	/* A child may fault (no huge page left): not the reader's failure. */
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	for (i = 0; i < 4; i++)
		poke((char *)SHARED_BASE + (rnd(s) % 512) * 2 * MB, 1);
	if (nr_huge_sizes) {
		size = huge_sizes[rnd(s) % nr_huge_sizes];
		/* MAP_HUGE_SHIFT is 26: log2 of the size there. */
		p = mmap(NULL, 2 * size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			 MAP_NORESERVE | HUGE_SHIFT(__builtin_ctzl(size)),
			 -1, 0);
		if (p != MAP_FAILED)
			p[rnd(s) % 2 * size] = 1;
	}
	usleep(100000 + rnd(s) % 200000);
	if (rnd(s) % 2)
		mprotect((char *)SHARED_BASE + (rnd(s) % 512) * 2 * MB, 2 * MB,
			 PROT_READ);
	else
		madvise((char *)SHARED_BASE + (rnd(s) % 512) * 2 * MB, 2 * MB,
			MADV_DONTNEED);
	usleep(rnd(s) % 100000);
	_exit(0);
}

/* The hugetlb sizes the kernel offers, into huge_sizes[]. */
static void list_huge_sizes(void)
{
	DIR *d = opendir("/sys/kernel/mm/hugepages");
	struct dirent *e;
	unsigned long kb;

	while (d && (e = readdir(d)) &&
	       nr_huge_sizes < ARRAY_SIZE(huge_sizes))
		if (sscanf(e->d_name, "hugepages-%lukB", &kb) == 1)
			huge_sizes[nr_huge_sizes++] = kb * KB;
	if (d)
		closedir(d);
}

/*
 * The churn of this process's own region: every step maps, moves, protects
 * or advises a random piece of it, or writes to it, or forks a child that
 * writes to it.  A piece is never left unmapped: what is "unmapped" is
 * mapped over with fresh memory, so that mmap(NULL) never takes a hole.
 */
static void *churn(void *unused)
{
	static const int advice[] = {
		MADV_DONTNEED, MADV_FREE, MADV_PAGEOUT, 20 /* MADV_COLD */,
		MADV_HUGEPAGE, MADV_NOHUGEPAGE, 25 /* MADV_COLLAPSE */,
		MADV_WILLNEED, 22 /* MADV_POPULATE_READ */,
		23 /* MADV_POPULATE_WRITE */,
	};
	unsigned int s = seed * 7 + 1;
	unsigned long off, len, to, i;
	char *base = (char *)OWN_BASE;
	pid_t pid;

	(void)unused;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		off = (rnd(&s) % (OWN_LEN / PAGE)) * PAGE;
		len = PAGE << (rnd(&s) % 11);
		if (off + len > OWN_LEN)
			len = OWN_LEN - off;
		switch (rnd(&s) % 8) {
		case 0:
			mmap(base + off, len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			break;
		case 1:
			mprotect(base + off, len, rnd(&s) % 2 ? PROT_READ :
				 PROT_READ | PROT_WRITE);
			break;
		case 2:
		case 3:
			madvise(base + off, len,
				advice[rnd(&s) % ARRAY_SIZE(advice)]);
			break;
		case 4:
			/* Move a piece elsewhere in the region, refill it. */
			to = (rnd(&s) % (OWN_LEN / PAGE)) * PAGE;
			if (to + len > OWN_LEN || (to < off + len && off < to + len))
				break;
			if (mremap(base + off, len, len,
				   MREMAP_MAYMOVE | MREMAP_FIXED,
				   base + to) != MAP_FAILED)
				mmap(base + off, len, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
				     -1, 0);
			break;
		case 5:
			if (rnd(&s) % 2 == 0) {
				hugetlb_child(&s);
				break;
			}
			pid = fork();
			if (pid == 0) {
				signal(SIGSEGV, SIG_DFL);
				for (i = 0; i < len; i += PAGE)
					poke(base + off + i, 2);
				_exit(0);
			}
			if (pid > 0)
				waitpid(pid, NULL, 0);
			break;
		default:
			/*
			 * Write, where it could be made writable (a failed
			 * mmap() over a piece may have left a hole).
			 */
			if (mprotect(base + off, len, PROT_READ | PROT_WRITE))
				break;
			for (i = 0; i < len; i += PAGE)
				base[off + i] = 1;
			break;
		}
		/* The uffd-wp region: written, and zapped now and then. */
		off = (rnd(&s) % (WP_LEN / PAGE)) * PAGE;
		if (rnd(&s) % 16)
			poke((char *)WP_BASE + off, 1);
		else
			madvise((char *)WP_BASE + off, PAGE << (rnd(&s) % 10),
				MADV_DONTNEED);
		n_churn++;
	}
	return NULL;
}

/* The checks on this process's own memory, which the churn thread moves. */
static void check_own(int uffd, unsigned int *s)
{
	static unsigned char vec[OWN_LEN / PAGE];
	static uint64_t e[HOLE_PAGES];
	struct scan_arg arg = { 0 };
	unsigned long off, len, i, nodes;
	int fd, mode;

	off = (rnd(s) % (OWN_LEN / PAGE)) * PAGE;
	len = (1 + rnd(s) % ((OWN_LEN - off) / PAGE)) * PAGE;
	switch (rnd(s) % 4) {
	case 0:
		if (mincore((char *)OWN_BASE + off, len, vec)) {
			/* mremap() leaves a hole for a moment. */
			if (errno != ENOMEM && errno != EAGAIN)
				fail("mincore: %s", strerror(errno));
			break;
		}
		n_mincore++;
		for (i = 0; i < len / PAGE; i++)
			if (vec[i] > 1) {
				fail("mincore %#lx: %#x", OWN_BASE + off + i * PAGE,
				     vec[i]);
				break;
			}
		break;
	case 1:
		nodes = 1 + rnd(s) % node_mask;
		mode = rnd(s) % 4 ? 2 : 0;
		/* MPOL_BIND, MPOL_MF_MOVE; MPOL_DEFAULT again now and then. */
		if (syscall(SYS_mbind, OWN_BASE + off, len, mode,
			    mode ? &nodes : NULL, 8 * sizeof(nodes), 2)) {
			if (errno != EFAULT && errno != ENOMEM && errno != EIO)
				fail("mbind: %s", strerror(errno));
			break;
		}
		n_mbind++;
		break;
	case 2:
		if (uffd < 0)
			break;
		off = (rnd(s) % (WP_LEN / PAGE)) * PAGE;
		arg.start = WP_BASE + off;
		arg.end = WP_BASE + WP_LEN;
		arg.flags = SCAN_WP_MATCHING | SCAN_CHECK_WPASYNC;
		arg.category_mask = IS_WRITTEN;
		arg.return_mask = IS_WRITTEN;
		if (rnd(s) % 2)
			arg.max_pages = 1 + rnd(s) % 512;
		arg.vec_len = 1 + rnd(s) % 64;
		fd = open("/proc/self/pagemap", O_RDONLY);
		if (scan(fd, "PAGEMAP_SCAN wp", &arg) >= 0)
			n_wp++;
		else if (errno != ENOMEM && errno != EINTR)
			fail("PAGEMAP_SCAN wp: %s", strerror(errno));
		close(fd);
		break;
	default:
		/* The hole. */
		if (!mincore((char *)HOLE, 2 * MB, vec) || errno != ENOMEM)
			fail("mincore of a hole: not ENOMEM");
		fd = open("/proc/self/pagemap", O_RDONLY);
		if (pread(fd, e, sizeof(e), HOLE / PAGE * 8) == sizeof(e))
			check_pagemap_entries(getpid(), HOLE, e, HOLE_PAGES, 1);
		else
			fail("pagemap of a hole: %s", strerror(errno));
		arg.start = HOLE;
		arg.end = HOLE + 2 * MB;
		arg.return_mask = IS_ALL;
		arg.category_inverted = IS_PRESENT;
		arg.category_mask = IS_PRESENT;
		if (scan(fd, "PAGEMAP_SCAN of a hole", &arg) != 0)
			fail("PAGEMAP_SCAN of a hole: a range, or %s",
			     strerror(errno));
		close(fd);
		break;
	}
}

/* A fault of this process's own: say where, as a failure, and stop. */
static void crashed(int sig, siginfo_t *si, void *uc)
{
	char msg[96];
	int n;

	(void)uc;
	n = snprintf(msg, sizeof(msg),
		     "PMSTRESS: FAIL signal %d at %p in thread %d\n", sig,
		     si->si_addr, (int)syscall(SYS_gettid));
	if (write(1, msg, n) != n)
		_exit(3);
	_exit(2);
}

/* A userfaultfd in async write-protect mode over the WP region, or -1. */
static int uffd_wp_async(void)
{
	struct uffdio_api api = {
		.api = UFFD_API,
		/* WP_ASYNC, WP_UNPOPULATED, WP_HUGETLBFS_SHMEM */
		.features = (1 << 15) | (1 << 13) | (1 << 12),
	};
	struct uffdio_register reg = {
		.range = { WP_BASE, WP_LEN },
		.mode = UFFDIO_REGISTER_MODE_WP,
	};
	int fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (fd < 0 || ioctl(fd, UFFDIO_API, &api) ||
	    ioctl(fd, UFFDIO_REGISTER, &reg)) {
		printf("pmstress: no async uffd-wp: %s\n", strerror(errno));
		return -1;
	}
	return fd;
}

/*
 * Whether @fails moved as it should since @before: @bad input must fail,
 * good input must not.  Counts in @wrong the cases that did otherwise.
 */
static void expect(const char *name, unsigned long before, int bad,
		   int *wrong)
{
	if ((fails != before) != bad) {
		printf("pmstress selftest: %s %s\n", name,
		       bad ? "not caught" : "flagged");
		(*wrong)++;
	}
}

/* An smaps block with @field set to @val in a consistent one. */
static void smaps_case(const char *field, long val, int bad, int *wrong)
{
	static const char *const good[] = {
		"Size", "16", "Rss", "8", "Pss", "6", "Pss_Dirty", "4",
		"Shared_Clean", "0", "Shared_Dirty", "4", "Private_Clean", "0",
		"Private_Dirty", "4", "Referenced", "8", "Anonymous", "8",
		"LazyFree", "4", "AnonHugePages", "0", "Swap", "4",
		"SwapPss", "2", "Locked", "0",
	};
	char buf[1024], *p = buf;
	unsigned long before = fails;
	unsigned int i;

	p += sprintf(p, "10000-14000 rw-p 00000000 00:00 0\n");
	for (i = 0; i < ARRAY_SIZE(good); i += 2)
		p += sprintf(p, "%s: %ld kB\n", good[i],
			     field && !strcmp(field, good[i]) ? val :
			     atol(good[i + 1]));
	check_smaps_text(1, buf, 0);
	expect(field ?: "smaps", before, bad, wrong);
}

/*
 * The checks, fed values a mapping cannot hold and values it can: each bad
 * one must fail, no good one may.  Run by make stress on the host.
 */
static int run_selftest(void)
{
	static const char *const numa_bad[] = {
		"10000 default mapped=4 N0=1 N1=2 kernelpagesize_kB=4",
		"10000 default anon=5 N0=2 kernelpagesize_kB=4",
		"10000 default anon=1 dirty=3 N0=2 kernelpagesize_kB=4",
		"10000 default mapped=2 mapmax=1 N0=2 kernelpagesize_kB=4",
	};
	static const uint64_t pm_bad[] = {
		PM_PRESENT | PM_SWAP | 5, 1ULL << 58, 1ULL << 60, 5,
		PM_EXCLUSIVE, PM_FILE, PM_PRESENT | 1001,
	};
	static const uint64_t pm_good[] = {
		PM_PRESENT | PM_EXCLUSIVE | PM_SOFT_DIRTY | 5,
		PM_SWAP | (7 << 5), PM_SOFT_DIRTY, PM_UFFD_WP, 0,
		PM_PRESENT | PM_FILE | 1000,
	};
	struct scan_arg arg = {
		.start = 0x10000, .end = 0x20000, .walk_end = 0x20000,
		.vec_len = 4, .return_mask = IS_PRESENT | IS_WRITTEN,
		.category_anyof_mask = IS_PRESENT,
	};
	const struct scan_region good[] = {
		{ 0x10000, 0x11000, IS_PRESENT },
		{ 0x11000, 0x13000, IS_PRESENT | IS_WRITTEN },
		{ 0x15000, 0x16000, IS_PRESENT },
	};
	struct scan_region v[3];
	unsigned long before;
	int wrong = 0;
	unsigned int i;

	quiet = 1;
	max_pfn = 1000;
	smaps_case(NULL, 0, 0, &wrong);
	smaps_case("Rss", 12, 1, &wrong);		/* not its parts */
	smaps_case("Pss", 10, 1, &wrong);		/* above Rss */
	smaps_case("Pss_Dirty", 7, 1, &wrong);		/* above Pss */
	smaps_case("Referenced", 12, 1, &wrong);
	smaps_case("Anonymous", 12, 1, &wrong);
	smaps_case("LazyFree", 10, 1, &wrong);		/* above Anonymous */
	smaps_case("AnonHugePages", 10, 1, &wrong);
	smaps_case("SwapPss", 6, 1, &wrong);		/* above Swap */
	smaps_case("Locked", 7, 1, &wrong);		/* above Pss */
	smaps_case("Size", 4, 1, &wrong);		/* below Rss */
	for (i = 0; i < ARRAY_SIZE(numa_bad); i++) {
		before = fails;
		check_numa_line(1, numa_bad[i]);
		expect(numa_bad[i], before, 1, &wrong);
	}
	before = fails;
	check_numa_line(1, "10000 default anon=2 dirty=2 mapped=3 mapmax=2 N0=1 N1=2 kernelpagesize_kB=4");
	expect("numa_maps", before, 0, &wrong);
	for (i = 0; i < ARRAY_SIZE(pm_bad); i++) {
		before = fails;
		check_pagemap_entries(1, 0x10000, &pm_bad[i], 1, 0);
		expect("pagemap bad entry", before, 1, &wrong);
	}
	before = fails;
	check_pagemap_entries(1, 0x10000, pm_good, ARRAY_SIZE(pm_good), 0);
	expect("pagemap", before, 0, &wrong);
	before = fails;
	check_pagemap_entries(1, 0x10000, &pm_good[2], 1, 1);
	expect("pagemap hole", before, 1, &wrong);

	before = fails;
	check_scan_vec("scan", &arg, good, ARRAY_SIZE(good));
	expect("PAGEMAP_SCAN", before, 0, &wrong);
	/* Each range made wrong in turn. */
	for (i = 0; i < 7; i++) {
		memcpy(v, good, sizeof(v));
		switch (i) {
		case 0:			/* overlaps */
			v[1].start = 0x10800;
			break;
		case 1:			/* past walk_end */
			v[2].end = 0x21000;
			break;
		case 2:			/* a category not returned */
			v[2].categories |= IS_FILE;
			break;
		case 3:			/* none of category_anyof_mask */
			v[2].categories = IS_WRITTEN;
			break;
		case 4:			/* not merged with the one before */
			v[1].categories = IS_PRESENT;
			break;
		case 5:			/* not aligned */
			v[0].start = 0x10800;
			break;
		default:		/* empty */
			v[2].start = v[2].end;
			break;
		}
		before = fails;
		check_scan_vec("scan", &arg, v, ARRAY_SIZE(v));
		expect("PAGEMAP_SCAN bad range", before, 1, &wrong);
	}
	arg.max_pages = 3;
	before = fails;
	check_scan_vec("scan", &arg, good, ARRAY_SIZE(good));
	expect("PAGEMAP_SCAN max_pages", before, 1, &wrong);
	arg.max_pages = 0;
	arg.walk_end = 0x21000;
	before = fails;
	check_scan_vec("scan", &arg, good, ARRAY_SIZE(good));
	expect("PAGEMAP_SCAN walk_end", before, 1, &wrong);
	printf("pmstress selftest: %s\n", wrong ? "FAILED" : "ok");
	return wrong != 0;
}

int main(int argc, char **argv)
{
	static int pids[4096];
	struct sigaction sa = { 0 };
	char buf[64];
	unsigned long secs = argc > 1 ? strtoul(argv[1], NULL, 0) : 60;
	struct timespec now, t0;
	pthread_t thread;
	int uffd, npids = 0, pid;
	unsigned int s;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "selftest"))
		return run_selftest();
	seed = argc > 2 ? strtoul(argv[2], NULL, 0) : 1;
	s = seed;
	sa.sa_sigaction = crashed;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	max_pfn = ram_end_pfn();
	/* The nodes with memory, "0" or "0-1" (mbind() wants no other). */
	if (get_num("/sys/devices/system/node/has_memory") == 0 &&
	    slurp("/sys/devices/system/node/has_memory", buf, sizeof(buf)) <
	    (long)sizeof(buf) &&
	    !strncmp(buf, "0-1", 3))
		node_mask = 3;
	if (mmap((void *)OWN_BASE, OWN_LEN, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) !=
	    (void *)OWN_BASE ||
	    mmap((void *)WP_BASE, WP_LEN, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) !=
	    (void *)WP_BASE) {
		printf("pmstress: mmap: %s\n", strerror(errno));
		return 1;
	}
	uffd = uffd_wp_async();
	list_huge_sizes();
	/* Aligned to the gigabyte, as PMD table sharing wants. */
	if (mmap((void *)SHARED_BASE, GB, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB | MAP_NORESERVE |
		 MAP_FIXED_NOREPLACE, -1, 0) == MAP_FAILED)
		printf("pmstress: no shared hugetlb: %s\n", strerror(errno));
	if (pthread_create(&thread, NULL, churn, NULL)) {
		printf("pmstress: pthread_create failed\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (rnd(&s) % 64 == 0 || !npids)
			npids = list_pids(pids, ARRAY_SIZE(pids));
		pid = npids ? pids[rnd(&s) % npids] : getpid();
		/* A quarter of the reads are of the last hugetlb child. */
		if (__atomic_load_n(&child, __ATOMIC_RELAXED) && rnd(&s) % 4 == 0)
			pid = __atomic_load_n(&child, __ATOMIC_RELAXED);
		switch (rnd(&s) % 16) {
		case 0:
		case 1:
			check_smaps(pid, 0);
			break;
		case 2:
		case 3:
			check_smaps(pid, 1);
			break;
		case 4:
		case 5:
			check_numa_maps(pid);
			break;
		case 6:
		case 7:
		case 8:
			check_pagemap(pid, &s);
			break;
		case 9:
		case 10:
		case 11:
			check_scan(pid, &s);
			break;
		case 12:
			write_clear_refs(pid, &s);
			break;
		default:
			check_own(uffd, &s);
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((unsigned long)(now.tv_sec - t0.tv_sec) < secs);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(thread, NULL);
	printf("PMSTRESS: done: %lu smaps, %lu smaps_rollup, %lu numa_maps, %lu pagemap, %lu PAGEMAP_SCAN, %lu PAGEMAP_SCAN wp, %lu clear_refs, %lu mincore, %lu mbind, %lu churn steps, %lu failed\n",
	       n_smaps, n_rollup, n_numa, n_pagemap, n_scan, n_wp, n_clear,
	       n_mincore, n_mbind, n_churn, fails);
	return fails != 0;
}

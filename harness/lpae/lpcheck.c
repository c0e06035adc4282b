// SPDX-License-Identifier: GPL-2.0
/*
 * lpcheck: the /init of `make lpae` (harness/lpae.sh), a 32-bit ARM guest
 * with LPAE, where transparent huge pages are PMD sections of a
 * three-level page table.  It prints what the page-table readers of user
 * space say about:
 *
 *   1. a THP mapped once (smaps' Pss of a PMD-sized folio is computed in an
 *      unsigned long: 2M << PSS_SHIFT wraps to 0 on 32-bit in 6.12);
 *   2. the same THP made PROT_NONE: LPAE clears the valid bit of such a
 *      section (set_pmd_at()), so pmd_present() is false for a PMD that
 *      maps a THP; 6.12's smaps, pagemap and PAGEMAP_SCAN took it for a
 *      hole or a swap entry, and DAMON's access check skipped it (its
 *      folio is not marked idle: /proc/kpageflags); clear_refs 1 left it
 *      young, which only the series' smaps shows (Referenced 0 kB after);
 *   3. the huge zero page, mapped by a PMD, then PROT_NONE, scanned from
 *      its first page and from its second;
 *   4. a shmem THP, mapped by a PMD, then PROT_NONE (a file page);
 *   5. a 2M hugetlb page, present and PROT_NONE (read with huge_ptep_get(),
 *      which sets the valid bit of a non-empty entry: present in 6.12 too).
 * The PROT_NONE THPs and huge zero page stay mapped until the guest powers
 * off: 6.12 on LPAE, with or without the series, cannot take them back
 * (change_huge_pmd()'s pmdp_invalidate_ad() warns under DEBUG_VM that
 * their PMD is not present) nor unmap them (zap_huge_pmd() warns "Non
 * present huge pmd without pmd migration enabled!", then oopses on the
 * NULL folio): its mm takes the PMD of a PROT_NONE THP for present, as on
 * every other architecture, and LPAE's pmd_present() does not.
 *
 * Every line is compared between the stock and the patched kernel;
 * harness/lpae/expected.diff holds the lines that differ on purpose (the
 * rows of the README's "Differences from 6.12" that this guest shows).
 * Nothing printed depends on addresses, nor on time but for how long DAMON
 * takes to sample (up to 30 s).  Each line begins with the name of its
 * mapping, and is written whole (stdout is line-buffered), so that
 * harness/lpae.sh can tell it from a kernel message.  A step that cannot
 * be set up prints "! what".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define HPAGE		(2 * MB)
#define NR		(HPAGE / PAGE)
#define PM_PFN(e)	((e) & ((1ULL << 55) - 1))
#define PM_FLAGS(e)	((e) >> 55)
#define KPF_COMPOUND_HEAD	15
#define KPF_HUGE	17
#define KPF_THP		22
#define KPF_ZERO_PAGE	24
#define KPF_IDLE	25

static uint64_t pm[NR];
static unsigned char vec[NR];

/* The vmstat counter @name, or -1. */
static long vmstat_count(const char *name)
{
	char line[128], key[64];
	long n = -1, v;
	FILE *f = fopen("/proc/vmstat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", key, &v) == 2 && !strcmp(key, name))
			n = v;
	if (f)
		fclose(f);
	return n;
}

/*
 * A 2M-aligned mapping of 2M: private anonymous, or mapped again with the
 * mmap() @flags.
 */
static char *map_2m(int flags)
{
	char *p = mmap(NULL, 2 * HPAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	unsigned long head;

	if (p == MAP_FAILED)
		return NULL;
	head = -(unsigned long)p & (HPAGE - 1);
	if (head)
		munmap(p, head);
	munmap(p + head + HPAGE, HPAGE - head);
	p += head;
	if (flags) {
		munmap(p, HPAGE);
		p = mmap(p, HPAGE, PROT_READ | PROT_WRITE, MAP_FIXED | flags,
			 -1, 0);
		if (p == MAP_FAILED)
			return NULL;
	}
	return p;
}

/* Read the 512 pagemap entries of @p into pm[]: 0, or -1. */
static int read_pm(char *p)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	ssize_t n = fd < 0 ? -1 :
		pread(fd, pm, sizeof(pm), (off_t)((unsigned long)p / PAGE) * 8);

	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof(pm)) {
		note("pagemap: read %zd of %zu bytes", n, sizeof(pm));
		return -1;
	}
	return 0;
}

/* The 64-bit word for @pfn in the /proc file @file, or ~0. */
static uint64_t kpage(const char *file, uint64_t pfn)
{
	uint64_t v = ~0ULL;
	int fd = open(file, O_RDONLY);

	if (fd < 0 || pread(fd, &v, 8, (off_t)pfn * 8) != 8)
		v = ~0ULL;
	if (fd >= 0)
		close(fd);
	return v;
}

/* What /proc/kpageflags and /proc/kpagecount say of the head page @pfn. */
static void show_folio(const char *what, uint64_t pfn)
{
	uint64_t f = kpage("/proc/kpageflags", pfn);

	printf("%s: folio:%s%s%s%s%s, mapcount %lld\n", what,
	       f >> KPF_ZERO_PAGE & 1 ? " zero" : "",
	       f >> KPF_THP & 1 ? " thp" : "",
	       f >> KPF_HUGE & 1 ? " hugetlb" : "",
	       f >> KPF_COMPOUND_HEAD & 1 ? " head" : " not a head",
	       f >> KPF_IDLE & 1 ? " idle" : "",
	       (long long)kpage("/proc/kpagecount", pfn));
}

/*
 * pagemap of @p: the flags of each run of pages, and whether the pfns are
 * @pfn onwards.
 */
static void show_pagemap(const char *what, char *p, uint64_t pfn)
{
	unsigned long i;

	if (read_pm(p))
		return;
	printf("%s: pagemap:", what);
	for (i = 0; i < NR; i++)
		if (!i || PM_FLAGS(pm[i]) != PM_FLAGS(pm[i - 1]))
			printf(" flags 0x%03llx from page %lu;",
			       (unsigned long long)PM_FLAGS(pm[i]), i);
	for (i = 0; i < NR; i++)
		if (PM_PFN(pm[i]) != (pm[i] >> 63 ? pfn + i : 0))
			break;
	printf(" pfns %s\n", i == NR ? "as mapped" : "not as mapped");
}

/* smaps of the VMA at @p: every line but the first (addresses, inode). */
static void show_smaps(const char *what, char *p)
{
	char line[256];
	unsigned long start;
	int in = 0, found = 0;
	FILE *f = fopen("/proc/self/smaps", "r");
	size_t n;

	while (f && fgets(line, sizeof(line), f)) {
		n = strspn(line, "0123456789abcdef");
		if (n && line[n] == '-' && sscanf(line, "%lx-", &start) == 1) {
			in = start == (unsigned long)p;
			found |= in;
			continue;
		}
		if (in && strncmp(line, "VmFlags:", 8))
			printf("%s: smaps %s", what, line);
	}
	if (f)
		fclose(f);
	if (!found)
		note("%s: smaps has no VMA at the mapping", what);
}

/*
 * smaps_rollup's Rss, Pss and AnonHugePages lines, in kB, into @kb (five of
 * them).  Not Referenced: the other mappings' share of it depends on what
 * this program touched since the last clear_refs.
 */
static void rollup(long *kb)
{
	static const char *const keys[] = {
		"Rss:", "Pss:", "Pss_Dirty:", "Pss_Anon:", "AnonHugePages:",
	};
	char line[128], key[32];
	unsigned int i;
	long v;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	memset(kb, 0, 5 * sizeof(*kb));
	while (f && fgets(line, sizeof(line), f))
		for (i = 0; i < ARRAY_SIZE(keys); i++)
			if (sscanf(line, "%31s %ld", key, &v) == 2 &&
			    !strcmp(key, keys[i]))
				kb[i] = v;
	if (f)
		fclose(f);
}

/* What smaps_rollup gained since @before: the mapping's share. */
static void show_rollup(const char *what, const long *before)
{
	long kb[5];

	rollup(kb);
	printf("%s: smaps_rollup +Rss %ld +Pss %ld", what, kb[0] - before[0],
	       kb[1] - before[1]);
	printf(" +Pss_Dirty %ld +Pss_Anon %ld +AnonHugePages %ld kB\n",
	       kb[2] - before[2], kb[3] - before[3], kb[4] - before[4]);
}

static void show_scan(const char *what, char *p, unsigned long len)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "%s: ", what);
	print_scan(prefix, p, len);
}

static void show_mincore(const char *what, char *p)
{
	unsigned long i, n = 0;

	if (mincore(p, HPAGE, vec)) {
		note("%s: mincore: %s", what, strerror(errno));
		return;
	}
	for (i = 0; i < NR; i++)
		n += vec[i] & 1;
	printf("%s: mincore: %lu of %lu pages resident\n", what, n, NR);
}

/* Every reader of @p (head page @pfn), @before the mapping's rollup. */
static void show_all(const char *what, char *p, uint64_t pfn,
		     const long *before)
{
	show_folio(what, pfn);
	show_pagemap(what, p, pfn);
	show_smaps(what, p);
	show_rollup(what, before);
	show_scan(what, p, HPAGE);
	show_mincore(what, p);
}

/*
 * DAMON's access check of the mapping at @p, whose head page is @pfn (this
 * process, fixed virtual address regions, the mapping one region, a sample
 * every 10 ms), until the folio is marked idle (damon_pmdp_mkold() marks
 * it, at the first sample that makes the THP old), or for 30 s (a vCPU of
 * an emulator can be left waiting by a busy host).
 */
static void damon(const char *what, char *p, uint64_t pfn)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	int i;

	if (damon_watch(p, p + HPAGE))
		return;
	for (i = 0; i < 300; i++) {
		if (kpage("/proc/kpageflags", pfn) >> KPF_IDLE & 1)
			break;
		nanosleep(&tick, NULL);
	}
	if (put(DAMON_KDAMOND "state", "off"))
		note("%s: DAMON: state off: %s", what, strerror(errno));
	else
		printf("%s: DAMON monitored it\n", what);
}

/* Whether each byte of the 2M at @p is still what fill() wrote. */
static void check_contents(const char *what, const char *p)
{
	unsigned long i;

	for (i = 0; i < HPAGE; i++)
		if (p[i] != (char)(i / PAGE + 1))
			break;
	printf("%s: contents %s\n", what, i == HPAGE ? "intact" : "changed");
}

static void fill(char *p)
{
	unsigned long i;

	for (i = 0; i < HPAGE; i++)
		p[i] = i / PAGE + 1;
}

static void check_thp(void)
{
	long before[5], faults = vmstat_count("thp_fault_alloc");
	char *p;
	uint64_t pfn;

	rollup(before);
	p = map_2m(0);
	if (!p || madvise(p, HPAGE, MADV_HUGEPAGE)) {
		note("thp: cannot map 2M: %s", strerror(errno));
		return;
	}
	fill(p);
	printf("thp: thp_fault_alloc +%ld\n", vmstat_count("thp_fault_alloc") - faults);
	if (read_pm(p))
		return;
	pfn = PM_PFN(pm[0]);
	show_all("thp", p, pfn, before);

	if (mprotect(p, HPAGE, PROT_NONE)) {
		note("thp: mprotect(PROT_NONE): %s", strerror(errno));
		return;
	}
	show_all("thp PROT_NONE", p, pfn, before);
	if (put("/proc/self/clear_refs", "1"))
		note("thp: clear_refs 1: %s", strerror(errno));
	show_smaps("thp PROT_NONE, clear_refs 1", p);
	damon("thp PROT_NONE", p, pfn);
	show_folio("thp PROT_NONE, DAMON", pfn);
}

/* The huge zero page: a read fault of a THP-sized range, no write. */
static void check_huge_zero(void)
{
	long before[5];
	unsigned long i;
	unsigned char sum = 0;
	char *p;
	uint64_t pfn;

	rollup(before);
	p = map_2m(0);
	if (!p || madvise(p, HPAGE, MADV_HUGEPAGE)) {
		note("huge zero: cannot map 2M: %s", strerror(errno));
		return;
	}
	for (i = 0; i < HPAGE; i += PAGE)
		sum |= __atomic_load_n(p + i, __ATOMIC_RELAXED);
	printf("huge zero: read %s\n", sum ? "not zero" : "zeros");
	if (read_pm(p))
		return;
	pfn = PM_PFN(pm[0]);
	show_all("huge zero", p, pfn, before);
	show_scan("huge zero, from page 1", p + PAGE, HPAGE - PAGE);
	if (mprotect(p, HPAGE, PROT_NONE)) {
		note("huge zero: mprotect(PROT_NONE): %s", strerror(errno));
		return;
	}
	show_all("huge zero PROT_NONE", p, pfn, before);
	show_scan("huge zero PROT_NONE, from page 1", p + PAGE, HPAGE - PAGE);
}

/* A shmem THP: a file page, mapped by a PMD. */
static void check_shmem(void)
{
	long before[5];
	char *p;
	uint64_t pfn;

	if (put("/sys/kernel/mm/transparent_hugepage/shmem_enabled", "advise"))
		note("shmem: shmem_enabled: %s", strerror(errno));
	rollup(before);
	p = map_2m(MAP_SHARED | MAP_ANONYMOUS);
	if (!p || madvise(p, HPAGE, MADV_HUGEPAGE)) {
		note("shmem: cannot map 2M: %s", strerror(errno));
		return;
	}
	fill(p);
	if (read_pm(p))
		return;
	pfn = PM_PFN(pm[0]);
	show_all("shmem", p, pfn, before);
	if (mprotect(p, HPAGE, PROT_NONE)) {
		note("shmem: mprotect(PROT_NONE): %s", strerror(errno));
		return;
	}
	show_all("shmem PROT_NONE", p, pfn, before);
}

static void check_hugetlb(void)
{
	long before[5];
	char *p;
	uint64_t pfn;

	if (put("/proc/sys/vm/nr_hugepages", "1"))
		note("hugetlb: nr_hugepages: %s", strerror(errno));
	rollup(before);
	p = map_2m(MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB);
	if (!p) {
		note("hugetlb: cannot map 2M: %s", strerror(errno));
		return;
	}
	fill(p);
	if (read_pm(p))
		return;
	pfn = PM_PFN(pm[0]);
	show_all("hugetlb", p, pfn, before);
	if (mprotect(p, HPAGE, PROT_NONE)) {
		note("hugetlb: mprotect(PROT_NONE): %s", strerror(errno));
		return;
	}
	show_all("hugetlb PROT_NONE", p, pfn, before);
	mprotect(p, HPAGE, PROT_READ);
	check_contents("hugetlb PROT_NONE, readable", p);
	munmap(p, HPAGE);
}

int main(void)
{
	mount_guest_fs();
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("LPCHECK: BEGIN\n");
	check_thp();
	check_huge_zero();
	check_shmem();
	check_hugetlb();
	printf("LPCHECK: END\n");
	power_off();
	return 0;
}

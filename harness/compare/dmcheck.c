// SPDX-License-Identifier: GPL-2.0
/*
 * dmcheck: the DAMON check of `make compare` (harness/compare.sh), run by
 * /init after mccheck.
 *
 * DAMON's virtual address operations find out whether a region was
 * accessed by making the entry that maps a sampled address old and looking
 * at it again one sampling interval later: a page table walk of one
 * address, twice per sample.  dmcheck maps regions whose accesses it
 * knows, each in a VMA of its own with a hole around it: small pages, a
 * THP mapped by a PMD, a THP mapped by PTEs, hugetlb of every size the
 * kernel offers; one of each kind is written again and again by a child
 * process (which write-protects and unprotects it before each round, so
 * that every round's writes go through fresh TLB entries and set the
 * accessed bits), the other is written once.  DAMON monitors the child
 * through sysfs with one region per mapping ("fvaddr": fixed regions, never
 * merged or split), and a "stat" scheme reports what each region's last
 * aggregation saw, asked for five aggregations in a row.  dmcheck prints, per region, whether it was accessed:
 * the written one must be, the other not, on either kernel.
 *
 * Lines: "DMCHECK: ..." for the harness, "region label: accessed" or
 * "... not accessed", "!" for a step that could not be set up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define DAMON		"/sys/kernel/mm/damon/admin/kdamonds/"
#define CTX		DAMON "0/contexts/0/"
#define PATTERN		CTX "schemes/0/access_pattern/"

/* Each mapping gets its own aligned gigabyte, from here on. */
#define BASE		(192 * GB)

struct region {
	char label[64];
	char *p;
	unsigned long len;	/* of the mapping */
	unsigned long step;	/* between the writes of a round */
	int hot;
};

static struct region regions[16];
static unsigned int nr_regions;
static unsigned long next_slot = BASE;

/* Map @len bytes (@flags) at the next slot aligned to @align. */
static void add(const char *kind, unsigned long len, unsigned long align,
		int flags, int advice, unsigned long step, int hot)
{
	unsigned long addr = (next_slot + align - 1) & ~(align - 1);
	struct region *r = &regions[nr_regions];
	unsigned long i;
	char *p;

	next_slot = ((addr + len + GB - 1) & ~(GB - 1)) + GB;
	snprintf(r->label, sizeof(r->label), "%s, %s", kind,
		 hot ? "written again and again" : "written once");
	p = mmap((void *)addr, len, PROT_READ | PROT_WRITE,
		 flags | MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		 -1, 0);
	if (p == MAP_FAILED) {
		note("%s: mmap: %s", r->label, strerror(errno));
		return;
	}
	if (advice && madvise(p, len, advice))
		note("%s: madvise: %s", r->label, strerror(errno));
	for (i = 0; i < len; i += PAGE)
		p[i] = 1;
	r->p = p;
	r->len = len;
	r->step = step;
	r->hot = hot;
	nr_regions++;
}

/* Both: one written again and again, one written once. */
static void add_pair(const char *kind, unsigned long len, unsigned long align,
		     int flags, int advice, unsigned long step)
{
	add(kind, len, align, flags, advice, step, 1);
	add(kind, len, align, flags, advice, step, 0);
}

/* The child: write the hot regions, round after round, until killed. */
static void writer(void)
{
	unsigned long i;
	unsigned int r;

	for (;;) {
		for (r = 0; r < nr_regions; r++) {
			struct region *g = &regions[r];

			if (!g->hot)
				continue;
			mprotect(g->p, g->len, PROT_READ);
			mprotect(g->p, g->len, PROT_READ | PROT_WRITE);
			for (i = 0; i < g->len; i += g->step)
				g->p[i]++;
		}
	}
}

static void put_or_note(const char *path, const char *val)
{
	if (put(path, val))
		note("%s <- %s: %s", path, val, strerror(errno));
}

static void put_num(const char *fmt, unsigned long n, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), fmt, n);
	put_or_note(path, val);
}

/* get_num() of the file named by @fmt with @n. */
static long get_numf(const char *fmt, unsigned long n)
{
	char path[256];

	snprintf(path, sizeof(path), fmt, n);
	return get_num(path);
}

/* Monitor @pid with one fixed region per mapping, a "stat" scheme. */
static int damon_start(pid_t pid)
{
	char val[32];
	unsigned int r;

	if (put(DAMON "nr_kdamonds", "1")) {
		note("DAMON sysfs: %s", strerror(errno));
		return -1;
	}
	put_or_note(DAMON "0/contexts/nr_contexts", "1");
	put_or_note(CTX "operations", "fvaddr");
	put_or_note(CTX "monitoring_attrs/intervals/sample_us", "10000");
	put_or_note(CTX "monitoring_attrs/intervals/aggr_us", "200000");
	snprintf(val, sizeof(val), "%u", nr_regions);
	put_or_note(CTX "monitoring_attrs/nr_regions/min", val);
	put_or_note(CTX "monitoring_attrs/nr_regions/max", val);
	put_or_note(CTX "targets/nr_targets", "1");
	snprintf(val, sizeof(val), "%d", pid);
	put_or_note(CTX "targets/0/pid_target", val);
	snprintf(val, sizeof(val), "%u", nr_regions);
	put_or_note(CTX "targets/0/regions/nr_regions", val);
	for (r = 0; r < nr_regions; r++) {
		snprintf(val, sizeof(val), "%lu", (unsigned long)regions[r].p);
		put_num(CTX "targets/0/regions/%lu/start", r, val);
		snprintf(val, sizeof(val), "%lu",
			 (unsigned long)regions[r].p + regions[r].len);
		put_num(CTX "targets/0/regions/%lu/end", r, val);
	}
	put_or_note(CTX "schemes/nr_schemes", "1");
	put_or_note(CTX "schemes/0/action", "stat");
	/* Every region: the ranges of the access pattern are 0-0 at first. */
	put_or_note(PATTERN "sz/max", "18446744073709551615");
	put_or_note(PATTERN "nr_accesses/max", "4294967295");
	put_or_note(PATTERN "age/max", "4294967295");
	if (put(DAMON "0/state", "on")) {
		note("DAMON: state on: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Ask for a fresh snapshot of the tried regions: what the last aggregation
 * saw.  The update sometimes finds none (it raced with the scheme's
 * application): it is asked again, a few times.  Returns whether there are
 * regions to read.
 */
static bool damon_snapshot(const char *fmt)
{
	struct timespec pause = { 0, 200 * 1000 * 1000 };
	unsigned int tries;

	for (tries = 0; tries < 10; tries++) {
		put_or_note(DAMON "0/state", "update_schemes_tried_regions");
		if (get_numf(fmt, 0) >= 0)
			return true;
		nanosleep(&pause, NULL);
	}
	return false;
}

/*
 * Whether each region was accessed, in any of SNAPSHOTS aggregations of
 * 200 ms: a region written all the time was, unless its writer got no CPU
 * for a whole aggregation (a host busy elsewhere stops a TCG vCPU); a
 * region written once before never is, after the first aggregations.
 * Printed in the order of the tried regions (by address).
 */
#define SNAPSHOTS	5

static void damon_report(void)
{
	const char *tried = CTX "schemes/0/tried_regions/";
	unsigned int order[ARRAY_SIZE(regions)], nr = 0, snap, r, k;
	bool seen[ARRAY_SIZE(regions)] = { 0 };
	bool accessed[ARRAY_SIZE(regions)] = { 0 };
	char start_fmt[256], acc_fmt[256];
	unsigned long start, i;

	snprintf(start_fmt, sizeof(start_fmt), "%s%%lu/start", tried);
	snprintf(acc_fmt, sizeof(acc_fmt), "%s%%lu/nr_accesses", tried);
	for (snap = 0; snap < SNAPSHOTS; snap++) {
		if (!damon_snapshot(start_fmt))
			continue;
		for (i = 0; i < 64 && get_numf(start_fmt, i) >= 0; i++) {
			start = (unsigned long)get_numf(start_fmt, i);
			for (r = 0; r < nr_regions; r++) {
				if ((unsigned long)regions[r].p != start)
					continue;
				if (!seen[r])
					order[nr++] = r;
				seen[r] = true;
				if (get_numf(acc_fmt, i) > 0)
					accessed[r] = true;
			}
		}
	}
	for (k = 0; k < nr; k++)
		printf("region %s: %s\n", regions[order[k]].label,
		       accessed[order[k]] ? "accessed" : "not accessed");
	if (!nr)
		note("DAMON: no tried regions");
}

/* The child's mappings, written once each. */
static void setup(void)
{
	static const unsigned long huge_kb[] = { 64, 2048, 32768, 1048576 };
	char path[128], kind[64];
	unsigned int i;

	add_pair("small pages", 64 * KB, 2 * MB, 0, MADV_NOHUGEPAGE, PAGE);
	add_pair("THP by a PMD", 2 * MB, 2 * MB, 0, MADV_HUGEPAGE, 2 * MB);
	add_pair("THP by PTEs", 2 * MB, 2 * MB, 0, MADV_HUGEPAGE, PAGE);
	for (i = nr_regions - 2; i < nr_regions; i++)
		if (madvise(regions[i].p + 2 * MB - PAGE, PAGE, MADV_DONTNEED))
			note("THP by PTEs: MADV_DONTNEED: %s", strerror(errno));
	for (i = 0; i < ARRAY_SIZE(huge_kb); i++) {
		unsigned long size = huge_kb[i] * KB;

		snprintf(path, sizeof(path),
			 "/sys/kernel/mm/hugepages/hugepages-%lukB", huge_kb[i]);
		if (access(path, F_OK))
			continue;
		snprintf(kind, sizeof(kind), "hugetlb %luK", huge_kb[i]);
		add_pair(kind, size, size > GB ? size : GB,
			 MAP_HUGETLB | HUGE_SHIFT(__builtin_ctzl(size)), 0,
			 size);
	}
}

int main(void)
{
	struct timespec settle = { 2, 0 };
	int fd[2];
	pid_t pid;

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	printf("\nDMCHECK: BEGIN\n");
	fflush(stdout);
	/*
	 * The child maps and writes (a private mapping written after fork
	 * would be a copy, and there may be no hugetlb page for it), and
	 * tells the parent what it mapped.
	 */
	if (pipe(fd)) {
		note("pipe: %s", strerror(errno));
		return 0;
	}
	pid = fork();
	if (pid == 0) {
		setup();
		fflush(stdout);
		if (write(fd[1], &nr_regions, sizeof(nr_regions)) < 0 ||
		    write(fd[1], regions, sizeof(regions)) < 0)
			_exit(1);
		writer();
	}
	if (pid < 0 ||
	    read(fd[0], &nr_regions, sizeof(nr_regions)) != sizeof(nr_regions) ||
	    read(fd[0], regions, sizeof(regions)) != sizeof(regions)) {
		note("the child did not start");
	} else if (damon_start(pid)) {
		note("DAMON: not started");
	} else {
		/* Some aggregations: the first sees the setup's writes. */
		nanosleep(&settle, NULL);
		damon_report();
		put_or_note(DAMON "0/state", "off");
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	printf("DMCHECK: END\n");
	fflush(stdout);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * dxcheck: a PUD leaf outside hugetlb, read through every reader of page
 * tables that user space has, for `make compare` (harness/compare.sh); run
 * by /init after crcheck.
 *
 * The x86_64 guest boots with 2G of emulated persistent memory
 * (memmap=2G!9G).  dxcheck makes a device-dax device of it with a 1G
 * alignment (the libnvdimm sysfs steps ndctl would take: the region's dax
 * seed gets a uuid, memmap on the device, a 1G alignment and the
 * namespace, and is bound to dax_pmem): its 1G of data after the 1G-aligned
 * info block is mapped by one PUD leaf, device memory with no page to
 * count.  Then, for each reader in turn (pagemap, smaps, smaps_rollup,
 * numa_maps, PAGEMAP_SCAN, mincore(), mbind(MPOL_MF_STRICT), DAMON's
 * access check, clear_refs 1 and 4), dxcheck writes to the mapping (which
 * maps the PUD again if a reader zapped it), runs the reader, prints what
 * it says of the mapping, and how much /proc/vmstat's thp_split_pud grew
 * meanwhile: 1 when the reader zapped the leaf (split_huge_pud()), 0 when
 * it left it mapped.  (Memory failure's search of a process's page tables
 * needs a page poisoned while mapped: mfcheck's, which runs last.)
 *
 * 6.12's walk_page_range() zaps such a leaf before it walks below it, so
 * every reader with PMD or PTE callbacks zaps it and reports its range as
 * a hole: pagemap not present, mincore() not resident.  The conversions to
 * pt_iter keep that; patches 0037-0039 make the readers leave it mapped
 * and report what it maps (present, its pfns, resident); clear_refs still
 * zaps it, on purpose (its next access must fault for the young and
 * soft-dirty bits to mean something).  stock-bugs.awk masks what differs
 * (stock bug 5); expect.awk checks what the patched kernel prints.
 * arm64's 6.12 has no PUD-sized device-dax: its guest has no persistent
 * memory, and dxcheck says so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define ND		"/sys/bus/nd/devices/"
#define LEN		GB
#define NR		(LEN / PAGE)
#define PM_PFN(e)	((e) & ((1ULL << 55) - 1))
#define PM_FLAGS(e)	((e) >> 55)

#ifndef MPOL_BIND
#define MPOL_BIND	2
#endif
#ifndef MPOL_MF_STRICT
#define MPOL_MF_STRICT	(1 << 0)
#endif

static char *map;
static uint64_t pm[NR];
static unsigned char vec[NR];

/* /proc/vmstat's thp_split_pud: how many PUD leaves were split (zapped). */
static long split_pud(void)
{
	char line[128];
	long n = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "thp_split_pud %ld", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

/* Write @val to the attribute @attr of the nd device @dev. */
static int nd_put(const char *dev, const char *attr, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), ND "%s/%s", dev, attr);
	if (put(path, val)) {
		note("device-dax: cannot write %s to %s: %s", val, path,
		     strerror(errno));
		return -1;
	}
	return 0;
}

/* The device-dax device of region0, 1G-aligned, mapped: 0, or -1. */
static int setup(void)
{
	char seed[64] = "", uuid[64] = "", dev[80];
	int fd;

	fd = open(ND "region0/dax_seed", O_RDONLY);
	if (fd < 0) {
		printf("no persistent memory: no device-dax here\n");
		return -1;
	}
	if (read(fd, seed, sizeof(seed) - 1) <= 0)
		seed[0] = 0;
	close(fd);
	seed[strcspn(seed, "\n")] = 0;
	fd = open("/proc/sys/kernel/random/uuid", O_RDONLY);
	if (fd < 0 || read(fd, uuid, sizeof(uuid) - 1) <= 0) {
		note("device-dax: no uuid");
		return -1;
	}
	close(fd);
	uuid[strcspn(uuid, "\n")] = 0;
	if (!seed[0] || nd_put(seed, "uuid", uuid) ||
	    nd_put(seed, "mode", "pmem") ||
	    nd_put(seed, "align", "1073741824") ||
	    nd_put(seed, "namespace", "namespace0.0") ||
	    put("/sys/bus/nd/drivers/dax_pmem/bind", seed)) {
		note("device-dax: cannot set %s up: %s", seed, strerror(errno));
		return -1;
	}
	snprintf(dev, sizeof(dev), "/dev/%s", seed);
	fd = open(dev, O_RDWR);
	if (fd < 0) {
		note("device-dax: open %s: %s", dev, strerror(errno));
		return -1;
	}
	map = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		note("device-dax: mmap: %s", strerror(errno));
		return -1;
	}
	printf("device-dax: %lu MB mapped%s\n", LEN / MB,
	       (unsigned long)map % GB ? ", not at a 1G boundary" :
	       " at a 1G boundary");
	return 0;
}

/* pagemap of the mapping: its distinct flags, and whether the pfns follow. */
static void read_pagemap(void)
{
	unsigned long i, runs = 0, from_1g;
	int fd = open("/proc/self/pagemap", O_RDONLY);
	ssize_t n = fd < 0 ? -1 :
		pread(fd, pm, sizeof(pm), (unsigned long)map / PAGE * 8);

	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof(pm)) {
		note("pagemap: read %zd of %zu bytes", n, sizeof(pm));
		return;
	}
	printf("pagemap:");
	for (i = 0; i < NR; i++) {
		if (i && PM_FLAGS(pm[i]) == PM_FLAGS(pm[i - 1]))
			continue;
		printf(" flags 0x%03llx from page %lu;",
		       (unsigned long long)PM_FLAGS(pm[i]), i);
		runs++;
	}
	for (i = 1; i < NR; i++)
		if (PM_PFN(pm[i]) != (PM_PFN(pm[0]) ? PM_PFN(pm[0]) + i : 0))
			break;
	from_1g = PM_PFN(pm[0]) && !(PM_PFN(pm[0]) % (GB / PAGE));
	printf(" %lu run%s, pfns %s\n", runs, runs == 1 ? "" : "s",
	       i < NR ? "not consecutive" : !PM_PFN(pm[0]) ? "none" :
	       from_1g ? "consecutive from a 1G boundary" : "consecutive");
}

/* Whether @line is the first of a VMA in smaps ("start-end perms ..."). */
static int vma_line(const char *line, unsigned long *start)
{
	size_t n = strspn(line, "0123456789abcdef");

	return n && line[n] == '-' && sscanf(line, "%lx-", start) == 1;
}

/*
 * The lines of the mapping's VMA in /proc/self/@file (smaps or numa_maps),
 * without its addresses, device and inode numbers.
 */
static void read_vma(const char *file)
{
	char path[64], line[256], perms[8], name[64];
	unsigned long start;
	int in = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strcmp(file, "numa_maps")) {
			if (strtoul(line, NULL, 16) == (unsigned long)map)
				printf("dax numa_maps %s",
				       strchr(line, ' ') + 1);
			continue;
		}
		if (vma_line(line, &start)) {
			in = start == (unsigned long)map;
			if (in && sscanf(line, "%*s %7s %*s %*s %*s %63s",
					 perms, name) == 2)
				printf("dax smaps %s %s\n", perms, name);
			continue;
		}
		if (in)
			printf("dax smaps %s", line);
	}
	if (f)
		fclose(f);
}

static void read_rollup(void)
{
	char buf[4096];
	int fd = open("/proc/self/smaps_rollup", O_RDONLY);

	while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
		;
	if (fd >= 0)
		close(fd);
	printf("smaps_rollup: read\n");
}

static void scan(void)
{
	print_scan("", map, LEN);
}

static void read_mincore(void)
{
	unsigned long i, n = 0;

	if (mincore(map, LEN, vec)) {
		note("mincore: %s", strerror(errno));
		return;
	}
	for (i = 0; i < NR; i++)
		n += vec[i] & 1;
	printf("mincore: %lu of %lu pages resident\n", n, NR);
}

static void strict(void)
{
	unsigned long node0 = 1;
	long ret = syscall(__NR_mbind, map, LEN, MPOL_BIND, &node0,
			   sizeof(node0) * 8, MPOL_MF_STRICT);

	printf("mbind(MPOL_BIND, MPOL_MF_STRICT) = %ld%s%s\n", ret,
	       ret ? " " : "", ret ? strerror(errno) : "");
}

/*
 * DAMON's access check (fixed regions of this process's virtual addresses,
 * the mapping one region) for half a second: about fifty samples, each a
 * page table walk of one address of the mapping to make it old and one to
 * look at it again.
 */
static void damon(void)
{
	struct timespec run = { 0, 500 * 1000 * 1000 };

	if (damon_watch(map, map + LEN))
		return;
	nanosleep(&run, NULL);
	if (put(DAMON_KDAMOND "state", "off"))
		note("DAMON: state off: %s", strerror(errno));
	else
		printf("DAMON: monitored\n");
}

static void write_clear_refs(const char *val)
{
	if (put("/proc/self/clear_refs", val))
		note("clear_refs %s: %s", val, strerror(errno));
	else
		printf("clear_refs %s: written\n", val);
}

static void clear_refs_1(void)
{
	write_clear_refs("1");
}

static void clear_refs_4(void)
{
	write_clear_refs("4");
}

static void smaps(void)
{
	read_vma("smaps");
}

static void numa_maps(void)
{
	read_vma("numa_maps");
}

static const struct {
	const char *name;
	void (*read)(void);
} readers[] = {
	{ "pagemap", read_pagemap },
	{ "smaps", smaps },
	{ "smaps_rollup", read_rollup },
	{ "numa_maps", numa_maps },
	{ "PAGEMAP_SCAN", scan },
	{ "mincore", read_mincore },
	{ "mbind", strict },
	{ "DAMON", damon },
	{ "clear_refs 1", clear_refs_1 },
	{ "clear_refs 4", clear_refs_4 },
};

int main(void)
{
	unsigned int i;
	long before;

	setvbuf(stdout, NULL, _IONBF, 0);
	printf("DXCHECK: BEGIN\n");
	if (!setup()) {
		for (i = 0; i < ARRAY_SIZE(readers); i++) {
			/* Mapped (again) by one PUD: the device's alignment. */
			map[i * PAGE] = i;
			before = split_pud();
			readers[i].read();
			printf("%s: thp_split_pud +%ld\n", readers[i].name,
			       split_pud() - before);
		}
		munmap(map, LEN);
	}
	printf("DXCHECK: END\n");
	return 0;
}

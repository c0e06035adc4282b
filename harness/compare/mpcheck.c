// SPDX-License-Identifier: GPL-2.0
/*
 * mpcheck: the NUMA migration checker of `make compare` (harness/compare.sh),
 * run by /init after pmcheck in the guest with two NUMA nodes.
 *
 * mbind(), migrate_pages() and move_pages() find the folios they move with
 * queue_pages_range(), the page table walk of mm/mempolicy.c.  For each
 * mapping of a catalogue (small pages, the zero page and the huge zero
 * page, THP mapped by a PMD and by PTEs, 64K mTHP, a THP partly CoW'd,
 * pages shared after fork, shmem, page cache, swapped-out pages, pages
 * partly on the other node already, hugetlb of every size the kernel
 * offers, private, shared, shared after fork and through a shared PMD
 * table, the VDSO, a pfn mapping, ranges with holes) the mapping is
 * faulted in on node 0 and then moved about with every combination of
 * MPOL_MF_STRICT, MPOL_MF_MOVE and MPOL_MF_MOVE_ALL.  Each call prints its
 * return value and errno, move_pages() its status array, and the mapping's
 * numa_maps lines follow each move.  Stock and patched kernels must print
 * the same bytes.
 *
 * Lines: "MPCHECK: ..." for the harness, "= label" before a mapping's
 * calls, "!" for a step that could not be set up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

/* <linux/mempolicy.h> */
#define MPOL_BIND		2
#define MPOL_MF_STRICT		(1 << 0)
#define MPOL_MF_MOVE		(1 << 1)
#define MPOL_MF_MOVE_ALL	(1 << 2)

/* Each mapping gets its own aligned gigabyte, from here on. */
#define BASE			(128 * GB)

static unsigned long next_slot = BASE;
static unsigned long sink;
static sigjmp_buf fault_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/* Map @len bytes at the next slot aligned to @align (a gigabyte at least). */
static char *map(const char *label, unsigned long len, int prot, int flags,
		 int fd, unsigned long align)
{
	unsigned long addr;
	void *p;

	if (align < GB)
		align = GB;
	addr = (next_slot + align - 1) & ~(align - 1);
	next_slot = ((addr + len + GB - 1) & ~(GB - 1)) + GB;
	p = mmap((void *)addr, len, prot, flags | MAP_FIXED_NOREPLACE, fd, 0);
	if (p == MAP_FAILED) {
		note("%s: mmap: %s", label, strerror(errno));
		return NULL;
	}
	return p;
}

static char *anon(const char *label, unsigned long len, int advice)
{
	char *p = map(label, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p && advice && madvise(p, len, advice))
		note("%s: madvise %d: %s", label, advice, strerror(errno));
	return p;
}

static void touch(char *p, unsigned long len, unsigned long step)
{
	unsigned long i;

	for (i = 0; i < len; i += step)
		p[i] = (char)(1 + i / step);
}

static void readall(const char *p, unsigned long len, unsigned long step)
{
	unsigned long i;

	for (i = 0; i < len; i += step)
		sink += p[i];
}

static const char *flag_names(unsigned int flags)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "%s%s%s%s",
		 flags & MPOL_MF_STRICT ? "|STRICT" : "",
		 flags & MPOL_MF_MOVE ? "|MOVE" : "",
		 flags & MPOL_MF_MOVE_ALL ? "|MOVE_ALL" : "",
		 flags ? "" : "|0");
	return buf + 1;
}

static const char *result(long ret)
{
	static char buf[64];

	if (ret < 0)
		snprintf(buf, sizeof(buf), "%ld %s", ret, strerror(errno));
	else
		snprintf(buf, sizeof(buf), "%ld", ret);
	return buf;
}

/*
 * The numa_maps lines of the VMAs in [@p, @p + @len): the address becomes
 * the offset in the mapping, "active=" (which depends on the LRU's timing)
 * is left out.
 */
static void print_numa_maps(const char *p, unsigned long len)
{
	unsigned long start = (unsigned long)p, addr;
	char line[1024], *rest, *a, *sp;
	FILE *f = fopen("/proc/self/numa_maps", "r");

	if (!f) {
		note("numa_maps: %s", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		addr = strtoul(line, &rest, 16);
		if (addr < start || addr >= start + len)
			continue;
		a = strstr(rest, " active=");
		if (a) {
			sp = strchr(a + 1, ' ');
			memmove(a, sp ? sp : "\n", strlen(sp ? sp : "\n") + 1);
		}
		printf("  numa_maps +%#lx%s", addr - start, rest);
	}
	fclose(f);
}

/* mbind(@p + @off, @len, MPOL_BIND to @node, @flags), printed. */
static long mbind_to(const char *p, unsigned long off, unsigned long len,
		     int node, unsigned int flags)
{
	unsigned long mask = 1UL << node;
	long ret;

	errno = 0;
	ret = syscall(SYS_mbind, p + off, len, MPOL_BIND, &mask,
		      8 * sizeof(mask), flags);
	printf("  mbind(+%#lx, %#lx, bind:%d, %s) = %s\n", off, len, node,
	       flag_names(flags), result(ret));
	return ret;
}

/* Bind @p to node 0 before it is faulted in. */
static void on_node0(const char *label, char *p, unsigned long len)
{
	unsigned long mask = 1;

	if (syscall(SYS_mbind, p, len, MPOL_BIND, &mask, 8 * sizeof(mask), 0))
		note("%s: mbind: %s", label, strerror(errno));
}

/*
 * move_pages() of up to 16 pages spread over [@p, @p + @len): to @node,
 * or only asked where they are if @node is negative.
 */
static void moves(const char *p, unsigned long len, int node)
{
	void *pages[16];
	int nodes[16], status[16];
	unsigned long step, n = 0, i;
	long ret;

	step = len / 16 > PAGE ? (len / 16) & ~(PAGE - 1) : PAGE;
	for (i = 0; i < len && n < 16; i += step, n++) {
		pages[n] = (void *)(p + i);
		nodes[n] = node;
		status[n] = 99;
	}
	errno = 0;
	ret = syscall(SYS_move_pages, 0, n, pages, node < 0 ? NULL : nodes,
		      status, node < 0 ? 0 : MPOL_MF_MOVE);
	printf("  move_pages(%lu pages, %s) = %s, status", n,
	       node < 0 ? "query" : node ? "to 1" : "to 0", result(ret));
	for (i = 0; i < n; i++)
		printf(" %d", status[i]);
	printf("\n");
}

/*
 * The calls of every mapping, from node 0 where it was faulted in: STRICT
 * alone finds it misplaced for node 1 and placed for node 0; a policy
 * without a move; MOVE to node 1, MOVE|STRICT back, MOVE_ALL|STRICT to
 * node 1; where move_pages() finds it, and moves it back.
 */
static void calls(const char *label, char *p, unsigned long len)
{
	printf("= %s\n", label);
	print_numa_maps(p, len);
	mbind_to(p, 0, len, 1, MPOL_MF_STRICT);
	mbind_to(p, 0, len, 0, MPOL_MF_STRICT);
	mbind_to(p, 0, len, 1, 0);
	mbind_to(p, 0, len, 1, MPOL_MF_MOVE);
	print_numa_maps(p, len);
	mbind_to(p, 0, len, 0, MPOL_MF_MOVE | MPOL_MF_STRICT);
	print_numa_maps(p, len);
	mbind_to(p, 0, len, 1, MPOL_MF_MOVE_ALL | MPOL_MF_STRICT);
	print_numa_maps(p, len);
	moves(p, len, -1);
	moves(p, len, 0);
	print_numa_maps(p, len);
}

/*
 * The calls of a gigantic page, fewer (each move copies it): STRICT alone,
 * MOVE to node 1, MOVE_ALL|STRICT back.
 */
static void calls_gigantic(const char *label, char *p, unsigned long len)
{
	printf("= %s\n", label);
	print_numa_maps(p, len);
	mbind_to(p, 0, len, 1, MPOL_MF_STRICT);
	mbind_to(p, 0, len, 1, MPOL_MF_MOVE);
	print_numa_maps(p, len);
	mbind_to(p, 0, len, 0, MPOL_MF_MOVE_ALL | MPOL_MF_STRICT);
	print_numa_maps(p, len);
}

/* A child that maps what the parent maps until it is killed. */
static pid_t hold(char *p, unsigned long len)
{
	int fd[2];
	pid_t pid;
	char c;

	if (pipe(fd)) {
		note("pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		/* Reading faults in what fork did not copy (shared PMDs). */
		if (p)
			readall(p, len, PAGE);
		if (write(fd[1], "", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	if (pid < 0 || read(fd[0], &c, 1) != 1)
		note("fork: the child did not start");
	close(fd[0]);
	close(fd[1]);
	return pid;
}

static void unhold(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

static void anon_case(const char *label, unsigned long len, int advice,
		      void (*fault)(char *p, unsigned long len))
{
	char *p = anon(label, len, advice);

	if (!p)
		return;
	on_node0(label, p, len);
	fault(p, len);
	calls(label, p, len);
	munmap(p, len);
}

static void fault_write(char *p, unsigned long len)
{
	touch(p, len, PAGE);
}

/* The zero page, and some pages written among them. */
static void fault_read(char *p, unsigned long len)
{
	readall(p, len, PAGE);
	touch(p + len / 2, len / 4, PAGE);
}

/* Two PTE-mapped THPs: one page of each zapped. */
static void fault_thp_pte(char *p, unsigned long len)
{
	touch(p, len, PAGE);
	if (madvise(p + 64 * KB, PAGE, MADV_DONTNEED) ||
	    madvise(p + 3 * MB, 2 * PAGE, MADV_DONTNEED))
		note("thp-pte: MADV_DONTNEED: %s", strerror(errno));
}

/* Half of it swapped out. */
static void fault_swapped(char *p, unsigned long len)
{
	touch(p, len, PAGE);
	if (madvise(p, len / 2, MADV_PAGEOUT))
		note("anon-swapped: MADV_PAGEOUT: %s", strerror(errno));
}

/* The first half on node 1 already. */
static void fault_partly_moved(char *p, unsigned long len)
{
	unsigned long mask = 2;

	if (syscall(SYS_mbind, p, len / 2, MPOL_BIND, &mask, 8 * sizeof(mask),
		    0))
		note("partly-moved: mbind: %s", strerror(errno));
	touch(p, len, PAGE);
}

static void mthp_case(void)
{
	const char *ctl = "/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled";
	char *p;

	if (put(ctl, "always")) {
		note("mthp-64k: no 64K mTHP control");
		return;
	}
	p = anon("mthp-64k", 1 * MB, 0);
	if (p) {
		on_node0("mthp-64k", p, 1 * MB);
		touch(p, 1 * MB, PAGE);
		/* One page of a 64K folio replaced by a small one. */
		if (madvise(p + 64 * KB + PAGE, PAGE, MADV_DONTNEED))
			note("mthp-64k: MADV_DONTNEED: %s", strerror(errno));
		p[64 * KB + PAGE] = 1;
		calls("mthp-64k", p, 1 * MB);
		munmap(p, 1 * MB);
	}
	put(ctl, "never");
}

/*
 * Shared with a child after fork: small pages and a THP (then the parent
 * writes two pages of the THP: a THP partly CoW'd, PTE-mapped in the
 * parent); the child goes, and the calls run again.
 */
static void fork_case(const char *label, unsigned long len, int advice)
{
	char *p = anon(label, len, advice);
	pid_t pid;

	if (!p)
		return;
	on_node0(label, p, len);
	touch(p, len, PAGE);
	pid = hold(NULL, 0);
	if (advice == MADV_HUGEPAGE)
		touch(p + 1 * MB, 2 * PAGE, PAGE);
	calls(label, p, len);
	unhold(pid);
	mbind_to(p, 0, len, 0, MPOL_MF_MOVE_ALL);
	calls(label, p, len);
	munmap(p, len);
}

static void file_case(const char *label, const char *path, int shmem)
{
	unsigned long len = 512 * KB;
	char *p;
	int fd;

	fd = shmem ? memfd_create(label, 0) :
		     open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, len)) {
		note("%s: %s", label, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	p = map(label, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (!p)
		return;
	on_node0(label, p, len);
	touch(p, len / 2, PAGE);
	readall(p + len / 2, len / 4, PAGE);
	calls(label, p, len);
	munmap(p, len);
	if (!shmem)
		unlink(path);
}

/* Holes at the head, in the middle and at the tail of a range. */
static void holes_case(void)
{
	char *p = anon("holes", 1 * MB, MADV_NOHUGEPAGE);

	if (!p)
		return;
	/* [p, +256K) mapped, a hole, [+512K, +768K) mapped, a hole. */
	munmap(p + 256 * KB, 256 * KB);
	munmap(p + 768 * KB, 256 * KB);
	on_node0("holes", p, 256 * KB);
	on_node0("holes", p + 512 * KB, 256 * KB);
	touch(p, 256 * KB, PAGE);
	touch(p + 512 * KB, 256 * KB, PAGE);
	printf("= holes\n");
	mbind_to(p, 0, 768 * KB, 1, 0);
	mbind_to(p, 0, 768 * KB, 1, MPOL_MF_STRICT);
	mbind_to(p, 0, 768 * KB, 1, MPOL_MF_MOVE);
	mbind_to(p, 512 * KB, 512 * KB, 1, MPOL_MF_MOVE);
	mbind_to(p, 256 * KB, 512 * KB, 1, MPOL_MF_STRICT);
	/* Misplaced pages before a hole: the hole is found first. */
	mbind_to(p, 128 * KB, 256 * KB, 1, MPOL_MF_STRICT);
	mbind_to(p, 256 * KB, 128 * KB, 1, MPOL_MF_MOVE);
	mbind_to(p, 128 * KB, 128 * KB, 1, MPOL_MF_MOVE | MPOL_MF_STRICT);
	print_numa_maps(p, 1 * MB);
	munmap(p, 1 * MB);
}

static void hugetlb_case(const char *label, unsigned long size, int shared,
			 int forked)
{
	int log = __builtin_ctzl(size), fd = -1;
	unsigned long len = size < GB ? 2 * size : size;
	pid_t pid;
	char *p;

	if (shared) {
		fd = memfd_create(label, MFD_HUGETLB | HUGE_SHIFT(log));
		if (fd < 0 || ftruncate(fd, len)) {
			note("%s: %s", label, strerror(errno));
			if (fd >= 0)
				close(fd);
			return;
		}
	}
	p = map(label, len, PROT_READ | PROT_WRITE,
		shared ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS |
		MAP_HUGETLB | HUGE_SHIFT(log), fd, size);
	if (fd >= 0)
		close(fd);
	if (!p)
		return;
	on_node0(label, p, len);
	/* No free page of the size on node 0: SIGBUS. */
	signal(SIGBUS, on_sigbus);
	if (sigsetjmp(fault_jmp, 1)) {
		note("%s: SIGBUS faulting it in on node 0", label);
		signal(SIGBUS, SIG_DFL);
		munmap(p, len);
		return;
	}
	touch(p, len, size);
	signal(SIGBUS, SIG_DFL);
	pid = forked ? hold(p, len) : 0;
	if (size < GB)
		calls(label, p, len);
	else
		calls_gigantic(label, p, len);
	unhold(pid);
	munmap(p, len);
}

/*
 * 2M pages of a shared mapping of a whole PUD-aligned gigabyte, in this
 * process and a child: the child faults them in through the parent's PMD
 * table, which they then share (their mapcount stays 1).
 */
static void shared_pmd_case(void)
{
	const char *label = "hugetlb-2M-shared-pmd";
	pid_t pid;
	char *p;
	int fd;

	fd = memfd_create(label, MFD_HUGETLB | HUGE_SHIFT(21));
	if (fd < 0 || ftruncate(fd, GB)) {
		note("%s: %s", label, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	p = map(label, GB, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
		fd, GB);
	close(fd);
	if (!p)
		return;
	on_node0(label, p, GB);
	touch(p, 4 * MB, 2 * MB);
	pid = hold(p, 4 * MB);
	/* All of it: splitting the VMA would unshare the table. */
	calls(label, p, GB);
	unhold(pid);
	munmap(p, GB);
}

/* The VDSO (reserved pages) and, where there is one, its data pages. */
static void special_case(const char *name)
{
	char line[512], label[32];
	unsigned long start, end;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, name) ||
		    sscanf(line, "%lx-%lx", &start, &end) != 2)
			continue;
		snprintf(label, sizeof(label), "special %s", name);
		printf("= %s\n", label);
		mbind_to((char *)start, 0, end - start, 1, MPOL_MF_STRICT);
		mbind_to((char *)start, 0, end - start, 0, MPOL_MF_STRICT);
		mbind_to((char *)start, 0, end - start, 1,
			 MPOL_MF_MOVE | MPOL_MF_STRICT);
		moves((char *)start, end - start, -1);
	}
	fclose(f);
}

#ifdef __x86_64__
/* A private pfn mapping of the BIOS area, two of its pages CoW'd. */
static void pfnmap_case(void)
{
	int fd = open("/dev/mem", O_RDONLY);
	char *p;

	if (fd < 0) {
		note("pfnmap: /dev/mem: %s", strerror(errno));
		return;
	}
	p = mmap(NULL, 64 * KB, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
		 0xe0000);
	close(fd);
	if (p == MAP_FAILED) {
		note("pfnmap: mmap: %s", strerror(errno));
		return;
	}
	readall(p, 64 * KB, PAGE);
	on_node0("pfnmap", p, 64 * KB);
	touch(p + 4 * PAGE, 2 * PAGE, PAGE);
	printf("= pfnmap\n");
	mbind_to(p, 0, 64 * KB, 1, MPOL_MF_STRICT);
	mbind_to(p, 0, 64 * KB, 1, MPOL_MF_MOVE);
	mbind_to(p, 0, 64 * KB, 1, MPOL_MF_MOVE | MPOL_MF_STRICT);
	mbind_to(p, 0, 64 * KB, 0, MPOL_MF_STRICT);
	print_numa_maps(p, 64 * KB);
	munmap(p, 64 * KB);
}
#endif

/* migrate_pages() of the whole process, with some mappings kept. */
static void migrate_case(void)
{
	unsigned long from = 1, to = 2;
	char *small = anon("migrate-small", 256 * KB, MADV_NOHUGEPAGE);
	char *thp = anon("migrate-thp", 4 * MB, MADV_HUGEPAGE);
	long ret;

	if (!small || !thp)
		return;
	on_node0("migrate-small", small, 256 * KB);
	on_node0("migrate-thp", thp, 4 * MB);
	touch(small, 256 * KB, PAGE);
	touch(thp, 4 * MB, PAGE);
	printf("= migrate_pages\n");
	errno = 0;
	ret = syscall(SYS_migrate_pages, 0, 8 * sizeof(from), &from, &to);
	printf("  migrate_pages(0, {0}, {1}) = %s\n", result(ret));
	print_numa_maps(small, 256 * KB);
	print_numa_maps(thp, 4 * MB);
	errno = 0;
	ret = syscall(SYS_migrate_pages, 0, 8 * sizeof(from), &to, &from);
	printf("  migrate_pages(0, {1}, {0}) = %s\n", result(ret));
	print_numa_maps(small, 256 * KB);
	print_numa_maps(thp, 4 * MB);
	munmap(small, 256 * KB);
	munmap(thp, 4 * MB);
}

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
	return strtoul(buf, NULL, 10) > 0;
}

/* /sys/devices/system/node/node@node/hugepages/hugepages-@kb/@what. */
static long pool(int node, unsigned long kb, const char *what, long set)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path),
		 "/sys/devices/system/node/node%d/hugepages/hugepages-%lukB/%s",
		 node, kb, what);
	if (set >= 0) {
		snprintf(buf, sizeof(buf), "%ld", set);
		return put(path, buf);
	}
	return get_num(path);
}

/*
 * Make sure that each node has @want free hugetlb pages of @kb kB (boot
 * may have put all the gigantic ones on one node), and print how many
 * there are.  Returns the pool sizes to restore afterwards in @nr.
 */
static void pools(unsigned long kb, long want, long nr[2])
{
	long free;
	int node;

	printf("= hugetlb %lukB free:", kb);
	for (node = 0; node < 2; node++) {
		nr[node] = pool(node, kb, "nr_hugepages", -1);
		free = pool(node, kb, "free_hugepages", -1);
		if (free >= 0 && free < want)
			pool(node, kb, "nr_hugepages", nr[node] + want - free);
		printf(" node%d %ld", node, pool(node, kb, "free_hugepages", -1));
	}
	printf("\n");
}

int main(void)
{
	static const unsigned long sizes[] = { 64 * KB, 2 * MB, 32 * MB, GB };
	char label[64], size[16];
	unsigned int i;
	long nr[2];

	/* Line by line: a line cut short shows where a crash happened. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("\nMPCHECK: BEGIN\n");

	anon_case("anon-small", 256 * KB, MADV_NOHUGEPAGE, fault_write);
	anon_case("zero-page", 256 * KB, MADV_NOHUGEPAGE, fault_read);
	anon_case("huge-zero-page", 4 * MB, MADV_HUGEPAGE, fault_read);
	anon_case("thp-pmd", 4 * MB, MADV_HUGEPAGE, fault_write);
	anon_case("thp-pte", 4 * MB, MADV_HUGEPAGE, fault_thp_pte);
	mthp_case();
	anon_case("anon-swapped", 256 * KB, MADV_NOHUGEPAGE, fault_swapped);
	anon_case("partly-moved", 512 * KB, MADV_NOHUGEPAGE,
		  fault_partly_moved);
	fork_case("anon-forked", 256 * KB, MADV_NOHUGEPAGE);
	fork_case("thp-forked-cow", 2 * MB, MADV_HUGEPAGE);
	file_case("shmem", NULL, 1);
	/* Page cache that is not shmem: a file of a ramfs. */
	mkdir("/mnt", 0755);
	if (mount("none", "/mnt", "ramfs", 0, NULL))
		note("page-cache: mount ramfs: %s", strerror(errno));
	else
		file_case("page-cache", "/mnt/mpcheck-file", 0);
	holes_case();
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		if (!have_huge(sizes[i] / KB))
			continue;
		pools(sizes[i] / KB, sizes[i] < GB ? 2 : 1, nr);
		snprintf(size, sizeof(size), "%lu%s",
			 sizes[i] < MB ? sizes[i] / KB : sizes[i] < GB ?
			 sizes[i] / MB : sizes[i] / GB,
			 sizes[i] < MB ? "K" : sizes[i] < GB ? "M" : "G");
		snprintf(label, sizeof(label), "hugetlb-%s-private", size);
		hugetlb_case(label, sizes[i], 0, 0);
		/* Copying a gigantic page takes a minute under TCG: once. */
		if (sizes[i] < GB) {
			snprintf(label, sizeof(label), "hugetlb-%s-shared",
				 size);
			hugetlb_case(label, sizes[i], 1, 0);
			snprintf(label, sizeof(label),
				 "hugetlb-%s-private-forked", size);
			hugetlb_case(label, sizes[i], 0, 1);
		}
		pool(0, sizes[i] / KB, "nr_hugepages", nr[0]);
		pool(1, sizes[i] / KB, "nr_hugepages", nr[1]);
	}
	if (have_huge(2048))
		shared_pmd_case();
	special_case("[vdso]");
	special_case("[vvar]");
#ifdef __x86_64__
	pfnmap_case();
#endif
	migrate_case();

	printf("MPCHECK: END\n");
	fflush(stdout);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * mfcheck: the memory failure check of `make compare` (harness/compare.sh),
 * run by /init last: the pages it poisons are lost to the guest.
 *
 * MADV_HWPOISON poisons the page at an address as a machine check would,
 * with the process that touched it as the one to be told.  The first time,
 * memory_failure() unmaps the page (rmap) and may send SIGBUS; a read of
 * the address then faults with SIGBUS, and MADV_HWPOISON of it again fails
 * in get_user_pages() before memory_failure() (small and hugetlb pages).
 * A page that is poisoned already and still mapped (a THP that could not
 * be split: here, pinned by a pipe) makes memory_failure() walk the page
 * tables of the process to find where the page is mapped, and send SIGBUS
 * for that address (kill_accessing_process()): that walk is the one the
 * series converts, and only the "again (walk)" steps reach it.  Its hugetlb
 * and hwpoison-entry cases need a machine check: KUnit tests them.
 * mfcheck poisons small pages, THPs (split, and pinned: mapped by a PMD,
 * by PTEs, a 64K mTHP, a shmem THP mapped twice) and hugetlb pages of every
 * size, each in a child process of its own at a fixed address, and prints
 * what madvise() returns and what SIGBUS says: si_code, si_addr and
 * si_addr_lsb.  A walk's SIGBUS is also checked against the address it
 * must name ("as expected"; expect.awk requires it of the patched kernel).
 *
 * Lines: "MFCHECK: ..." for the harness, "case ..." and its steps, "!" for
 * a step that could not be set up.  They go to a file first, and to the
 * console at the end: memory failure's own messages (with pfns, which
 * differ between kernels) reach the console while a case runs, and would
 * land between them.
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
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

#ifndef MADV_HWPOISON
#define MADV_HWPOISON		100
#endif
#ifndef BUS_MCEERR_AR
#define BUS_MCEERR_AR		4
#define BUS_MCEERR_AO		5
#endif
#define THP			"/sys/kernel/mm/transparent_hugepage/"

/* Each case maps at its own gigabyte, from here on. */
#define BASE			(256 * GB)

static sigjmp_buf fault_jmp;
static volatile sig_atomic_t jmp_armed;
static volatile sig_atomic_t sigbus_seen;
static volatile int sigbus_code, sigbus_lsb;
static void *volatile sigbus_addr;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	sigbus_seen = 1;
	sigbus_code = si->si_code;
	sigbus_addr = si->si_addr;
	sigbus_lsb = si->si_addr_lsb;
	if (jmp_armed)
		siglongjmp(fault_jmp, 1);
}

/* What SIGBUS said since the last call, or that none came. */
static void print_sigbus(const char *expected)
{
	if (!sigbus_seen) {
		printf("; no SIGBUS\n");
		return;
	}
	printf("; SIGBUS %s at %p lsb %d",
	       sigbus_code == BUS_MCEERR_AR ? "BUS_MCEERR_AR" :
	       sigbus_code == BUS_MCEERR_AO ? "BUS_MCEERR_AO" : "other",
	       sigbus_addr, sigbus_lsb);
	if (expected)
		printf(", %s", sigbus_addr == expected ? "as expected" :
		       "NOT AS EXPECTED");
	printf("\n");
	sigbus_seen = 0;
}

/*
 * MADV_HWPOISON of the page at @p; @expected, if set, is where the SIGBUS
 * of a walk must say the page is mapped.
 */
static void poison(const char *what, char *p, char *expected)
{
	int ret;

	sigbus_seen = 0;
	ret = madvise(p, PAGE, MADV_HWPOISON);
	printf("  %s: madvise(%p, MADV_HWPOISON) = %d", what, (void *)p, ret);
	if (ret)
		printf(" %s", strerror(errno));
	print_sigbus(expected);
}

static void read_at(const char *what, char *p)
{
	sigbus_seen = 0;
	jmp_armed = 1;
	if (!sigsetjmp(fault_jmp, 1))
		(void)*(volatile char *)p;
	jmp_armed = 0;
	printf("  %s: read %p", what, (void *)p);
	print_sigbus(NULL);
}

/* Map @len bytes at @addr (fixed), advise, write every page. */
static char *map(unsigned long addr, unsigned long len, int flags, int fd,
		 int advice)
{
	char *p = mmap((void *)addr, len, PROT_READ | PROT_WRITE,
		       flags | MAP_FIXED_NOREPLACE, fd, 0);
	unsigned long i;

	if (p == MAP_FAILED) {
		note("mmap %#lx: %s", addr, strerror(errno));
		return NULL;
	}
	if (advice && madvise(p, len, advice))
		note("madvise %d: %s", advice, strerror(errno));
	for (i = 0; i < len; i += PAGE)
		p[i] = 1;
	return p;
}

/* Whether the page at @p is one of a THP (of any size), from kpageflags. */
static int is_thp(char *p)
{
	uint64_t ent = 0, flags = 0;
	int fd, ok;

	fd = open("/proc/self/pagemap", O_RDONLY);
	ok = fd >= 0 && pread(fd, &ent, 8, (unsigned long)p / PAGE * 8) == 8;
	close(fd);
	fd = open("/proc/kpageflags", O_RDONLY);
	ok = ok && fd >= 0 &&
	     pread(fd, &flags, 8, (ent & ((1ULL << 55) - 1)) * 8) == 8;
	close(fd);
	return ok && (flags >> 22 & 1);		/* KPF_THP */
}

/*
 * Pin the page at @p with a reference that a pipe holds: a THP so pinned
 * cannot be split, and stays mapped when poisoned.
 */
static void pin(char *p)
{
	struct iovec iov = { .iov_base = p, .iov_len = PAGE };
	int fds[2];

	if (!is_thp(p))
		note("%p: not a THP", (void *)p);
	if (pipe(fds) || vmsplice(fds[1], &iov, 1, 0) != (ssize_t)PAGE)
		note("vmsplice: %s", strerror(errno));
}

/*
 * The walk: @p's page, in a THP that cannot be split, poisoned once (the
 * split fails, the THP stays mapped) and again (the walk finds @expected).
 */
static void poison_pinned(char *p, char *expected)
{
	poison("first", p, NULL);
	poison("again (walk)", p, expected);
	read_at("still mapped", p);
}

static void case_small(char *base)
{
	char *p = map((unsigned long)base, 4 * PAGE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, MADV_NOHUGEPAGE);

	if (!p)
		return;
	poison("first", p + 2 * PAGE, NULL);
	read_at("poisoned", p + 2 * PAGE);
	read_at("beside", p + PAGE);
	poison("again", p + 2 * PAGE, NULL);
}

/* A PMD-sized anonymous THP at @base, written. */
static char *map_thp(char *base)
{
	char *p = map((unsigned long)base, 2 * MB,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, MADV_HUGEPAGE);

	if (p && !is_thp(p))
		note("%p: not a THP", (void *)p);
	return p;
}

static void case_thp(char *base)
{
	char *p = map_thp(base);

	if (!p)
		return;
	poison("first", p + 300 * PAGE, NULL);
	read_at("poisoned", p + 300 * PAGE);
	read_at("beside", p + 301 * PAGE);
}

static void case_thp_pinned(char *base)
{
	char *p = map_thp(base);

	if (!p)
		return;
	pin(p);
	poison_pinned(p + 300 * PAGE, p + 300 * PAGE);
	poison("another page", p + 5 * PAGE, NULL);
}

/* A THP mapped by PTEs: mprotect() of its first page split the PMD. */
static void case_thp_pte_pinned(char *base)
{
	char *p = map_thp(base);

	if (!p)
		return;
	if (mprotect(p, PAGE, PROT_READ))
		note("mprotect: %s", strerror(errno));
	pin(p + PAGE);
	poison_pinned(p + 300 * PAGE, p + 300 * PAGE);
	poison_pinned(p + 511 * PAGE, p + 511 * PAGE);
}

static void case_mthp_pinned(char *base)
{
	char *p;

	if (put(THP "hugepages-64kB/enabled", "always")) {
		note("64K mTHP: %s", strerror(errno));
		return;
	}
	/* Not a whole PMD: 64K folios, never a PMD THP. */
	p = map((unsigned long)base + 64 * KB, 256 * KB,
		MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	put(THP "hugepages-64kB/enabled", "never");
	if (!p)
		return;
	pin(p + 64 * KB);
	poison_pinned(p + 64 * KB + 5 * PAGE, p + 64 * KB + 5 * PAGE);
}

/*
 * A shmem THP mapped twice: poisoned through the second mapping, it is
 * found at the first, the lower address.
 */
static void case_shmem_thp_twice(char *base)
{
	int fd = memfd_create("mfcheck", 0);
	char *p, *q;

	if (fd < 0 || ftruncate(fd, 2 * MB)) {
		note("memfd: %s", strerror(errno));
		return;
	}
	if (put(THP "shmem_enabled", "advise"))
		note("shmem_enabled: %s", strerror(errno));
	p = map((unsigned long)base, 2 * MB, MAP_SHARED, fd, MADV_HUGEPAGE);
	q = map((unsigned long)base + 2 * MB, 2 * MB, MAP_SHARED, fd,
		MADV_HUGEPAGE);
	if (!p || !q)
		return;
	pin(q);
	poison_pinned(q + 300 * PAGE, p + 300 * PAGE);
}

static unsigned long hugetlb_shift;

/* A hugetlb page of 1 << hugetlb_shift bytes, poisoned in its middle. */
static void case_hugetlb(char *base)
{
	unsigned long size = 1UL << hugetlb_shift;
	char *p = map((unsigned long)base, size,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
		      HUGE_SHIFT(hugetlb_shift), -1, 0);

	if (!p)
		return;
	poison("first", p + size / 2 + 3 * PAGE, NULL);
	read_at("poisoned", p + size / 2 + 3 * PAGE);
	read_at("same hugetlb page", p);
	poison("again", p + size / 2 + 3 * PAGE, NULL);
}

static unsigned long next_slot = BASE;
static pid_t children[16];
static unsigned int nr_children;

/*
 * Run @fn in a child process, at the next slot.  The child stays until the
 * end, with what it poisoned: 6.12 frees a large folio with a poisoned page
 * back to the page allocator whole, and the next case could get it (with
 * DEBUG_VM, whose checks skip such pages, it would not: the two kernels of
 * `make compare` would differ).
 */
static void run(const char *name, void (*fn)(char *))
{
	char *base = (char *)next_slot;
	int done[2], status;
	char c;
	pid_t pid;

	next_slot += 4 * GB;
	printf("case %s\n", name);
	if (pipe(done) || nr_children == ARRAY_SIZE(children)) {
		note("pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid < 0) {
		note("fork: %s", strerror(errno));
		return;
	}
	if (!pid) {
		close(done[0]);
		fn(base);
		if (write(done[1], "", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(done[1]);
	if (read(done[0], &c, 1) != 1 && waitpid(pid, &status, 0) == pid)
		printf("  child: status %#x\n", status);
	else
		children[nr_children++] = pid;
	close(done[0]);
}

/* End the children, which hold what the cases poisoned. */
static void end_children(void)
{
	unsigned int i;

	for (i = 0; i < nr_children; i++) {
		kill(children[i], SIGKILL);
		waitpid(children[i], NULL, 0);
	}
}

/* Send what was printed to @path to @console, and stdout back there. */
static void flush_to(int console, const char *path)
{
	char buf[4096];
	ssize_t n;
	int fd;

	dup2(console, STDOUT_FILENO);
	fd = open(path, O_RDONLY);
	while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
		if (write(STDOUT_FILENO, buf, n) != n)
			break;
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	static const unsigned int shifts[] = { 16, 21, 25, 30 };
	static const char out[] = "/tmp/mfcheck.out";
	struct sigaction sa = { .sa_sigaction = on_sigbus,
				.sa_flags = SA_SIGINFO | SA_NODEFER };
	char path[128], name[32];
	int console, fd;
	unsigned int i;

	setvbuf(stdout, NULL, _IONBF, 0);
	console = dup(STDOUT_FILENO);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (console < 0 || fd < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		perror("mfcheck: output file");
		return 1;
	}
	close(fd);
	printf("MFCHECK: BEGIN\n");
	if (sigaction(SIGBUS, &sa, NULL))
		note("sigaction: %s", strerror(errno));
	run("small", case_small);
	run("thp", case_thp);
	run("thp-pinned", case_thp_pinned);
	run("thp-pte-pinned", case_thp_pte_pinned);
	run("mthp64K-pinned", case_mthp_pinned);
	run("shmem-thp-twice", case_shmem_thp_twice);
	for (i = 0; i < ARRAY_SIZE(shifts); i++) {
		snprintf(path, sizeof(path),
			 "/sys/kernel/mm/hugepages/hugepages-%lukB/free_hugepages",
			 1UL << (shifts[i] - 10));
		if (get_num(path) <= 0)
			continue;
		hugetlb_shift = shifts[i];
		snprintf(name, sizeof(name), "hugetlb%luK",
			 1UL << (shifts[i] - 10));
		run(name, case_hugetlb);
	}
	printf("MFCHECK: END\n");
	flush_to(console, out);
	end_children();
	return 0;
}

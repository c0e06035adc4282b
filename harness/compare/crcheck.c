// SPDX-License-Identifier: GPL-2.0
/*
 * crcheck: CRIU (Debian's criu 3.17) checkpoints and restores a process
 * that keeps writing into its memory, for `make compare`
 * (harness/compare.sh); run by /init after dmcheck.
 *
 * The victim (this program with the argument "victim", a session of its
 * own) maps 2M of small pages, 1M of 64K mTHPs and 4M of PMD-mapped THPs
 * and writes whole pages, one at a time, in a pseudo-random order: each
 * word of page p written for the g-th time holds (g, p, word), and gen[p]
 * says which g the page holds.  Where the kernel has soft-dirty tracking
 * (x86_64), crcheck pre-dumps it twice with --track-mem, as live migration
 * does: the first pre-dump saves every page and clears the soft-dirty bits
 * (clear_refs 4); the second and the dump save only the pages pagemap
 * reports soft-dirty since, and take the others from the images before.
 * The dump kills the victim; the restore starts it again from the images,
 * and the victim writes on.  Then SIGUSR1 makes it check every byte of its
 * pages against gen[] (between two writes: the write the dump froze half
 * done was finished after the restore) and say how many pages differ.  A
 * page that was written but reported clean is restored as it was before:
 * it differs from gen[], unless gen[] is as old as it (every write lost
 * since a pre-dump: a consistent, older state), which the count of writes
 * shows: crcheck reads it (/proc/PID/mem) just before the dump, and
 * the restored victim must have made at least as many.  Without
 * soft-dirty tracking (arm64) the dump saves every present page, with no
 * pre-dump.
 *
 * Lines between "CRCHECK: BEGIN" and "CRCHECK: END" are compared between
 * the kernels; the "crcheck info:" line after them (how many pages each
 * image holds, which depends on timing) is not.  "!" marks a step that
 * failed, with the end of CRIU's log.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define THP		"/sys/kernel/mm/transparent_hugepage/"
#define DIR		"/tmp/cr"
#define SMALL_PAGES	512		/* 2M of small pages */
#define MTHP_PAGES	256		/* 1M of 64K mTHPs */
#define THP_PAGES	1024		/* two PMD-sized THPs */
#define NR_PAGES	(SMALL_PAGES + MTHP_PAGES + THP_PAGES)
#define WORDS		(PAGE / sizeof(uint64_t))

/* The victim's state: restored with its memory. */
static char *small, *mthp, *thp;
static uint32_t *gen;
static int check_now;			/* set by SIGUSR1 */
static unsigned long writes;		/* pages written since the start */

static uint64_t *page_of(int p)
{
	if (p < SMALL_PAGES)
		return (uint64_t *)(small + p * PAGE);
	p -= SMALL_PAGES;
	if (p < MTHP_PAGES)
		return (uint64_t *)(mthp + p * PAGE);
	return (uint64_t *)(thp + (p - MTHP_PAGES) * PAGE);
}

static uint64_t word(uint32_t g, int p, unsigned int i)
{
	return (uint64_t)g << 32 | (uint64_t)p << 12 | i;
}

/* Write page @p for the next time: page first, then gen[p]. */
static void write_page(int p)
{
	uint64_t *w = page_of(p);
	uint32_t g = gen[p] + 1;
	unsigned int i;

	/* In program order: CRIU may freeze the victim anywhere here. */
	for (i = 0; i < WORDS; i++)
		w[i] = word(g, p, i);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&gen[p], g, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&writes, writes + 1, __ATOMIC_RELAXED);
}

/*
 * Whether page @p holds what gen[] says.  Called between writes: a write
 * that the freeze cut in two was finished after the restore.
 */
static int page_intact(int p)
{
	uint64_t *w = page_of(p);
	unsigned int i;

	for (i = 0; i < WORDS; i++)
		if (w[i] != word(gen[p], p, i))
			return 0;
	return 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	__atomic_store_n(&check_now, 1, __ATOMIC_RELAXED);
}

static void *map(size_t size, size_t align, int advice)
{
	char *p = mmap(NULL, size + align, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (align)
		p = (char *)(((uintptr_t)p + align - 1) & ~(align - 1));
	madvise(p, size, advice);
	return p;
}

/*
 * The victim: map, write every page once, say so on fd 3 (then closed:
 * nothing of the parent's is left to dump), write pages until SIGUSR1,
 * then check them all and exit 0 if every page is intact.
 */
static int victim(void)
{
	static const char *const names[] = { "small", "mthp", "thp" };
	int bad[3] = { 0, 0, 0 }, p, region;
	uint64_t x = 88172645463325252ULL;
	struct timespec pause = { 0, 200000 };

	signal(SIGUSR1, on_usr1);
	small = map(SMALL_PAGES * PAGE, 0, MADV_NOHUGEPAGE);
	mthp = map(MTHP_PAGES * PAGE, 64 * KB, MADV_NORMAL);
	thp = map(THP_PAGES * PAGE, 2 * MB, MADV_HUGEPAGE);
	gen = map(NR_PAGES * sizeof(*gen), 0, MADV_NOHUGEPAGE);
	if (!small || !mthp || !thp || !gen)
		return 2;
	for (p = 0; p < NR_PAGES; p++)
		write_page(p);
	if (write(3, "r", 1) != 1)
		return 2;
	close(3);
	while (!__atomic_load_n(&check_now, __ATOMIC_RELAXED)) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		write_page(x % NR_PAGES);
		nanosleep(&pause, NULL);
	}
	for (p = 0; p < NR_PAGES; p++) {
		region = p < SMALL_PAGES ? 0 :
			 p < SMALL_PAGES + MTHP_PAGES ? 1 : 2;
		bad[region] += !page_intact(p);
	}
	printf("writes %lu\n", writes);
	for (region = 0; region < 3; region++)
		printf("%s: %d pages differ\n", names[region], bad[region]);
	return bad[0] || bad[1] || bad[2];
}

/* The end of CRIU's log @log, after a "!" line. */
static void print_log_tail(const char *log)
{
	char line[512];
	long n = 0, skip;
	FILE *f = fopen(log, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		n++;
	rewind(f);
	for (skip = n - 15; skip > 0 && fgets(line, sizeof(line), f); skip--)
		;
	while (fgets(line, sizeof(line), f))
		printf("  | %s", line);
	fclose(f);
}

/*
 * Run criu with the arguments after @log (NULL-terminated), logging to
 * @log; its exit status, -1 if none.  Said as "@step: done", or with "!"
 * and the end of the log; nothing said for a NULL @step (a question).
 */
static int run_criu(const char *step, const char *log, ...)
{
	static char *const envp[] = { "LD_LIBRARY_PATH=/lib", "PATH=/bin",
				      NULL };
	char *argv[16] = { "/bin/criu", "-o", (char *)log, "-v4" };
	posix_spawn_file_actions_t fa;
	int i = 4, status, n;
	va_list ap;
	pid_t pid;

	va_start(ap, log);
	while (i < (int)ARRAY_SIZE(argv) - 1 &&
	       (argv[i] = va_arg(ap, char *)))
		i++;
	va_end(ap);
	argv[i] = NULL;
	/* Its messages (libnftables' among them) to a file. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, DIR "/criu.out",
					 O_WRONLY | O_CREAT | O_APPEND, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	n = posix_spawn(&pid, argv[0], &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (n) {
		printf("! %s: %s\n", step ? step : argv[4], strerror(n));
		return -1;
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		printf("! %s: criu did not exit\n", step ? step : argv[4]);
		return -1;
	}
	n = WEXITSTATUS(status);
	if (!step)
		return n;
	if (n) {
		printf("! %s: criu exited with status %d\n", step, n);
		print_log_tail(log);
	} else {
		printf("%s: done\n", step);
	}
	return n;
}

/*
 * The victim's large folios, as smaps counts them: its PMD-mapped THPs
 * (AnonHugePages) and, through the 64K folios' count of allocations at
 * fault, its mTHPs (@mthp_before: that count before the victim started).
 */
static void print_layout(pid_t pid, long mthp_before)
{
	long kb, thp_kb = 0, mthp;
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			thp_kb += kb;
	if (f)
		fclose(f);
	mthp = get_num(THP "hugepages-64kB/stats/anon_fault_alloc");
	printf("victim: %ld kB of PMD THPs, %ld 64K mTHPs\n", thp_kb,
	       mthp - mthp_before);
}

/* How many pages the images of directory @dir hold. */
static long image_pages(const char *dir)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "%s/pages-1.img", dir);
	return stat(path, &st) ? -1 : (long)(st.st_size / PAGE);
}

/* Bring the loopback device up: CRIU binds a TCP socket to 127.0.0.1. */
static void loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		printf("! loopback: %s\n", strerror(errno));
	} else {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			printf("! loopback up: %s\n", strerror(errno));
	}
	if (fd >= 0)
		close(fd);
}

static void settle(void)
{
	struct timespec t = { 0, 300000000 };

	nanosleep(&t, NULL);
}

/*
 * Start the victim: a child in a session of its own (nothing of ours for
 * CRIU to dump: /dev/null, a file of its own, no terminal), its pages
 * written once when this returns.  Its pid, or -1.
 */
static pid_t start_victim(void)
{
	int ready[2], fd, rc;
	char c;
	pid_t pid;

	if (pipe(ready))
		return -1;
	pid = fork();
	if (pid == 0) {
		setsid();
		close(ready[0]);
		if (ready[1] != 3) {
			dup2(ready[1], 3);
			close(ready[1]);
		}
		fd = open(DIR "/victim.out", O_WRONLY | O_CREAT | O_TRUNC,
			  0644);
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
		fd = open("/dev/null", O_RDONLY);
		dup2(fd, 0);
		close(fd);
		execl("/proc/self/exe", "crcheck", "victim", NULL);
		_exit(127);
	}
	close(ready[1]);
	rc = pid < 0 ? -1 : read(ready[0], &c, 1);
	close(ready[0]);
	if (rc == 1)
		return pid;
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return -1;
}

/*
 * How many pages the victim @pid has written so far, or 0: its counter,
 * read through /proc/PID/mem at the address of ours (the same program).
 */
static unsigned long victim_writes(pid_t pid)
{
	unsigned long n = 0;
	char path[32];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0 || pread(fd, &n, sizeof(n), (off_t)(uintptr_t)&writes) !=
		      sizeof(n))
		printf("! %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return n;
}

/*
 * Pre-dump the victim @pid twice if the kernel tracks soft-dirty pages
 * (@tracked), then dump it, which kills it; 0 if every step succeeded.
 * *@before: how many pages it had written just before the dump froze it.
 */
static int checkpoint(pid_t pid, int tracked, unsigned long *before)
{
	char pid_s[16];

	snprintf(pid_s, sizeof(pid_s), "%d", (int)pid);
	if (!tracked) {
		*before = victim_writes(pid);
		return run_criu("criu dump", DIR "/3.log", "dump", "-t", pid_s,
				"-D", DIR "/3", NULL);
	}
	settle();
	if (run_criu("criu pre-dump 1", DIR "/1.log", "pre-dump", "-t", pid_s,
		     "-D", DIR "/1", "--track-mem", NULL))
		return -1;
	settle();
	if (run_criu("criu pre-dump 2", DIR "/2.log", "pre-dump", "-t", pid_s,
		     "-D", DIR "/2", "--prev-images-dir", "../1",
		     "--track-mem", NULL))
		return -1;
	settle();
	*before = victim_writes(pid);
	return run_criu("criu dump", DIR "/3.log", "dump", "-t", pid_s, "-D",
			DIR "/3", "--prev-images-dir", "../2", "--track-mem",
			NULL);
}

/*
 * Restore the victim @pid from the dump, let it write on, have it check
 * its pages, and print what it says; its count of writes must not have
 * gone back below @before, what it had written before the dump (memory
 * restored as it was at a pre-dump would be consistent, and old).
 */
static void restore_and_check(pid_t pid, unsigned long before)
{
	unsigned long after;
	char line[256];
	int status;
	FILE *f;

	/* The restored victim comes back as our child (restore -d). */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (run_criu("criu restore", DIR "/restore.log", "restore", "-D",
		     DIR "/3", "-d", NULL))
		return;
	settle();
	kill(pid, SIGUSR1);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		printf("! the restored victim did not exit\n");
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	} else {
		printf("restored victim exited with status %d\n",
		       WEXITSTATUS(status));
	}
	f = fopen(DIR "/victim.out", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "writes %lu", &after) != 1)
			printf("%s", line);
		else if (after < before)
			printf("! the restored victim has %lu writes, %lu before the dump\n",
			       after, before);
		else
			printf("restored victim kept its writes\n");
	}
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	char info[128] = "";
	unsigned long before;
	long mthp_before;
	int tracked, status;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "victim"))
		return victim();

	setvbuf(stdout, NULL, _IONBF, 0);
	printf("CRCHECK: BEGIN\n");
	if (access("/bin/criu", X_OK)) {
		printf("! no /bin/criu\n");
		goto end;
	}
	loopback_up();
	mkdir(DIR, 0755);
	mkdir(DIR "/1", 0755);
	mkdir(DIR "/2", 0755);
	mkdir(DIR "/3", 0755);
	tracked = run_criu(NULL, DIR "/check.log", "check", "--feature",
			   "mem_dirty_track", NULL) == 0;
	printf("soft-dirty tracking: %s\n", tracked ? "yes" : "no");

	mthp_before = get_num(THP "hugepages-64kB/stats/anon_fault_alloc");
	put(THP "hugepages-64kB/enabled", "always");
	pid = start_victim();
	put(THP "hugepages-64kB/enabled", "never");
	if (pid < 0) {
		printf("! the victim did not start\n");
		goto end;
	}
	print_layout(pid, mthp_before);
	if (checkpoint(pid, tracked, &before)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto end;
	}
	/* The dump killed the victim: its pid is free once reaped. */
	if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status))
		printf("! the victim did not die in the dump\n");
	snprintf(info, sizeof(info),
		 "crcheck info: pages in the images: %ld %ld %ld\n",
		 image_pages(DIR "/1"), image_pages(DIR "/2"),
		 image_pages(DIR "/3"));
	restore_and_check(pid, before);
end:
	printf("CRCHECK: END\n%s", info);
	return 0;
}

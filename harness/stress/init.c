// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the `make stress` guest (harness/stress.sh): set the machine up
 * for memory churn (swap on zram, THP "always" at every size, khugepaged
 * scanning fast), then run, for the seconds of "stress.time=" on the kernel
 * command line, at once:
 *
 * - stress-ng's memory stressors (/bin/stress-ng, Debian's, with its
 *   libraries), and its procfs stressor;
 * - /bin/pmstress, the reader that checks what /proc and mincore() say;
 * - trinity (/bin/trinity), as the unprivileged user 65534, limited to the
 *   mm syscalls and to reads and ioctls of /proc/self files.
 *
 * Before them, it makes the warning that 6.12 itself prints under this
 * load happen once, between the lines "STRESS: stock warning: begin" and
 * "STRESS: stock warning: end": see stock_warning().
 *
 * Each program's output goes to the console; so do the lines of the
 * summary, "STRESS: ...".  Then "init: done" and power off.
 */
#define _GNU_SOURCE
#include <linux/userfaultfd.h>
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "../compare/guest.h"

#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC	0x8000	/* bit 15 */
#endif

#define THP		"/sys/kernel/mm/transparent_hugepage/"
#define KHUGEPAGED	THP "khugepaged/"

static char *const envp[] = {
	"PATH=/bin", "HOME=/tmp", "LD_LIBRARY_PATH=/lib", NULL,
};

static long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/*
 * Start @argv as @uid (0: root) at @nice, in its own process group, in
 * /tmp/@dir, reading /dev/null, writing to the console or, given @out, to
 * that file of the directory.
 */
static pid_t start(char *const *argv, uid_t uid, int nice, const char *dir,
		   const char *out)
{
	char path[64];
	pid_t pid;
	int fd;

	snprintf(path, sizeof(path), "/tmp/%s", dir);
	mkdir(path, 0777);
	if (chown(path, uid, uid))
		printf("init: chown %s: %s\n", path, strerror(errno));
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		setpriority(PRIO_PROCESS, 0, nice);
		if (chdir(path) || (uid && (setgid(uid) || setuid(uid))))
			_exit(126);
		fd = open("/dev/null", O_RDONLY);
		dup2(fd, 0);
		if (out) {
			fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execve(argv[0], argv, envp);
		printf("init: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		printf("init: fork: %s\n", strerror(errno));
	return pid;
}

/*
 * Wait for @pid until @deadline (CLOCK_MONOTONIC seconds); then SIGINT,
 * and SIGKILL a minute later.
 */
static void finish(pid_t pid, const char *name, long deadline)
{
	bool intr = false;
	int status;

	while (pid > 0) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			if (WIFEXITED(status))
				printf("STRESS: %s exit %d\n", name,
				       WEXITSTATUS(status));
			else
				printf("STRESS: %s signal %d\n", name,
				       WTERMSIG(status));
			break;
		}
		if (now() >= deadline && !intr) {
			printf("STRESS: %s still running: SIGINT\n", name);
			kill(-pid, SIGINT);
			intr = true;
		}
		if (now() >= deadline + 60) {
			printf("STRESS: %s still running: SIGKILL\n", name);
			kill(-pid, SIGKILL);
			deadline = now();
		}
		sleep(1);
	}
	if (pid > 0)
		kill(-pid, SIGKILL);
}

/* The last @n lines of the file @path, each after @prefix. */
static void tail(const char *path, const char *prefix, int n)
{
	static char buf[1 << 16];
	char *p, *lines[64];
	int fd, nr = 0, i;
	ssize_t len;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	/* Its end: the last 64K. */
	lseek(fd, -(off_t)(sizeof(buf) - 1), SEEK_END);
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return;
	buf[len] = 0;
	for (p = strtok(buf, "\n"); p; p = strtok(NULL, "\n")) {
		if (nr == 64)
			memmove(lines, lines + 1, --nr * sizeof(*lines));
		lines[nr++] = p;
	}
	for (i = nr > n ? nr - n : 0; i < nr; i++)
		printf("%s%s\n", prefix, lines[i]);
}

/* The first line of the file @path into @buf, or "" if there is none. */
static void first_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, size, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

/*
 * Where each process whose name begins with @comm is: its state, the
 * syscall it is in (/proc/PID/syscall: number and arguments) and its
 * kernel stack.
 */
static void where(const char *comm)
{
	char path[64], buf[256];
	struct dirent *d;
	int pid, n;
	DIR *dir;
	FILE *f;

	dir = opendir("/proc");
	while (dir && (d = readdir(dir))) {
		pid = atoi(d->d_name);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		first_line(path, buf, sizeof(buf));
		if (strncmp(buf, comm, strlen(comm)))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		first_line(path, buf, sizeof(buf));
		printf("STRESS: %s %d: %.70s\n", comm, pid, buf);
		snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
		first_line(path, buf, sizeof(buf));
		printf("STRESS: %s %d: syscall %s\n", comm, pid, buf);
		/* Its innermost frames: the first lines. */
		snprintf(path, sizeof(path), "/proc/%d/stack", pid);
		f = fopen(path, "r");
		for (n = 0; f && n < 16 && fgets(buf, sizeof(buf), f); n++)
			printf("STRESS: %s %d: %s", comm, pid, buf);
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
}

/* Every mTHP size "always", and the PMD size too. */
static void thp_always(void)
{
	char path[160];
	int kb;

	put(THP "enabled", "always");
	put(THP "defrag", "defer+madvise");
	put(THP "shmem_enabled", "always");
	for (kb = 8; kb <= 1024 * 1024; kb *= 2) {
		snprintf(path, sizeof(path), THP "hugepages-%dkB/enabled", kb);
		put(path, "always");
		snprintf(path, sizeof(path), THP "hugepages-%dkB/shmem_enabled",
			 kb);
		put(path, "always");
	}
	put(KHUGEPAGED "scan_sleep_millisecs", "10");
	put(KHUGEPAGED "alloc_sleep_millisecs", "10");
	put(KHUGEPAGED "pages_to_scan", "4096");
	/* 2M hugetlb pages beyond those reserved at boot, on demand. */
	put("/proc/sys/vm/nr_overcommit_hugepages", "64");
}

/*
 * The warning 6.12 prints on arm64 with DEBUG_VM when a write faults on an
 * old PTE of a region write-protected by an asynchronous userfaultfd:
 * do_wp_page() clears the uffd-wp bit with set_pte_at() of the valid, old
 * PTE, which __check_safe_pte_update() reports as "racy access flag
 * clearing" (a VM_WARN_ONCE).  pmstress does that at random (clear_refs 1
 * on its uffd-wp region); here it is done once, on purpose, on both
 * kernels, so that stress.sh can tell it to be stock's.  Elsewhere the
 * sequence warns about nothing.
 */
static void stock_warning(void)
{
	struct uffdio_api api = {
		.api = UFFD_API,
		.features = UFFD_FEATURE_WP_ASYNC,
	};
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_WP };
	struct uffdio_writeprotect wp = { .mode = UFFDIO_WRITEPROTECT_MODE_WP };
	char *p;
	int fd;

	printf("STRESS: stock warning: begin\n");
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	reg.range.start = (unsigned long)p;
	reg.range.len = PAGE;
	wp.range = reg.range;
	if (p == MAP_FAILED || fd < 0) {
		printf("STRESS: stock warning: %s: %s\n",
		       fd < 0 ? "userfaultfd" : "mmap", strerror(errno));
	} else if (ioctl(fd, UFFDIO_API, &api) ||
		   ioctl(fd, UFFDIO_REGISTER, &reg)) {
		printf("STRESS: stock warning: no async uffd-wp: %s\n",
		       strerror(errno));
	} else {
		p[0] = 1;
		/* Write-protected, then old, then written. */
		if (ioctl(fd, UFFDIO_WRITEPROTECT, &wp) ||
		    put("/proc/self/clear_refs", "1"))
			printf("STRESS: stock warning: setup: %s\n",
			       strerror(errno));
		else
			p[0] = 2;
	}
	if (fd >= 0)
		close(fd);
	if (p != MAP_FAILED)
		munmap(p, PAGE);
	printf("STRESS: stock warning: end\n");
}

int main(void)
{
	char cmdline[1024] = "", secs[16], seed[16], timeout[24], *opt;
	char *stress_ng[64], *trinity[64], *pmstress[4];
	long time = 600, t0;
	pid_t ng, tr, pm;
	int n = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	mount_guest_fs();
	chmod("/tmp", 01777);
	chmod("/dev/shm", 01777);
	zram_swap(1 * GB);
	thp_always();

	read_cmdline(cmdline, sizeof(cmdline));
	opt = strstr(cmdline, "stress.time=");
	if (opt)
		time = strtol(opt + strlen("stress.time="), NULL, 10);
	opt = strstr(cmdline, "stress.seed=");
	snprintf(seed, sizeof(seed), "%ld",
		 opt ? strtol(opt + strlen("stress.seed="), NULL, 10) : 1L);
	snprintf(secs, sizeof(secs), "%ld", time);
	snprintf(timeout, sizeof(timeout), "%lds", time);

	/* stress-ng: one instance of each memory stressor, and procfs. */
#define A(x) (stress_ng[n++] = (x))
	A("/bin/stress-ng"); A("--timeout"); A(timeout); A("--seed"); A(seed);
	A("--metrics-brief"); A("--temp-path"); A("/tmp/ng");
	A("--vm"); A("1"); A("--vm-bytes"); A("64M");
	A("--vm-madvise"); A("hugepage");
	A("--vm-addr"); A("1");
	A("--mmap"); A("1"); A("--mmap-bytes"); A("32M"); A("--mmap-file");
	A("--mmap-mprotect");
	A("--mmapfork"); A("1");
	A("--mmaphuge"); A("1"); A("--mmaphuge-mmaps"); A("64");
	A("--mremap"); A("1"); A("--mremap-bytes"); A("32M");
	A("--madvise"); A("1");
	A("--mprotect"); A("1");
	A("--mlock"); A("1");
	A("--userfaultfd"); A("1");
	A("--numa"); A("1");
	A("--memfd"); A("1"); A("--memfd-bytes"); A("32M");
	A("--shm"); A("1"); A("--shm-bytes"); A("16M");
	A("--shm-sysv"); A("1"); A("--shm-sysv-bytes"); A("16M");
	A("--fork"); A("1"); A("--fork-vm");
	A("--pageswap"); A("1");
	A("--procfs"); A("1");
	A(NULL);
#undef A
	/*
	 * trinity: the mm syscalls, and reads (pread64) and ioctls of the
	 * files of /proc/self (its victim files); no sockets or other fd
	 * kinds.  Not read(): trinity's children read its inotify fds too,
	 * and each such read blocks until its watchdog kills the child (1.8
	 * thousand syscalls in 40 s on the host with read(), 150 thousand in
	 * 30 s without).
	 */
	n = 0;
#define A(x) (trinity[n++] = (x))
	A("/bin/trinity"); A("-q"); A("-l"); A("off"); A("-s"); A(seed);
	A("-C"); A("2"); A("-a"); A("64"); A("-V"); A("/proc/self");
	A("--disable-fds=sockets,pipes,perf,epoll,eventfd,pseudo,timerfd,testfile,memfd,drm");
	A("-c"); A("mmap"); A("-c"); A("munmap"); A("-c"); A("mremap");
	A("-c"); A("mprotect"); A("-c"); A("madvise"); A("-c"); A("mbind");
	A("-c"); A("migrate_pages"); A("-c"); A("move_pages");
	A("-c"); A("mincore"); A("-c"); A("userfaultfd");
	A("-c"); A("process_madvise"); A("-c"); A("pread64");
	A("-c"); A("ioctl");
	A(NULL);
#undef A
	pmstress[0] = "/bin/pmstress";
	pmstress[1] = secs;
	pmstress[2] = seed;
	pmstress[3] = NULL;

	stock_warning();
	printf("STRESS: BEGIN %ld seconds, seed %s\n", time, seed);
	t0 = now();
	/*
	 * The reader first, the churn after it: under TCG, the stressors
	 * would otherwise leave it little of the two CPUs.  trinity writes
	 * to a file, which its victims under /proc/self/fd then are, rather
	 * than the console, where a read would wait for input.
	 */
	pm = start(pmstress, 0, -10, "pm", NULL);
	ng = start(stress_ng, 0, 5, "ng", NULL);
	tr = start(trinity, 65534, 0, "trinity", "out");
	/* pmstress and stress-ng end on their own; trinity is stopped. */
	finish(pm, "pmstress", t0 + time + 120);
	finish(ng, "stress-ng", t0 + time + 300);
	/* What trinity's processes are doing when it is stopped. */
	while (now() < t0 + time)
		sleep(1);
	where("trinity");
	finish(tr, "trinity", t0 + time);
	tail("/tmp/trinity/out", "trinity: ", 8);
	printf("STRESS: END\n");
	printf("init: done\n");

	power_off();
}

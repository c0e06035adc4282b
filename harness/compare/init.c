// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the `make compare` guest: mount proc, sysfs, devtmpfs and
 * tmpfs on /tmp and /dev/shm, make a 64M zram device the swap, copy the
 * results of the KUnit tests that ran at boot from the kernel log to the
 * console, run /bin/pmcheck, /bin/mpcheck, /bin/mccheck, /bin/dmcheck,
 * /bin/crcheck, /bin/dxcheck, the selftests of /bin/st/list and
 * /bin/mfcheck, then power the machine off (or, on x86 without ACPI, reset
 * it: QEMU runs with -no-reboot and exits).
 *
 * Kernel command line: "pmcheck=bench" runs pmcheck's bench mode and none
 * of the other checks nor a selftest; "pmcheck=none" leaves pmcheck,
 * mpcheck, mccheck, dmcheck, crcheck, dxcheck and mfcheck out;
 * "selftests=NAME" runs the list /bin/st/list-NAME instead of /bin/st/list.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <sched.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SWAP_SIZE	(64UL << 20)
#define KHUGEPAGED	"/sys/kernel/mm/transparent_hugepage/khugepaged/"

#include "guest.h"

/*
 * The KUnit tests built into the kernel ran before /init, and print their
 * KTAP at KERN_INFO, below the console's loglevel.  Copy the kernel log
 * from the first "KTAP version" line on to the console, between
 * "KUNIT: BEGIN" and "KUNIT: END", for `kunit.py parse`.  Nothing when no
 * test ran.
 */
static void kunit_results(void)
{
	char rec[8192], *text, *end, *in, *out;
	int fd, started = 0;
	unsigned int c;
	ssize_t n;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		printf("init: /dev/kmsg: %s\n", strerror(errno));
		return;
	}
	for (;;) {
		/* One record per read: "level,seq,time,flags;text\n..." */
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && (errno == EPIPE || errno == EINTR))
			continue;	/* EPIPE: overwritten before read */
		if (n < 0 && errno != EAGAIN)
			printf("init: reading /dev/kmsg: %s\n", strerror(errno));
		if (n <= 0)
			break;
		rec[n] = 0;
		text = strchr(rec, ';');
		if (!text)
			continue;
		text++;
		end = strchr(text, '\n');
		if (end)
			*end = 0;
		if (!started) {
			if (strncmp(text, "KTAP version", 12))
				continue;
			printf("KUNIT: BEGIN\n");
			started = 1;
		}
		/*
		 * The kernel writes control characters and '\' as "\xNN": a
		 * failed expectation of several lines is one record.
		 */
		for (in = out = text; *in; out++) {
			if (in[0] == '\\' && in[1] == 'x' &&
			    sscanf(in + 2, "%2x", &c) == 1) {
				*out = c;
				in += 4;
			} else {
				*out = *in++;
			}
		}
		*out = 0;
		printf("%s\n", text);
	}
	close(fd);
	if (started)
		printf("KUNIT: END\n");
}

/*
 * Run the selftests that /bin/st/list names ("name seconds program
 * arguments..." per line), one at a time in /tmp, each killed after its
 * seconds; their output goes to the console between "SELFTEST: BEGIN name"
 * and "SELFTEST: END name ...".
 */
static void selftests(const char *listpath, char *const *envp)
{
	char line[256], path[96], *argv[16], *name;
	struct timespec t0, t1;
	unsigned int secs, argc;
	int status;
	FILE *list;
	pid_t pid;

	list = fopen(listpath, "r");
	if (!list) {
		printf("init: %s: %s\n", listpath, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), list)) {
		name = strtok(line, "\n ");
		secs = atoi(strtok(NULL, "\n ") ?: "0");
		argc = 0;
		while (argc < 15 && (argv[argc] = strtok(NULL, "\n ")))
			argc++;
		argv[argc] = NULL;
		if (!name || !argc)
			continue;

		/* The whole path: mm/pagemap_ioctl opens its argv[0]. */
		snprintf(path, sizeof(path), "/bin/st/%s", argv[0]);
		argv[0] = path;
		printf("SELFTEST: BEGIN %s\n", name);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		pid = fork();
		if (pid == 0) {
			setpgid(0, 0);
			if (chdir("/tmp"))
				_exit(126);
			/* Kept across execve(): the test's own time limit. */
			alarm(secs);
			execve(path, argv, envp);
			printf("init: exec %s: %s\n", path, strerror(errno));
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid) {
			printf("SELFTEST: END %s lost\n", name);
			continue;
		}
		/* Whatever it left behind goes too. */
		kill(-pid, SIGKILL);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		/* The seconds it took come last: not part of the result. */
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (WIFEXITED(status))
			printf("SELFTEST: END %s exit %d %lds\n", name,
			       WEXITSTATUS(status), (long)(t1.tv_sec - t0.tv_sec));
		else
			printf("SELFTEST: END %s signal %d %lds\n", name,
			       WTERMSIG(status), (long)(t1.tv_sec - t0.tv_sec));
	}
	fclose(list);
}

static void run_check(char *const *argv, char *const *envp)
{
	int status = 0;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		execve(argv[0], argv, envp);
		printf("init: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		printf("init: fork: %s\n", strerror(errno));
	else if (waitpid(pid, &status, 0) == pid)
		printf("init: %s exited with status %d\n", argv[0],
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int main(void)
{
	static char *const check[] = { "/bin/pmcheck", NULL };
	static char *const bench[] = { "/bin/pmcheck", "bench", NULL };
	static char *const mpcheck[] = { "/bin/mpcheck", NULL };
	static char *const mccheck[] = { "/bin/mccheck", NULL };
	static char *const dmcheck[] = { "/bin/dmcheck", NULL };
	static char *const crcheck[] = { "/bin/crcheck", NULL };
	static char *const dxcheck[] = { "/bin/dxcheck", NULL };
	static char *const mfcheck[] = { "/bin/mfcheck", NULL };
	static char *const envp[] = { "PATH=/bin", NULL };
	char *const *argv = check;
	char cmdline[1024] = "", list[64] = "/bin/st/list", *opt;
	cpu_set_t cpu0;

	setvbuf(stdout, NULL, _IONBF, 0);
	/* /dev/shm: where selftests (mincore) make files. */
	mount_guest_fs();
	do_mount("debugfs", "/sys/kernel/debug", "debugfs");
	zram_swap(SWAP_SIZE);
	put("/proc/sys/kernel/randomize_va_space", "0");
	/*
	 * What could change /proc behind pmcheck's back: khugepaged
	 * collapsing its PTE-mapped THPs (it scans an mm as soon as
	 * MADV_HUGEPAGE registers it, racing with pmcheck), and its pages
	 * sitting in another CPU's LRU batches (which decide whether a folio
	 * is marked referenced).  khugepaged collapses nothing that has an
	 * empty, swapped or shared PTE and sleeps for an hour between scans;
	 * pmcheck runs on CPU 0; its child after fork says when it is done.
	 */
	put(KHUGEPAGED "max_ptes_none", "0");
	put(KHUGEPAGED "max_ptes_swap", "0");
	put(KHUGEPAGED "max_ptes_shared", "0");
	put(KHUGEPAGED "scan_sleep_millisecs", "3600000");
	/* Nor does compaction move its pages in the background. */
	put("/proc/sys/vm/compaction_proactiveness", "0");
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0))
		printf("init: sched_setaffinity: %s\n", strerror(errno));

	kunit_results();

	read_cmdline(cmdline, sizeof(cmdline));
	if (strstr(cmdline, "pmcheck=bench"))
		argv = bench;
	/* "selftests=NAME": the list of that boot. */
	opt = strstr(cmdline, "selftests=");
	if (opt) {
		opt += strlen("selftests=");
		snprintf(list, sizeof(list), "/bin/st/list-%.*s",
			 (int)strcspn(opt, "\n "), opt);
	}

	if (!strstr(cmdline, "pmcheck=none")) {
		run_check(argv, envp);
		if (argv == check) {
			run_check(mpcheck, envp);
			run_check(mccheck, envp);
			run_check(dmcheck, envp);
			run_check(crcheck, envp);
			run_check(dxcheck, envp);
		}
	}
	if (argv == check)
		selftests(list, envp);
	/*
	 * Last: the THPs and hugetlb pages it poisons are lost to what would
	 * come after (pmcheck's hwpoison layouts cost two base pages).
	 */
	if (argv == check && !strstr(cmdline, "pmcheck=none"))
		run_check(mfcheck, envp);
	printf("init: done\n");

	power_off();
}

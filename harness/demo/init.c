// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the `make run` demo guest: mount proc, sysfs, debugfs, devtmpfs
 * and a tmpfs on /tmp, run /bin/ptdemo, then power the machine off (or, on
 * x86 without ACPI, reset it: QEMU runs with -no-reboot and exits).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void do_mount(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) && errno != EBUSY)
		printf("init: mount %s on %s: %s\n", type, dir,
		       strerror(errno));
}

int main(void)
{
	char *argv[] = { "/bin/ptdemo", NULL };
	char *envp[] = { "PATH=/bin", NULL };
	int status = 0;
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	do_mount("proc", "/proc", "proc");
	do_mount("sysfs", "/sys", "sysfs");
	do_mount("debugfs", "/sys/kernel/debug", "debugfs");
	do_mount("devtmpfs", "/dev", "devtmpfs");
	do_mount("tmpfs", "/tmp", "tmpfs");

	pid = fork();
	if (pid == 0) {
		execve(argv[0], argv, envp);
		printf("init: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		printf("init: fork: %s\n", strerror(errno));
	else if (waitpid(pid, &status, 0) == pid)
		printf("init: ptdemo exited with status %d\n",
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);

	sync();
#ifdef __x86_64__
	reboot(RB_AUTOBOOT);	/* no ACPI in the demo kernel: reset */
#endif
	reboot(RB_POWER_OFF);
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * mccheck: the mincore() client check of `make compare` (harness/compare.sh),
 * run by /init after mpcheck.
 *
 * vmtouch (Debian's package, copied into the initramfs with its C library)
 * reports the page cache residency of files through mincore() on a mapping
 * of its own.  mccheck lays out files whose residency it knows: on tmpfs
 * whole, sparse, partly swapped out, partly read through a mapping; in
 * large folios (a tmpfs mount with huge=always, a memfd in 64K folios);
 * on hugetlbfs of every size the kernel offers, with some pages faulted
 * and the rest never allocated.  For each it prints what `vmtouch -v`
 * says, then touches the file with `vmtouch -t` and asks again.  Stock and
 * patched kernels must print the same bytes (vmtouch's timing line aside).
 *
 * Lines: "MCCHECK: ..." for the harness, "= label" before a file, "vmtouch"
 * before what vmtouch printed, "!" for a step that could not be set up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

#define THP			"/sys/kernel/mm/transparent_hugepage/"

/* Run "/bin/vmtouch -f @opt @path": its lines prefixed, "Elapsed" left out. */
static void run_vmtouch(const char *opt, const char *path)
{
	static char *const envp[] = { "LD_LIBRARY_PATH=/lib", NULL };
	/* -f: follow a symbolic link (a memfd's /proc/PID/fd/N). */
	char *const argv[] = { "/bin/vmtouch", "-f", (char *)opt, (char *)path,
			       NULL };
	char line[512], *text, *cr;
	int status, fd[2];
	FILE *out;
	pid_t pid;

	if (pipe(fd)) {
		note("vmtouch: pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		close(fd[0]);
		execve(argv[0], argv, envp);
		dprintf(1, "exec: %s\n", strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	out = fdopen(fd[0], "r");
	while (out && fgets(line, sizeof(line), out)) {
		/* A progress bar redrawn after '\r': its last state. */
		text = line;
		while ((cr = strchr(text, '\r')) && cr[1] && cr[1] != '\n')
			text = cr + 1;
		if (!strstr(text, "Elapsed:"))
			printf("vmtouch %s %s", opt, text);
	}
	if (out)
		fclose(out);
	if (pid > 0 && waitpid(pid, &status, 0) == pid)
		printf("vmtouch %s: exit %d\n", opt,
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* vmtouch's view of @path, before and after it touches every page. */
static void check(const char *label, const char *path)
{
	printf("= %s\n", label);
	run_vmtouch("-v", path);
	run_vmtouch("-t", path);
	run_vmtouch("-v", path);
	fflush(stdout);
}

/* Write @len bytes of a pattern at @off of @fd. */
static void fill(int fd, unsigned long off, unsigned long len)
{
	static char page[PAGE];
	unsigned long i;

	for (i = 0; i < len; i += PAGE) {
		memset(page, (int)((off + i) / PAGE) | 1, sizeof(page));
		if (pwrite(fd, page, PAGE, off + i) != PAGE) {
			note("write: %s", strerror(errno));
			return;
		}
	}
}

/* A file of @size bytes at @path, nothing written. */
static int create(const char *path, unsigned long size)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0) {
		note("%s: %s", path, strerror(errno));
		return -1;
	}
	if (ftruncate(fd, size)) {
		note("%s: ftruncate: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Map [off, off + len) of @fd shared, write to each page in it, unmap. */
static void fault(int fd, unsigned long off, unsigned long len,
		  unsigned long size, const char *what)
{
	unsigned long i;
	char *p;

	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		note("%s: mmap: %s", what, strerror(errno));
		return;
	}
	for (i = off; i < off + len; i += PAGE)
		p[i] = 1;
	munmap(p, size);
}

static void tmpfs_files(void)
{
	char *p;
	int fd;

	fd = create("/tmp/mc/whole", 1 * MB);
	if (fd >= 0) {
		fill(fd, 0, 1 * MB);
		close(fd);
		check("tmpfs, written whole", "/tmp/mc/whole");
	}

	fd = create("/tmp/mc/sparse", 4 * MB);
	if (fd >= 0) {
		fill(fd, 0, 64 * KB);
		fill(fd, 1 * MB + 12 * KB, PAGE);
		fill(fd, 3 * MB, 1 * MB);
		close(fd);
		check("tmpfs, sparse", "/tmp/mc/sparse");
	}

	fd = create("/tmp/mc/mapped", 2 * MB);
	if (fd >= 0) {
		/* Written through a mapping that stays while vmtouch looks. */
		p = mmap(NULL, 2 * MB, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 0);
		if (p == MAP_FAILED) {
			note("mapped: mmap: %s", strerror(errno));
		} else {
			memset(p + 256 * KB, 7, 512 * KB);
			check("tmpfs, partly written through a mapping",
			      "/tmp/mc/mapped");
			munmap(p, 2 * MB);
		}
		close(fd);
	}

	fd = create("/tmp/mc/swapped", 1 * MB);
	if (fd >= 0) {
		fill(fd, 0, 1 * MB);
		p = mmap(NULL, 1 * MB, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 0);
		if (p == MAP_FAILED) {
			note("swapped: mmap: %s", strerror(errno));
		} else {
			p[0] = p[0];
			if (madvise(p + 256 * KB, 256 * KB, MADV_PAGEOUT))
				note("swapped: MADV_PAGEOUT: %s",
				     strerror(errno));
			munmap(p, 1 * MB);
		}
		close(fd);
		check("tmpfs, a quarter swapped out", "/tmp/mc/swapped");
	}
}

/* Files in large folios: a tmpfs mount with huge=always, a 64K memfd. */
static void large_folio_files(void)
{
	char path[64];
	int fd;

	mkdir("/tmp/mc/huge", 0755);
	if (mount("tmpfs", "/tmp/mc/huge", "tmpfs", 0, "huge=always")) {
		note("tmpfs huge=always: %s", strerror(errno));
	} else {
		fd = create("/tmp/mc/huge/thp", 8 * MB);
		if (fd >= 0) {
			fill(fd, 0, 2 * MB);
			fill(fd, 4 * MB + 8 * KB, PAGE);
			close(fd);
			check("tmpfs huge=always, two of four 2M written",
			      "/tmp/mc/huge/thp");
		}
	}

	if (put(THP "hugepages-64kB/shmem_enabled", "always")) {
		note("shmem 64K: no 64K shmem control");
		return;
	}
	fd = memfd_create("mccheck-64k", 0);
	if (fd < 0 || ftruncate(fd, 1 * MB)) {
		note("shmem 64K: memfd: %s", strerror(errno));
	} else {
		fault(fd, 0, 128 * KB, 1 * MB, "shmem 64K");
		fault(fd, 512 * KB + 4 * KB, PAGE, 1 * MB, "shmem 64K");
		/* Inherited by vmtouch: no MFD_CLOEXEC. */
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		check("memfd in 64K folios, partly written", path);
	}
	if (fd >= 0)
		close(fd);
	put(THP "hugepages-64kB/shmem_enabled", "never");
}

/* A hugetlbfs file of four pages of @kb, the first and third faulted. */
static void hugetlbfs_file(unsigned long kb)
{
	unsigned long size = kb * KB;
	char dir[64], path[80], opts[32], label[64];
	int fd;

	snprintf(dir, sizeof(dir), "/tmp/mc/hugetlb-%luK", kb);
	snprintf(opts, sizeof(opts), "pagesize=%luK", kb);
	mkdir(dir, 0755);
	if (mount("none", dir, "hugetlbfs", 0, opts)) {
		note("hugetlbfs %s: %s", opts, strerror(errno));
		return;
	}
	/* One 1G page only: all a guest may have free. */
	size *= kb >= 1024 * 1024 ? 1 : 4;
	snprintf(path, sizeof(path), "%s/file", dir);
	fd = create(path, size);
	if (fd < 0)
		return;
	fault(fd, 0, kb * KB, size, path);
	if (size > kb * KB)
		fault(fd, 2 * kb * KB, kb * KB, size, path);
	close(fd);
	snprintf(label, sizeof(label), "hugetlbfs %luK", kb);
	check(label, path);
	unlink(path);
	umount(dir);
}

int main(void)
{
	static const unsigned long sizes[] = { 64, 2048, 32768, 1048576 };
	char path[96];
	unsigned int i;

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	printf("\nMCCHECK: BEGIN\n");
	mkdir("/tmp/mc", 0755);
	tmpfs_files();
	large_folio_files();
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		snprintf(path, sizeof(path),
			 "/sys/kernel/mm/hugepages/hugepages-%lukB", sizes[i]);
		if (!access(path, F_OK))
			hugetlbfs_file(sizes[i]);
	}
	printf("MCCHECK: END\n");
	fflush(stdout);
	return 0;
}

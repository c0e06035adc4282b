// SPDX-License-Identifier: GPL-2.0
/*
 * ptdemo: map one of each kind of memory, then show, for each mapping, what
 * the pt_iter page-table walker reports for it (through
 * /sys/kernel/debug/pt_iter/) next to the kernel's own accounting of it in
 * /proc/self/smaps.
 *
 * Each mapping also carries the entries pt_iter is expected to report, and
 * pt_iter's page count is compared with smaps' Rss (or *_Hugetlb); a
 * mismatch is printed as FAIL.  A mapping that cannot be made (no hugetlb
 * pages of that size, say) is SKIPPED with the reason.
 *
 * The last lines are "PTDEMO: RESULT ok=N fail=N skipped=N" and
 * "PTDEMO: END".  Build: gcc -static -O2 -o ptdemo ptdemo.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT	26
#endif
#define HUGE_FLAG(log2)	((log2) << MAP_HUGE_SHIFT)

#define KiB		(1UL << 10)
#define MiB		(1UL << 20)
#define GiB		(1UL << 30)

#define DBG_DIR		"/sys/kernel/debug/pt_iter"
#define MAX_SPEC	24
#define RULE "========================================================================"

static size_t page_size;
static int n_ok, n_fail, n_skip;

struct demo {
	const char *title;	/* heading */
	const char *what;	/* how it was mapped and touched */
	const char *expect;	/* what pt_iter should show, in words */
	int (*setup)(struct demo *d);
	unsigned long arg;	/* for setup(): hugetlb size */
	/*
	 * Entries pt_iter should report, in order: "TYPE LEVEL NR [WORD...]",
	 * NR in base pages; each WORD must be on the line (an attribute,
	 * "zero"), "!WORD" must not.  NR "*" matches any count.
	 */
	const char *spec[MAX_SPEC];
	bool hugetlb;		/* compare with smaps *_Hugetlb, not Rss */

	char *addr;		/* set by setup() */
	size_t len;
	char why[256];		/* setup() failure */
};

static int fail_setup(struct demo *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->why, sizeof(d->why), fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Reserve [len] of address space aligned to [align], with PROT_NONE guard
 * areas on both sides so that the mapping never merges with a neighbour.
 */
static char *reserve(size_t len, size_t align)
{
	size_t total = len + 2 * align + 2 * page_size;
	uintptr_t a;
	char *p;

	p = mmap(NULL, total, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = ((uintptr_t)p + page_size + align - 1) & ~(uintptr_t)(align - 1);
	return (char *)a;
}

static char *map_at(struct demo *d, size_t len, size_t align, int prot,
		    int flags, int fd, const char *how)
{
	char *want = reserve(len, align);
	char *p;

	if (!want) {
		fail_setup(d, "reserving %zu KiB of address space: %s",
			   len / KiB, strerror(errno));
		return NULL;
	}
	p = mmap(want, len, prot, flags | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED) {
		int err = errno;

		fail_setup(d, "mmap(%s, %zu KiB): %s", how, len / KiB,
			   strerror(err));
		errno = err;
		return NULL;
	}
	d->addr = p;
	d->len = len;
	return p;
}

static void touch_write(char *p)
{
	*(volatile char *)p = 1;
}

static void touch_read(char *p)
{
	(void)*(volatile char *)p;
}

/* 16 small pages: 0-3 written, 4-7 untouched, 8-9 read, 12 written. */
static int setup_anon(struct demo *d)
{
	char *p = map_at(d, 16 * page_size, 64 * KiB, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, "anonymous");
	int i;

	if (!p)
		return -1;
	madvise(p, d->len, MADV_NOHUGEPAGE);
	for (i = 0; i < 4; i++)
		touch_write(p + i * page_size);
	touch_read(p + 8 * page_size);
	touch_read(p + 9 * page_size);
	touch_write(p + 12 * page_size);
	return 0;
}

static char *map_thp(struct demo *d)
{
	char *p = map_at(d, 2 * MiB, 2 * MiB, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, "anonymous");

	if (p && madvise(p, d->len, MADV_HUGEPAGE)) {
		fail_setup(d, "madvise(MADV_HUGEPAGE): %s (no THP in kernel?)",
			   strerror(errno));
		return NULL;
	}
	return p;
}

static int setup_thp(struct demo *d)
{
	char *p = map_thp(d);

	if (!p)
		return -1;
	touch_write(p);
	return 0;
}

static int setup_thp_zero(struct demo *d)
{
	char *p = map_thp(d);

	if (!p)
		return -1;
	touch_read(p);
	return 0;
}

/* A THP, then the second half made read-only: the PMD is split to PTEs. */
static int setup_thp_split(struct demo *d)
{
	char *p = map_thp(d);

	if (!p)
		return -1;
	touch_write(p);
	if (mprotect(p + MiB, MiB, PROT_READ))
		return fail_setup(d, "mprotect: %s", strerror(errno));
	return 0;
}

/* Two hugetlb pages of d->arg bytes; only the first is touched. */
static int setup_hugetlb(struct demo *d)
{
	unsigned long size = d->arg;
	int log2 = __builtin_ctzl(size);
	char how[64];
	char *p;

	snprintf(how, sizeof(how), "MAP_HUGETLB|MAP_HUGE_%lu%s",
		 size >= GiB ? size / GiB : size >= MiB ? size / MiB : size / KiB,
		 size >= GiB ? "GB" : size >= MiB ? "MB" : "KB");
	p = map_at(d, size == GiB ? size : 2 * size, size,
		   PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | HUGE_FLAG(log2),
		   -1, how);
	if (!p) {
		strncat(d->why, errno == ENOMEM ?
			" -- not enough free hugetlb pages of that size" :
			errno == EINVAL ?
			" -- no hugetlb pages of that size on this kernel" : "",
			sizeof(d->why) - strlen(d->why) - 1);
		return -1;
	}
	touch_write(p);
	return 0;
}

/* Shared anonymous memory (shmem): pages 0-1 written, page 5 read. */
static int setup_shmem(struct demo *d)
{
	char *p = map_at(d, 16 * page_size, 64 * KiB, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, "shared anonymous");

	if (!p)
		return -1;
	touch_write(p);
	touch_write(p + page_size);
	touch_read(p + 5 * page_size);
	return 0;
}

/*
 * A private mapping of a 16-page file (on tmpfs in the demo guest): every
 * page read, then page 3 written, which copies it to an anonymous page.
 */
static int setup_file(struct demo *d)
{
	const char *path = "/tmp/ptdemo.dat";
	size_t len = 16 * page_size;
	char *buf, *p;
	size_t i;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return fail_setup(d, "open(%s): %s", path, strerror(errno));
	buf = malloc(len);
	if (!buf)
		return fail_setup(d, "malloc: %s", strerror(errno));
	memset(buf, 'x', len);
	if (write(fd, buf, len) != (ssize_t)len) {
		free(buf);
		close(fd);
		return fail_setup(d, "write(%s): %s", path, strerror(errno));
	}
	free(buf);
	p = map_at(d, len, 64 * KiB, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
		   path);
	close(fd);
	if (!p)
		return -1;
	for (i = 0; i < 16; i++)
		touch_read(p + i * page_size);
	touch_write(p + 3 * page_size);
	return 0;
}

static struct demo demos[] = {
	{
		.title = "Anonymous memory, small pages",
		.what = "16 pages MAP_PRIVATE|MAP_ANONYMOUS, MADV_NOHUGEPAGE; "
			"pages 0-3 and 12 written, 8-9 only read, the rest "
			"never touched",
		.expect = "one PTE entry per written page (order-0 folios do "
			  "not batch), holes ('none') for untouched pages, "
			  "and the shared zero page ('pfn ... zero') where "
			  "only read",
		.setup = setup_anon,
		.spec = { "folio pte 1 write", "folio pte 1 write",
			  "folio pte 1 write", "folio pte 1 write",
			  "none pte 4", "pfn pte 1 zero !write",
			  "pfn pte 1 zero !write", "none pte 2",
			  "folio pte 1 write", "none pte 3" },
	},
	{
		.title = "Transparent huge page (PMD-mapped THP)",
		.what = "2 MiB MAP_PRIVATE|MAP_ANONYMOUS, 2 MiB aligned, "
			"MADV_HUGEPAGE, one byte written",
		.expect = "a single PMD entry covering 512 pages of an "
			  "order-9 folio",
		.setup = setup_thp,
		.spec = { "folio pmd 512 write !hugetlb" },
	},
	{
		.title = "Huge zero page (THP area only read)",
		.what = "2 MiB MAP_PRIVATE|MAP_ANONYMOUS, 2 MiB aligned, "
			"MADV_HUGEPAGE, one byte read",
		.expect = "a single PMD entry mapping the huge zero page "
			  "(type pfn: no folio is counted in Rss)",
		.setup = setup_thp_zero,
		.spec = { "pfn pmd 512 zero !write" },
	},
	{
		.title = "PTE-mapped THP (PMD split by mprotect)",
		.what = "a written 2 MiB THP, then mprotect(PROT_READ) on its "
			"second half: two VMAs, the PMD split into 512 PTEs "
			"of the same order-9 folio",
		.expect = "PT_ITER_BATCH folds each half into one PTE entry of "
			  "256 pages: writable in the first VMA, read-only in "
			  "the second",
		.setup = setup_thp_split,
		.spec = { "folio pte 256 write", "folio pte 256 !write" },
	},
	{
		.title = "hugetlb, 2 MiB pages",
		.what = "4 MiB MAP_HUGETLB|MAP_HUGE_2MB (two huge pages), "
			"only the first written",
		.expect = "one PMD entry (hugetlb, 512 pages), then a hole "
			  "of one PMD",
		.setup = setup_hugetlb, .arg = 2 * MiB, .hugetlb = true,
		.spec = { "folio pmd 512 hugetlb write !cont", "none pmd 512" },
	},
	{
		.title = "hugetlb, 1 GiB page",
		.what = "1 GiB MAP_HUGETLB|MAP_HUGE_1GB, written",
		.expect = "one PUD entry (hugetlb, 262144 pages)",
		.setup = setup_hugetlb, .arg = GiB, .hugetlb = true,
		.spec = { "folio pud 262144 hugetlb write !cont" },
	},
#ifdef __aarch64__
	{
		.title = "hugetlb, 64 KiB pages (arm64 cont-PTE)",
		.what = "128 KiB MAP_HUGETLB|MAP_HUGE_64KB (two huge pages), "
			"only the first written",
		.expect = "one PTE-level entry of 16 pages with the 'cont' "
			  "attribute (a cont-PTE block), then a hole",
		.setup = setup_hugetlb, .arg = 64 * KiB, .hugetlb = true,
		.spec = { "folio pte 16 hugetlb cont write", "none pte 16" },
	},
	{
		.title = "hugetlb, 32 MiB pages (arm64 cont-PMD)",
		.what = "64 MiB MAP_HUGETLB|MAP_HUGE_32MB (two huge pages), "
			"only the first written",
		.expect = "one PMD-level entry of 8192 pages with the 'cont' "
			  "attribute (a cont-PMD block), then a hole",
		.setup = setup_hugetlb, .arg = 32 * MiB, .hugetlb = true,
		.spec = { "folio pmd 8192 hugetlb cont write", "none pmd 8192" },
	},
#endif
	{
		.title = "shmem (MAP_SHARED|MAP_ANONYMOUS)",
		.what = "16 pages of shared anonymous memory; pages 0-1 "
			"written, page 5 read",
		.expect = "page-cache folios at PTE level, dirty where "
			  "written, clean where only read (but writable too: "
			  "shmem needs no write-notify), holes elsewhere",
		.setup = setup_shmem,
		.spec = { "folio pte 1 write dirty", "folio pte 1 write dirty",
			  "none pte 3", "folio pte 1 !dirty", "none pte 10" },
	},
	{
		.title = "File mapping (MAP_PRIVATE of a tmpfs file)",
		.what = "16 pages of /tmp/ptdemo.dat; every page read, then "
			"page 3 written (copy-on-write)",
		.expect = "read-only page-cache folios, except page 3: a "
			  "writable, dirty anonymous copy",
		.setup = setup_file,
		.spec = { "folio pte 1 !write", "folio pte 1 !write",
			  "folio pte 1 !write", "folio pte 1 write dirty",
			  "folio pte 1 !write", "folio pte 1 !write",
			  "folio pte 1 !write", "folio pte 1 !write",
			  "folio pte 1 !write", "folio pte 1 !write",
			  "folio pte 1 !write", "folio pte 1 !write",
			  "folio pte 1 !write", "folio pte 1 !write",
			  "folio pte 1 !write", "folio pte 1 !write" },
	},
};

#define NR_DEMOS	(sizeof(demos) / sizeof(demos[0]))

/* Read a whole file into a NUL-terminated malloc'd buffer. */
static char *slurp(const char *path, size_t *lenp)
{
	size_t len = 0, size = 1 << 16;
	char *buf = malloc(size + 1);
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (len == size) {
			char *nb = realloc(buf, 2 * size + 1);

			if (!nb)
				break;
			buf = nb;
			size *= 2;
		}
		n = read(fd, buf + len, size - len);
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

static int write_str(const char *path, const char *s)
{
	ssize_t n, len = strlen(s);
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return -1;
	n = write(fd, s, len);
	close(fd);
	return n == len ? 0 : -1;
}

/* "start-end ..." at the start of a line, possibly indented. */
static bool parse_range(const char *line, unsigned long *s, unsigned long *e)
{
	while (*line == ' ')
		line++;
	return sscanf(line, "%lx-%lx", s, e) == 2;
}

static bool overlaps(const struct demo *d, unsigned long s, unsigned long e)
{
	unsigned long a = (unsigned long)d->addr;

	return s < a + d->len && e > a;
}

/* Does the space-separated @line contain the word @w? */
static bool has_word(const char *line, const char *w)
{
	size_t n = strlen(w);
	const char *p = line;

	while ((p = strstr(p, w))) {
		if ((p == line || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

/* Does entry line @line (after its range) match spec @spec? */
static bool match_spec(const char *line, const char *spec)
{
	char type[16], level[8], nr[24], ltype[16], llevel[8], lnr[24];
	char copy[128], *w, *save;

	if (sscanf(spec, "%15s %7s %23s", type, level, nr) != 3)
		return false;
	if (sscanf(line, " %*x-%*x %15s %7s nr=%23s", ltype, llevel,
		   lnr) != 3)
		return false;
	if (strcmp(type, ltype) || strcmp(level, llevel) ||
	    (strcmp(nr, "*") && strcmp(nr, lnr)))
		return false;
	snprintf(copy, sizeof(copy), "%s", spec);
	strtok_r(copy, " ", &save);
	strtok_r(NULL, " ", &save);
	strtok_r(NULL, " ", &save);
	while ((w = strtok_r(NULL, " ", &save))) {
		if (w[0] == '!' ? has_word(line, w + 1) : !has_word(line, w))
			return false;
	}
	return true;
}

/* Value in kB of "Field:   N kB" in an smaps block, or -1. */
static long smaps_field(const char *block, const char *field)
{
	size_t n = strlen(field);
	const char *p = block;

	while (p && *p) {
		if (!strncmp(p, field, n) && p[n] == ':')
			return strtol(p + n + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

static const char *const smaps_shown[] = {
	"Size", "KernelPageSize", "MMUPageSize", "Rss", "Anonymous",
	"AnonHugePages", "ShmemPmdMapped", "FilePmdMapped", "Shared_Clean",
	"Shared_Dirty", "Private_Clean", "Private_Dirty", "Shared_Hugetlb",
	"Private_Hugetlb", "THPeligible", "VmFlags",
};

static bool smaps_wanted(const char *line)
{
	size_t i, n;

	for (i = 0; i < sizeof(smaps_shown) / sizeof(smaps_shown[0]); i++) {
		n = strlen(smaps_shown[i]);
		if (!strncmp(line, smaps_shown[i], n) && line[n] == ':')
			return true;
	}
	return false;
}

static void show_demo(struct demo *d, int idx, char *entries, char *smaps)
{
	unsigned long s, e, a = (unsigned long)d->addr;
	long folio_pages = 0, rss_kb = 0, htlb_kb = 0;
	char *line, *save, *copy;
	int nspec = 0, nent = 0;
	bool in_block = false;
	bool ok = true;
	char why[256] = "";
	char type[16];

	while (nspec < MAX_SPEC && d->spec[nspec])
		nspec++;

	printf("\n%s\n[%d/%zu] %s\n%s\n", RULE, idx + 1, NR_DEMOS, d->title,
	       RULE);
	printf("mapping:  %s\n", d->what);
	printf("expected: %s\n", d->expect);
	printf("range:    %lx-%lx (%zu KiB)\n", a, a + d->len, d->len / KiB);

	printf("\n-- pt_iter view (%s/entries: VMA header, then one line per "
	       "entry) --\n", DBG_DIR);
	copy = strdup(entries);
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || !parse_range(line, &s, &e) ||
		    !overlaps(d, s, e))
			continue;
		printf("  %s\n", line);
		if (line[0] != ' ')
			continue;	/* a VMA header */
		if (nent < nspec && !match_spec(line, d->spec[nent]) && ok) {
			ok = false;
			snprintf(why, sizeof(why), "entry %d is not \"%s\"",
				 nent + 1, d->spec[nent]);
		}
		nent++;
		if (sscanf(line, " %*x-%*x %15s", type) == 1 &&
		    !strcmp(type, "folio"))
			folio_pages += (e - s) / page_size;
	}
	free(copy);
	if (ok && nent != nspec) {
		ok = false;
		snprintf(why, sizeof(why), "%d entries, expected %d", nent,
			 nspec);
	}

	printf("\n-- /proc/self/smaps for the same range (selected fields) "
	       "--\n");
	copy = strdup(smaps);
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (parse_range(line, &s, &e) && strchr(line, ' ') &&
		    line[strcspn(line, " ") - 1] != ':') {
			in_block = overlaps(d, s, e);
			if (in_block)
				printf("  %s\n", line);
			continue;
		}
		if (!in_block)
			continue;
		if (smaps_wanted(line))
			printf("      %s\n", line);
		if (!strncmp(line, "Rss:", 4))
			rss_kb += smaps_field(line, "Rss");
		if (!strncmp(line, "Private_Hugetlb:", 16))
			htlb_kb += smaps_field(line, "Private_Hugetlb");
		if (!strncmp(line, "Shared_Hugetlb:", 15))
			htlb_kb += smaps_field(line, "Shared_Hugetlb");
	}
	free(copy);

	printf("\n-- check --\n");
	printf("  pt_iter: %ld pages in folio entries = %ld kB; smaps: "
	       "%s %ld kB\n", folio_pages, folio_pages * (long)page_size / 1024,
	       d->hugetlb ? "Private_Hugetlb+Shared_Hugetlb" : "Rss",
	       d->hugetlb ? htlb_kb : rss_kb);
	if (ok && folio_pages * (long)page_size / 1024 !=
	    (d->hugetlb ? htlb_kb : rss_kb)) {
		ok = false;
		snprintf(why, sizeof(why), "pt_iter and smaps disagree on the "
			 "mapped size");
	}
	if (ok) {
		n_ok++;
		printf("  OK: %d entries as expected; sizes agree with smaps\n",
		       nent);
	} else {
		n_fail++;
		printf("PTDEMO: FAIL [%s]: %s\n", d->title, why);
		printf("  expected entries:");
		for (nent = 0; nent < nspec; nent++)
			printf(" [%s]", d->spec[nent]);
		printf("\n");
	}
}

static void print_file_line(const char *label, const char *path)
{
	char *s = slurp(path, NULL);

	if (s) {
		s[strcspn(s, "\n")] = '\0';
		printf("%-34s %s\n", label, s);
		free(s);
	}
}

int main(void)
{
	char pidbuf[32], *entries, *smaps;
	struct utsname u;
	size_t i, len;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);

	uname(&u);
	printf("PTDEMO: START\n");
	printf("pt_iter demo: what the pt_iter page-table walker reports for "
	       "each kind of mapping,\nnext to /proc/self/smaps.\n\n");
	printf("%-34s %s %s %s\n", "kernel:", u.sysname, u.release, u.machine);
	printf("%-34s %zu\n", "base page size:", page_size);
	print_file_line("THP enabled:",
			"/sys/kernel/mm/transparent_hugepage/enabled");
	print_file_line("hugetlb 64K pages reserved:",
			"/sys/kernel/mm/hugepages/hugepages-64kB/nr_hugepages");
	print_file_line("hugetlb 2M pages reserved:",
			"/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages");
	print_file_line("hugetlb 32M pages reserved:",
			"/sys/kernel/mm/hugepages/hugepages-32768kB/nr_hugepages");
	print_file_line("hugetlb 1G pages reserved:",
			"/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages");
	printf("\nEntry lines read:  START-END TYPE LEVEL nr=PAGES "
	       "[pfn=PFN|swp=TYPE:OFFSET] [order=FOLIO_ORDER|zero] "
	       "ATTRIBUTES\n"
	       "  TYPE none = hole (PT_ITER_HOLES), folio, pfn (no struct "
	       "folio: zero page, pfnmap), swap, migration, ...\n"
	       "  LEVEL pte/pmd/pud; consecutive PTEs of one folio with the "
	       "same bits are one entry (PT_ITER_BATCH)\n"
	       "  ATTRIBUTES cont hugetlb write dirty young soft-dirty uffd-wp "
	       "clipped shared\n");

	for (i = 0; i < NR_DEMOS; i++)
		if (demos[i].setup(&demos[i]))
			demos[i].addr = NULL;

	snprintf(pidbuf, sizeof(pidbuf), "%d 3\n", getpid());
	if (write_str(DBG_DIR "/pid", pidbuf)) {
		printf("PTDEMO: FAIL cannot write %s/pid: %s (debugfs not "
		       "mounted, or kernel without CONFIG_PT_ITER_DEBUGFS?)\n",
		       DBG_DIR, strerror(errno));
		printf("PTDEMO: RESULT ok=0 fail=1 skipped=0\nPTDEMO: END\n");
		return 1;
	}
	/* One snapshot of both views, after every mapping is set up. */
	entries = slurp(DBG_DIR "/entries", &len);
	smaps = slurp("/proc/self/smaps", NULL);
	if (!entries || !smaps) {
		printf("PTDEMO: FAIL cannot read %s/entries or smaps: %s\n",
		       DBG_DIR, strerror(errno));
		printf("PTDEMO: RESULT ok=0 fail=1 skipped=0\nPTDEMO: END\n");
		return 1;
	}
	printf("%-34s %zu bytes, %s\n", "pt_iter entries of this process:",
	       len, strtok(strdup(entries), "\n"));

	for (i = 0; i < NR_DEMOS; i++) {
		if (!demos[i].addr) {
			n_skip++;
			printf("\n%s\n[%zu/%zu] %s\n%s\n", RULE, i + 1,
			       NR_DEMOS, demos[i].title, RULE);
			printf("SKIPPED: %s\n", demos[i].why);
			continue;
		}
		show_demo(&demos[i], i, entries, smaps);
	}

	printf("\n%s\nPTDEMO: RESULT ok=%d fail=%d skipped=%d\n", RULE, n_ok,
	       n_fail, n_skip);
	printf("PTDEMO: END\n");
	return n_fail ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the walks of smaps, numa_maps and pagemap where user space
 * cannot reach them at will.  What the three files say of migration
 * entries: a PMD migration entry in place of a THP, and a hugetlb
 * migration entry of every hugetlb size; user space cannot hold one still
 * long enough to read it, so the tests install one under the page table
 * lock and run the walks of the three files on it (smap_gather_stats(),
 * gather_numa_stats(), pagemap_walk_vma()).  And smaps_rollup's walk of a
 * VMA from an address inside it, where it goes on after it dropped a
 * contended mmap lock: a race that user space can only make likely.  And
 * that smaps, numa_maps and pagemap read a hugetlb entry under its page
 * table lock: a reader on another CPU waits for it while the test holds
 * it, and finishes once it is let go.  Included by fs/proc/task_mmu.c.
 *
 * The tests map memory into an mm attached to the test thread
 * (kunit_vm_mmap()), fault it in from the kernel, read it with the walks
 * (the present page, then the migration entry in its place), and put the
 * entry back, the folio locked meanwhile as migration locks it.
 *
 * What the files must say is 6.12's ABI: pagemap reports a PMD migration
 * entry as swapped (PM_SWAP, the swap type and the pfn of each page as the
 * offset), a hugetlb one as neither present nor swapped; smaps counts a
 * PMD migration entry's pages as resident, anonymous, in a THP and shared
 * with its whole PSS, a hugetlb one as Shared_Hugetlb: both "maybe
 * shared"; numa_maps counts neither.
 */

#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/mman.h>

KUNIT_DEFINE_ACTION_WRAPPER(proc_test_kvfree, kvfree, const void *);
KUNIT_DEFINE_ACTION_WRAPPER(proc_test_folio_put, folio_put, struct folio *);

/*
 * The folio mapped at @addr, which must be mapped, with a reference until
 * the test ends: it stays the folio mapped there (migration and reclaim
 * give up on it), as a folio under migration has references.
 */
static struct folio *proc_test_folio(struct kunit *test, unsigned long addr)
{
	struct folio *folio;
	struct page *page;
	int ret;

	KUNIT_ASSERT_EQ(test, get_user_pages_fast(addr, 1, 0, &page), 1);
	folio = page_folio(page);
	ret = kunit_add_action_or_reset(test, proc_test_folio_put, folio);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return folio;
}

/* A buffer for the pagemap entries of @len bytes of memory (2M for 1G). */
static pagemap_entry_t *proc_test_pme_buf(struct kunit *test,
					  unsigned long len)
{
	pagemap_entry_t *buf = kvcalloc(len >> PAGE_SHIFT, PM_ENTRY_BYTES,
					GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	ret = kunit_add_action_or_reset(test, proc_test_kvfree, buf);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return buf;
}

/*
 * The pagemap entries of [@addr, @addr + @len) of @vma, with pfns, into
 * @buf; how many there are.  The mmap lock is held.
 */
static unsigned long proc_test_pagemap(struct vm_area_struct *vma,
				       unsigned long addr, unsigned long len,
				       pagemap_entry_t *buf)
{
	struct pagemapread pm = {
		.len = len >> PAGE_SHIFT,
		.buffer = buf,
		.show_pfn = true,
	};

	pagemap_walk_vma(&pm, vma, addr, addr + len);
	return pm.pos;
}

/* What smaps counts of @vma.  The mmap lock is held. */
static void proc_test_smaps(struct vm_area_struct *vma,
			    struct mem_size_stats *mss)
{
	memset(mss, 0, sizeof(*mss));
	smap_gather_stats(vma, mss, 0);
}

#ifdef CONFIG_NUMA
/* How many pages numa_maps counts in @vma.  The mmap lock is held. */
static unsigned long proc_test_numa_pages(struct vm_area_struct *vma,
					  struct numa_maps *md)
{
	memset(md, 0, sizeof(*md));
	gather_numa_stats(vma, md);
	return md->pages;
}
#else
struct numa_maps {
	unsigned long pages;
};

static unsigned long proc_test_numa_pages(struct vm_area_struct *vma,
					  struct numa_maps *md)
{
	return 0;
}
#endif

static struct numa_maps *proc_test_numa_buf(struct kunit *test)
{
	struct numa_maps *md = kunit_kzalloc(test, sizeof(*md), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, md);
	return md;
}

/* Each of the @nr entries @pme is @flags with the frame @frame + i * @step. */
static void proc_test_expect_pme(struct kunit *test,
				 const pagemap_entry_t *pme, unsigned long nr,
				 u64 flags, u64 frame, u64 step)
{
	unsigned long i;
	u64 want;

	for (i = 0; i < nr; i++) {
		want = (frame + i * step) | flags;
		KUNIT_EXPECT_EQ_MSG(test, pme[i].pme, want,
				    "pagemap entry %lu of %lu", i, nr);
		if (pme[i].pme != want)
			break;
	}
}

/*
 * A PMD-mapped THP, then a PMD migration entry in its place.  pagemap: each
 * page present with its pfn, mapped once; then swapped, the migration
 * entry's type and the page's pfn as the swap offset.  smaps: 2M resident,
 * anonymous, in a THP, shared (a migration entry is "maybe shared"), its
 * whole PSS.  numa_maps: 512 pages, then none.
 */
static void proc_test_pmd_migration(struct kunit *test)
{
#ifdef CONFIG_ARCH_ENABLE_THP_MIGRATION
	pagemap_entry_t *pme = proc_test_pme_buf(test, PMD_SIZE);
	pagemap_entry_t *swpme = proc_test_pme_buf(test, PMD_SIZE);
	struct numa_maps *md = proc_test_numa_buf(test);
	unsigned long a, pfn, numa_pages, numa_swp_pages;
	struct mm_struct *mm;
	struct mem_size_stats mss, swmss;
	struct vm_area_struct *vma;
	unsigned long nr_pme, nr_swpme;
	struct folio *folio;
	pmd_t *pmdp, orig, swpmd;
	swp_entry_t swp;
	spinlock_t *ptl;	/* the PMD lock */
	u64 sd, flags;

	a = kunit_vm_mmap(test, NULL, 0, 2 * PMD_SIZE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, 0);
	KUNIT_ASSERT_TRUE(test, a && !IS_ERR_VALUE(a));
	mm = current->mm;	/* attached by kunit_vm_mmap() */
	a = ALIGN(a, PMD_SIZE);
	KUNIT_ASSERT_EQ(test, do_madvise(mm, a, PMD_SIZE, MADV_HUGEPAGE), 0);
	KUNIT_ASSERT_EQ(test, clear_user((void __user *)a, PMD_SIZE), 0UL);
	folio = proc_test_folio(test, a);
	if (!folio_test_pmd_mappable(folio))
		kunit_skip(test, "no THP for the mapping");
	pfn = folio_pfn(folio);

	mmap_write_lock(mm);
	vma = vma_lookup(mm, a);
	pmdp = pmd_off(mm, a);
	if (!vma || !pmd_trans_huge(pmdp_get(pmdp)) ||
	    pmd_pfn(pmdp_get(pmdp)) != pfn) {
		mmap_write_unlock(mm);
		kunit_skip(test, "the THP is not mapped by a PMD");
	}
	sd = vma->vm_flags & VM_SOFTDIRTY ? PM_SOFT_DIRTY : 0;
	flags = PM_PRESENT | PM_MMAP_EXCLUSIVE |
		(pmd_soft_dirty(pmdp_get(pmdp)) ? PM_SOFT_DIRTY : sd);

	nr_pme = proc_test_pagemap(vma, a, PMD_SIZE, pme);
	proc_test_smaps(vma, &mss);
	numa_pages = proc_test_numa_pages(vma, md);

	folio_lock(folio);
	swp = make_writable_migration_entry(pfn);
	ptl = pmd_lock(mm, pmdp);
	orig = pmdp_huge_clear_flush(vma, a, pmdp);
	swpmd = swp_entry_to_pmd(swp);
	if (pmd_soft_dirty(orig))
		swpmd = pmd_swp_mksoft_dirty(swpmd);
	set_pmd_at(mm, a, pmdp, swpmd);
	spin_unlock(ptl);

	nr_swpme = proc_test_pagemap(vma, a, PMD_SIZE, swpme);
	proc_test_smaps(vma, &swmss);
	numa_swp_pages = proc_test_numa_pages(vma, md);

	ptl = pmd_lock(mm, pmdp);
	pmdp_huge_get_and_clear(mm, a, pmdp);
	set_pmd_at(mm, a, pmdp, orig);
	spin_unlock(ptl);
	folio_unlock(folio);
	mmap_write_unlock(mm);

	/* The THP. */
	KUNIT_EXPECT_EQ(test, nr_pme, (unsigned long)HPAGE_PMD_NR);
	proc_test_expect_pme(test, pme, nr_pme, flags, pfn, 1);
	KUNIT_EXPECT_EQ(test, mss.resident, PMD_SIZE);
	KUNIT_EXPECT_EQ(test, mss.anonymous_thp, PMD_SIZE);
	KUNIT_EXPECT_EQ(test, numa_pages,
			IS_ENABLED(CONFIG_NUMA) ? HPAGE_PMD_NR : 0UL);

	/* The migration entry. */
	KUNIT_EXPECT_EQ(test, nr_swpme, (unsigned long)HPAGE_PMD_NR);
	proc_test_expect_pme(test, swpme, nr_swpme,
			     PM_SWAP | (pmd_swp_soft_dirty(swpmd) ?
					PM_SOFT_DIRTY : sd),
			     swp_type(swp) |
			     ((u64)pfn << MAX_SWAPFILES_SHIFT),
			     1ULL << MAX_SWAPFILES_SHIFT);
	KUNIT_EXPECT_EQ(test, swmss.resident, PMD_SIZE);
	KUNIT_EXPECT_EQ(test, swmss.anonymous, PMD_SIZE);
	KUNIT_EXPECT_EQ(test, swmss.anonymous_thp, PMD_SIZE);
	KUNIT_EXPECT_EQ(test, swmss.shared_clean + swmss.shared_dirty,
			PMD_SIZE);
	KUNIT_EXPECT_EQ(test, swmss.private_clean + swmss.private_dirty, 0UL);
	KUNIT_EXPECT_EQ(test, swmss.pss >> PSS_SHIFT, (u64)PMD_SIZE);
	KUNIT_EXPECT_EQ(test, swmss.swap, 0UL);
	KUNIT_EXPECT_EQ(test, numa_swp_pages, 0UL);
#else
	kunit_skip(test, "no THP migration");
#endif
}

/*
 * smaps_rollup, after it dropped a contended mmap lock, goes on inside the
 * VMA it was in (when that VMA, or what is now at its end, begins before
 * where it stopped): smap_gather_stats() from an address inside a VMA
 * counts the pages from there on only, and from the VMA's end nothing.
 */
static void proc_test_gather_from(struct kunit *test)
{
	unsigned long a, len = 64 * PAGE_SIZE, from = 23 * PAGE_SIZE;
	struct mem_size_stats mss, from_mss, end_mss;
	struct vm_area_struct *vma;
	struct mm_struct *mm;

	a = kunit_vm_mmap(test, NULL, 0, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, 0);
	KUNIT_ASSERT_TRUE(test, a && !IS_ERR_VALUE(a));
	mm = current->mm;	/* attached by kunit_vm_mmap() */
	/* Small pages: without THP, MADV_NOHUGEPAGE is an error. */
	if (IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		KUNIT_ASSERT_EQ(test, do_madvise(mm, a, len, MADV_NOHUGEPAGE),
				0);
	KUNIT_ASSERT_EQ(test, clear_user((void __user *)a, len), 0UL);

	mmap_read_lock(mm);
	vma = vma_lookup(mm, a);
	if (!vma || vma->vm_start != a || vma->vm_end != a + len) {
		mmap_read_unlock(mm);
		KUNIT_FAIL(test, "no VMA of its own at %lx", a);
		return;
	}
	proc_test_smaps(vma, &mss);
	memset(&from_mss, 0, sizeof(from_mss));
	smap_gather_stats(vma, &from_mss, a + from);
	memset(&end_mss, 0, sizeof(end_mss));
	smap_gather_stats(vma, &end_mss, a + len);
	mmap_read_unlock(mm);

	KUNIT_EXPECT_EQ(test, mss.resident, len);
	KUNIT_EXPECT_EQ(test, mss.anonymous, len);
	KUNIT_EXPECT_EQ(test, from_mss.resident, len - from);
	KUNIT_EXPECT_EQ(test, from_mss.anonymous, len - from);
	KUNIT_EXPECT_EQ(test, from_mss.private_dirty, len - from);
	KUNIT_EXPECT_EQ(test, from_mss.pss >> PSS_SHIFT, (u64)(len - from));
	KUNIT_EXPECT_EQ(test, end_mss.resident, 0UL);
}

#ifdef CONFIG_HUGETLB_PAGE
/* Every hugetlb size the kernel has. */
static const void *proc_test_hugetlb_gen_params(const void *prev, char *desc)
{
	const struct hstate *h = prev ? (const struct hstate *)prev + 1 :
					hstates;

	if (h >= &hstates[hugetlb_max_hstate])
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%luK", huge_page_size(h) >> 10);
	return h;
}

/*
 * Put @new in place of the hugetlb entry at @addr of @vma, which must be
 * mapped; return the entry it replaces.  The mmap lock is held for write.
 */
static pte_t proc_test_hugetlb_set(struct vm_area_struct *vma,
				   unsigned long addr, pte_t new)
{
	struct hstate *h = hstate_vma(vma);
	unsigned long sz = huge_page_size(h);
	struct mm_struct *mm = vma->vm_mm;
	spinlock_t *ptl;	/* the hugetlb entry's lock */
	pte_t *ptep, old;

	hugetlb_vma_lock_write(vma);
	ptep = hugetlb_walk(vma, addr, sz);
	ptl = huge_pte_lock(h, mm, ptep);
	old = huge_ptep_clear_flush(vma, addr, ptep);
	set_huge_pte_at(mm, addr, ptep, new, sz);
	spin_unlock(ptl);
	hugetlb_vma_unlock_write(vma);
	return old;
}

/*
 * A hugetlb page of each size (shared, mapped by this process alone), then
 * a migration entry in its place.  pagemap: each page present, a file page
 * with its pfn, mapped once; then neither present nor swapped, no pfn.
 * smaps: Private_Hugetlb, then Shared_Hugetlb.  numa_maps: one page (a
 * hugetlb page counts once), then none.
 */
static void proc_test_hugetlb_migration(struct kunit *test)
{
	struct hstate *h = (struct hstate *)test->param_value;
	unsigned long sz = huge_page_size(h), nr = pages_per_huge_page(h);
	pagemap_entry_t *pme = proc_test_pme_buf(test, sz);
	pagemap_entry_t *swpme = proc_test_pme_buf(test, sz);
	struct numa_maps *md = proc_test_numa_buf(test);
	unsigned long a, numa_pages, numa_swp_pages;
	struct mm_struct *mm;
	struct mem_size_stats mss, swmss;
	struct vm_area_struct *vma;
	unsigned long nr_pme, nr_swpme;
	struct folio *folio;
	struct file *file;
	swp_entry_t swp;
	pte_t orig;
	u64 sd;

	if (READ_ONCE(h->free_huge_pages) <= READ_ONCE(h->resv_huge_pages))
		kunit_skip(test, "no free hugetlb page of %luK", sz >> 10);
	file = hugetlb_file_setup(HUGETLB_ANON_FILE, sz, VM_NORESERVE,
				  HUGETLB_ANONHUGE_INODE, huge_page_shift(h));
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	a = kunit_vm_mmap(test, file, 0, sz, PROT_READ | PROT_WRITE,
			  MAP_SHARED, 0);
	fput(file);
	KUNIT_ASSERT_TRUE(test, a && !IS_ERR_VALUE(a));
	mm = current->mm;	/* attached by kunit_vm_mmap() */
	if (clear_user((void __user *)a, PAGE_SIZE))
		kunit_skip(test, "no hugetlb page of %luK to fault in", sz >> 10);
	folio = proc_test_folio(test, a);

	mmap_write_lock(mm);
	vma = vma_lookup(mm, a);
	if (!vma) {
		mmap_write_unlock(mm);
		KUNIT_FAIL(test, "no VMA at %lx", a);
		return;
	}
	sd = vma->vm_flags & VM_SOFTDIRTY ? PM_SOFT_DIRTY : 0;

	nr_pme = proc_test_pagemap(vma, a, sz, pme);
	proc_test_smaps(vma, &mss);
	numa_pages = proc_test_numa_pages(vma, md);

	/*
	 * The folio is locked while the walks read the migration entry, as
	 * migration locks it; after the hugetlb VMA lock, which
	 * proc_test_hugetlb_set() takes, as rmap orders them.
	 */
	swp = make_writable_migration_entry(folio_pfn(folio));
	orig = proc_test_hugetlb_set(vma, a, swp_entry_to_pte(swp));
	folio_lock(folio);
	nr_swpme = proc_test_pagemap(vma, a, sz, swpme);
	proc_test_smaps(vma, &swmss);
	numa_swp_pages = proc_test_numa_pages(vma, md);
	folio_unlock(folio);
	proc_test_hugetlb_set(vma, a, orig);
	mmap_write_unlock(mm);

	/* The hugetlb page. */
	KUNIT_EXPECT_EQ(test, nr_pme, nr);
	proc_test_expect_pme(test, pme, nr_pme,
			     PM_PRESENT | PM_FILE | PM_MMAP_EXCLUSIVE | sd,
			     folio_pfn(folio), 1);
	KUNIT_EXPECT_EQ(test, mss.private_hugetlb, sz);
	KUNIT_EXPECT_EQ(test, mss.shared_hugetlb, 0UL);
	KUNIT_EXPECT_EQ(test, numa_pages, IS_ENABLED(CONFIG_NUMA) ? 1UL : 0UL);

	/* The migration entry. */
	KUNIT_EXPECT_EQ(test, nr_swpme, nr);
	proc_test_expect_pme(test, swpme, nr_swpme, sd, 0, 0);
	KUNIT_EXPECT_EQ(test, swmss.shared_hugetlb, sz);
	KUNIT_EXPECT_EQ(test, swmss.private_hugetlb, 0UL);
	KUNIT_EXPECT_EQ(test, swmss.resident, 0UL);
	KUNIT_EXPECT_EQ(test, numa_swp_pages, 0UL);
}

/* A reader of one file's walk of a hugetlb VMA, on another CPU. */
struct proc_test_reader {
	struct mm_struct *mm;
	unsigned long addr;	/* the VMA's start */
	unsigned long len;
	int file;		/* 0: pagemap, 1: smaps, 2: numa_maps */
	pagemap_entry_t *pme;
	struct numa_maps *md;
	unsigned long found;	/* pagemap entries; smaps' or numa_maps' */
	bool done;		/* the walk is over */
};

static int proc_test_reader_fn(void *data)
{
	struct proc_test_reader *r = data;
	struct mem_size_stats mss;
	struct vm_area_struct *vma;

	mmap_read_lock(r->mm);
	vma = vma_lookup(r->mm, r->addr);
	if (vma && r->file == 0) {
		r->found = proc_test_pagemap(vma, r->addr, r->len, r->pme);
	} else if (vma && r->file == 1) {
		proc_test_smaps(vma, &mss);
		r->found = mss.private_hugetlb;
	} else if (vma) {
		r->found = proc_test_numa_pages(vma, r->md);
	}
	mmap_read_unlock(r->mm);
	WRITE_ONCE(r->done, true);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * Run the walk of @r->file on another CPU while this task holds the lock of
 * the hugetlb entry at @r->addr of the VMA @vma (under the mmap lock and
 * the hugetlb VMA lock, both for read, as the reader takes them).  Whether
 * the reader waited for the lock and had not finished when it was let go.
 */
static bool proc_test_read_locked(struct kunit *test,
				  struct vm_area_struct *vma,
				  struct proc_test_reader *r)
{
	struct hstate *h = hstate_vma(vma);
	unsigned long timeout = jiffies + 30 * HZ;
	bool contended, finished;
	struct task_struct *t;
	spinlock_t *ptl;	/* the hugetlb entry's lock */
	pte_t *ptep;

	/* This task on one CPU, the reader on another. */
	migrate_disable();
	t = kthread_create(proc_test_reader_fn, r, "proc_test_reader");
	if (IS_ERR(t)) {
		migrate_enable();
		KUNIT_FAIL(test, "no thread: %ld", PTR_ERR(t));
		return false;
	}
	get_task_struct(t);
	kthread_bind(t, cpumask_any_but(cpu_online_mask,
					raw_smp_processor_id()));

	hugetlb_vma_lock_read(vma);
	ptep = hugetlb_walk(vma, r->addr, huge_page_size(h));
	ptl = huge_pte_lock(h, vma->vm_mm, ptep);
	wake_up_process(t);
	/* Up to 30 s: a vCPU of an emulator can be left waiting. */
	while (!spin_is_contended(ptl) && time_before(jiffies, timeout))
		cpu_relax();
	contended = spin_is_contended(ptl);
	finished = READ_ONCE(r->done);
	spin_unlock(ptl);
	hugetlb_vma_unlock_read(vma);

	while (!READ_ONCE(r->done))
		schedule_timeout_uninterruptible(1);
	kthread_stop(t);
	put_task_struct(t);
	migrate_enable();
	return contended && !finished;
}

/*
 * A hugetlb page of each size, read by pagemap, smaps and numa_maps while
 * this test holds the lock of its entry: each reader waits for the lock,
 * then finds the page (6.12's pagemap and numa_maps read the entry
 * without it).
 */
static void proc_test_hugetlb_locked(struct kunit *test)
{
	static const char *const files[] = { "pagemap", "smaps", "numa_maps" };
	struct hstate *h = (struct hstate *)test->param_value;
	unsigned long sz = huge_page_size(h);
	struct proc_test_reader r = {
		.len = sz,
		.pme = proc_test_pme_buf(test, sz),
		.md = proc_test_numa_buf(test),
	};
	unsigned long want[] = {
		pages_per_huge_page(h), sz, IS_ENABLED(CONFIG_NUMA) ? 1 : 0,
	};
	struct vm_area_struct *vma;
	struct file *file;
	bool waited;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU");
#ifndef arch_spin_is_contended
	kunit_skip(test, "spin_is_contended() is always false here");
#endif
	if (READ_ONCE(h->free_huge_pages) <= READ_ONCE(h->resv_huge_pages))
		kunit_skip(test, "no free hugetlb page of %luK", sz >> 10);
	file = hugetlb_file_setup(HUGETLB_ANON_FILE, sz, VM_NORESERVE,
				  HUGETLB_ANONHUGE_INODE, huge_page_shift(h));
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	r.addr = kunit_vm_mmap(test, file, 0, sz, PROT_READ | PROT_WRITE,
			       MAP_SHARED, 0);
	fput(file);
	KUNIT_ASSERT_TRUE(test, r.addr && !IS_ERR_VALUE(r.addr));
	r.mm = current->mm;	/* attached by kunit_vm_mmap() */
	if (clear_user((void __user *)r.addr, PAGE_SIZE))
		kunit_skip(test, "no hugetlb page of %luK to fault in", sz >> 10);

	for (r.file = 0; r.file < ARRAY_SIZE(files); r.file++) {
		if (r.file == 2 && !IS_ENABLED(CONFIG_NUMA))
			continue;
		r.found = 0;
		r.done = false;
		mmap_read_lock(r.mm);
		vma = vma_lookup(r.mm, r.addr);
		waited = vma && proc_test_read_locked(test, vma, &r);
		mmap_read_unlock(r.mm);
		KUNIT_EXPECT_TRUE_MSG(test, waited,
				      "%s did not wait for the entry's lock",
				      files[r.file]);
		KUNIT_EXPECT_EQ_MSG(test, r.found, want[r.file], "%s",
				    files[r.file]);
	}
}
#endif /* CONFIG_HUGETLB_PAGE */

static struct kunit_case proc_task_mmu_test_cases[] = {
	KUNIT_CASE(proc_test_pmd_migration),
	KUNIT_CASE(proc_test_gather_from),
#ifdef CONFIG_HUGETLB_PAGE
	KUNIT_CASE_PARAM(proc_test_hugetlb_migration,
			 proc_test_hugetlb_gen_params),
	KUNIT_CASE_PARAM(proc_test_hugetlb_locked,
			 proc_test_hugetlb_gen_params),
#endif
	{},
};

static struct kunit_suite proc_task_mmu_test_suite = {
	.name = "proc-task-mmu",
	.test_cases = proc_task_mmu_test_cases,
};

kunit_test_suite(proc_task_mmu_test_suite);

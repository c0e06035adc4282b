// SPDX-License-Identifier: GPL-2.0
/*
 * A benchmark of pt_iter against the walker it replaces.
 *
 * Each case maps memory of one kind into a KUnit test mm, faults it in, and
 * gathers the same statistics (pages mapped, anonymous, young, dirty, PMD-
 * and hugetlb-mapped, other non-empty entries) over the whole VMA in two
 * ways: with walk_page_range() and mm_walk_ops callbacks written the way
 * /proc/PID/smaps writes them in Linux 6.12 (a ->pmd_entry() that handles a
 * THP and loops over a PTE table entry by entry, and 6.12's hugetlb callback
 * and walk, from pt_stock_walk.h), and
 * with a for_each_pt_entry() loop that asks for batches.  The two results
 * must be equal; the time of each is reported.
 *
 * The numbers mean something only when guest time is deterministic, e.g.
 * QEMU with "-icount shift=0,sleep=off" (one nanosecond per instruction):
 * that is how the project's "make bench" runs it, and why this suite is
 * left out of "make test".
 */

#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/file.h>
#include <linux/huge_mm.h>
#include <linux/hugetlb.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/mman.h>
#include <linux/mmu_notifier.h>
#include <linux/pagewalk.h>
#include <linux/pt_iter.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/swapops.h>
#include <linux/uaccess.h>
#include <linux/userfaultfd_k.h>
#include <linux/vmalloc.h>

#include "pt_stock_walk.h"

#define PT_BENCH_ROUNDS	20

struct pt_bench_stats {
	unsigned long present;
	unsigned long anon;
	unsigned long young;
	unsigned long dirty;
	unsigned long pmd;
	unsigned long hugetlb;
	unsigned long shared_hugetlb;
	unsigned long other;
	unsigned long vmas;
};

static void pt_bench_account(struct pt_bench_stats *st, struct folio *folio,
			     unsigned long nr, bool young, bool dirty)
{
	st->present += nr;
	if (folio_test_anon(folio))
		st->anon += nr;
	if (young)
		st->young += nr;
	if (dirty)
		st->dirty += nr;
}

/*
 * The callback walker: smaps_pte_range() of Linux 6.12.118 with its
 * smaps_pmd_entry() and smaps_pte_entry() folded in, the same locks and the
 * same reads, gathering the statistics above instead of struct
 * mem_size_stats.
 */
static int pt_bench_pmd_entry(pmd_t *pmdp, unsigned long addr,
			      unsigned long end, struct mm_walk *walk)
{
	struct pt_bench_stats *st = walk->private;
	struct vm_area_struct *vma = walk->vma;
	struct page *page;
	pte_t *start, *ptep;
	spinlock_t *ptl;	/* of the PMD leaf or of the PTE table */

	ptl = pmd_trans_huge_lock(pmdp, vma);
	if (ptl) {
		pmd_t pmd = pmdp_get(pmdp);

		__acquire(ptl);	/* for sparse: taken by pmd_trans_huge_lock() */

		if (pmd_present(pmd)) {
			page = vm_normal_page_pmd(vma, addr, pmd);
			if (page) {
				pt_bench_account(st, page_folio(page),
						 HPAGE_PMD_NR, pmd_young(pmd),
						 pmd_dirty(pmd));
				st->pmd += HPAGE_PMD_NR;
			}
		} else {
			st->other += HPAGE_PMD_NR;
		}
		spin_unlock(ptl);
		goto out;
	}

	start = pte_offset_map_lock(vma->vm_mm, pmdp, addr, &ptl);
	if (!start) {
		walk->action = ACTION_AGAIN;
		return 0;
	}
	/* For sparse: the RCU read lock pte_unmap_unlock() drops. */
	__acquire(RCU);
	for (ptep = start; addr != end; ptep++, addr += PAGE_SIZE) {
		pte_t pte = ptep_get(ptep);

		if (pte_present(pte)) {
			page = vm_normal_page(vma, addr, pte);
			if (page)
				pt_bench_account(st, page_folio(page), 1,
						 pte_young(pte),
						 pte_dirty(pte));
		} else if (!pte_none(pte)) {
			st->other++;
		}
	}
	pte_unmap_unlock(start, ptl);
out:
	cond_resched();
	return 0;
}

#ifdef CONFIG_HUGETLB_PAGE
/*
 * smaps_hugetlb_range() of Linux 6.12.118: the entry read under
 * huge_pte_lock(), a present page counted as shared when its folio is
 * likely mapped shared or its PMD table is shared.
 */
static int pt_bench_hugetlb_entry(pte_t *ptep, unsigned long hmask,
				  unsigned long addr, unsigned long end,
				  struct mm_walk *walk)
{
	struct pt_bench_stats *st = walk->private;
	struct vm_area_struct *vma = walk->vma;
	unsigned long nr = (end - addr) >> PAGE_SHIFT;
	struct folio *folio;
	spinlock_t *ptl;	/* of the hugetlb entry */
	pte_t pte;

	ptl = huge_pte_lock(hstate_vma(vma), walk->mm, ptep);
	pte = huge_ptep_get(walk->mm, addr, ptep);
	if (pte_present(pte)) {
		folio = page_folio(pte_page(pte));
		pt_bench_account(st, folio, nr, pte_young(pte),
				 huge_pte_dirty(pte));
		st->hugetlb += nr;
		if (folio_likely_mapped_shared(folio) ||
		    hugetlb_pmd_shared(ptep))
			st->shared_hugetlb += nr;
	} else if (!huge_pte_none(pte)) {
		st->other += nr;
	}
	spin_unlock(ptl);
	return 0;
}
#else
#define pt_bench_hugetlb_entry	NULL
#endif

static const struct pt_stock_walk_ops pt_bench_ops = {
	.ops = {
		.pmd_entry	= pt_bench_pmd_entry,
		.walk_lock	= PGWALK_RDLOCK,
	},
	.hugetlb	= pt_bench_hugetlb_entry,
};

/*
 * smap_gather_stats() of Linux 6.12.118 walks a whole VMA like this:
 * walk_page_vma(), which walks a hugetlb VMA's entries no more; 6.12's
 * walk of them, pt_stock_walk_hugetlb(), comes first (walk_page_vma()
 * calls no ->test_walk()), and walk_page_vma() is still called, for what
 * it cost 6.12 around that walk.
 */
static void pt_bench_callbacks(struct vm_area_struct *vma,
			       struct pt_bench_stats *st)
{
	if (is_vm_hugetlb_page(vma)) {
		struct mm_walk walk = {
			.ops = &pt_bench_ops.ops,
			.mm = vma->vm_mm,
			.vma = vma,
			.private = st,
		};

		pt_stock_walk_hugetlb(vma->vm_start, vma->vm_end, &walk);
	}
	walk_page_vma(vma, &pt_bench_ops.ops, st);
}

/* An entry of pt_bench_iter() that maps no folio. */
static __always_inline void pt_bench_other(struct pt_bench_stats *st,
					   const struct pt_iter *it,
					   unsigned long nr)
{
	if (it->type != PT_ITER_NONE && it->type != PT_ITER_PFN)
		st->other += nr;
}

/* The same statistics with pt_iter. */
static void pt_bench_iter(struct vm_area_struct *vma,
			  struct pt_bench_stats *st)
{
	struct pt_iter it;

	for_each_pt_entry(&it, vma, vma->vm_start, vma->vm_end,
			  PT_ITER_BATCH) {
		unsigned long nr = pt_iter_nr_pages(&it);

		/* The entry's own fields first, as the fs/proc loops test them. */
		if (unlikely(pt_iter_has(&it, PT_ATTR_HUGETLB))) {
			if (it.type != PT_ITER_FOLIO) {
				pt_bench_other(st, &it, nr);
				continue;
			}
			st->hugetlb += nr;
			if (folio_likely_mapped_shared(it.folio) ||
			    pt_iter_has(&it, PT_ATTR_SHARED_TABLE))
				st->shared_hugetlb += nr;
		} else if (unlikely(it.level != PT_ITER_PTE)) {
			if (it.type != PT_ITER_FOLIO) {
				pt_bench_other(st, &it, nr);
				continue;
			}
			if (it.level == PT_ITER_PMD)
				st->pmd += nr;
		} else if (it.type != PT_ITER_FOLIO) {
			pt_bench_other(st, &it, nr);
			continue;
		}
		pt_bench_account(st, it.folio, nr,
				 pt_iter_has(&it, PT_ATTR_YOUNG),
				 pt_iter_has(&it, PT_ATTR_DIRTY));
	}
}

enum pt_bench_kind {
	PT_BENCH_SMALL,		/* 64M of 4K pages */
	PT_BENCH_SPARSE,	/* 1G with one 4K page every 64K */
	PT_BENCH_MTHP,		/* 64M of 64K mTHPs */
	PT_BENCH_THP,		/* 64M of PMD-mapped THPs */
	PT_BENCH_HUGETLB,	/* 16M of 2M hugetlb pages */
	PT_BENCH_NR,
};

static const char *const pt_bench_names[PT_BENCH_NR] = {
	[PT_BENCH_SMALL]	= "small-64M",
	[PT_BENCH_SPARSE]	= "sparse-1G",
	[PT_BENCH_MTHP]		= "mthp64K-64M",
	[PT_BENCH_THP]		= "thp-64M",
	[PT_BENCH_HUGETLB]	= "hugetlb2M-16M",
};

static const enum pt_bench_kind pt_bench_kinds[] = {
	PT_BENCH_SMALL, PT_BENCH_SPARSE, PT_BENCH_MTHP, PT_BENCH_THP,
	PT_BENCH_HUGETLB,
};

static void pt_bench_desc(const enum pt_bench_kind *kind, char *desc)
{
	strscpy(desc, pt_bench_names[*kind], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pt_bench, pt_bench_kinds, pt_bench_desc);

static unsigned long pt_bench_anon(struct kunit *test, unsigned long len,
				   int advice)
{
	unsigned long addr;

	addr = kunit_vm_mmap(test, NULL, 0, len + PMD_SIZE,
			     PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	addr = ALIGN(addr, PMD_SIZE);
	/* madvise() of exactly this range makes it a VMA of its own. */
	KUNIT_ASSERT_EQ(test, do_madvise(current->mm, addr, len, advice), 0);
	return addr;
}

static unsigned long pt_bench_hugetlb(struct kunit *test, unsigned long len)
{
	struct hstate *h = size_to_hstate(PMD_SIZE);
	unsigned long addr;
	struct file *file;

	if (!h || READ_ONCE(h->free_huge_pages) < len / PMD_SIZE)
		kunit_skip(test, "not enough free 2M hugetlb pages");
	file = hugetlb_file_setup(HUGETLB_ANON_FILE, len, VM_NORESERVE,
				  HUGETLB_ANONHUGE_INODE, PMD_SHIFT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	addr = kunit_vm_mmap(test, file, 0, len, PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_NORESERVE, 0);
	fput(file);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	return addr;
}

static void pt_bench_fault(struct kunit *test, unsigned long addr,
			   unsigned long len, unsigned long step)
{
	unsigned long a;

	for (a = addr; a < addr + len; a += step)
		KUNIT_ASSERT_EQ(test, clear_user((void __user *)a, 1), 0UL);
}

/*
 * 64K mTHPs (the size of a contpte block on arm64 with 4K pages) and no
 * PMD-sized THP, for MADV_HUGEPAGE VMAs, by setting and clearing the bits
 * that sysfs sets; put back when the case ends.
 */
#define PT_BENCH_MTHP_ORDER	ilog2(SZ_64K >> PAGE_SHIFT)
static unsigned long pt_bench_orders[3];

static void pt_bench_mthp_restore(void *unused)
{
	WRITE_ONCE(huge_anon_orders_always, pt_bench_orders[0]);
	WRITE_ONCE(huge_anon_orders_madvise, pt_bench_orders[1]);
	WRITE_ONCE(huge_anon_orders_inherit, pt_bench_orders[2]);
}

static void pt_bench_mthp_only(struct kunit *test)
{
	pt_bench_orders[0] = READ_ONCE(huge_anon_orders_always);
	pt_bench_orders[1] = READ_ONCE(huge_anon_orders_madvise);
	pt_bench_orders[2] = READ_ONCE(huge_anon_orders_inherit);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, pt_bench_mthp_restore,
						  NULL), 0);
	WRITE_ONCE(huge_anon_orders_always, 0);
	WRITE_ONCE(huge_anon_orders_inherit, 0);
	WRITE_ONCE(huge_anon_orders_madvise, BIT(PT_BENCH_MTHP_ORDER));
}

/* The length of the VMA of @kind. */
static unsigned long pt_bench_len(enum pt_bench_kind kind)
{
	switch (kind) {
	case PT_BENCH_SPARSE:
		return SZ_1G;
	case PT_BENCH_HUGETLB:
		return SZ_16M;
	default:
		return SZ_64M;
	}
}

/* Map and fault in the memory of @kind; returns its VMA's start. */
static unsigned long pt_bench_map(struct kunit *test, enum pt_bench_kind kind)
{
	unsigned long addr, len = pt_bench_len(kind);

	switch (kind) {
	case PT_BENCH_SMALL:
		addr = pt_bench_anon(test, len, MADV_NOHUGEPAGE);
		pt_bench_fault(test, addr, len, PAGE_SIZE);
		break;
	case PT_BENCH_SPARSE:
		addr = pt_bench_anon(test, len, MADV_NOHUGEPAGE);
		pt_bench_fault(test, addr, len, SZ_64K);
		break;
	case PT_BENCH_MTHP:
		if (!IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE) ||
		    PAGE_SIZE >= SZ_64K)
			kunit_skip(test, "no 64K mTHP");
		pt_bench_mthp_only(test);
		addr = pt_bench_anon(test, len, MADV_HUGEPAGE);
		pt_bench_fault(test, addr, len, SZ_64K);
		break;
	case PT_BENCH_THP:
		if (!IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
			kunit_skip(test, "no THP");
		addr = pt_bench_anon(test, len, MADV_HUGEPAGE);
		pt_bench_fault(test, addr, len, PMD_SIZE);
		break;
	case PT_BENCH_HUGETLB:
	default:
		if (!IS_ENABLED(CONFIG_HUGETLB_PAGE))
			kunit_skip(test, "no hugetlb");
		addr = pt_bench_hugetlb(test, len);
		pt_bench_fault(test, addr, len, PMD_SIZE);
		break;
	}
	return addr;
}

/* One walk with each walker; the time of the faster of @best and this. */
static void pt_bench_round(struct vm_area_struct *vma,
			   struct pt_bench_stats *cb, struct pt_bench_stats *pi,
			   u64 *best_cb, u64 *best_pi)
{
	u64 t0, t1, t2;

	memset(cb, 0, sizeof(*cb));
	memset(pi, 0, sizeof(*pi));
	t0 = ktime_get_ns();
	pt_bench_callbacks(vma, cb);
	t1 = ktime_get_ns();
	pt_bench_iter(vma, pi);
	t2 = ktime_get_ns();
	*best_cb = min(*best_cb, t1 - t0);
	*best_pi = min(*best_pi, t2 - t1);
}

static void pt_bench_walkers(struct kunit *test)
{
	const enum pt_bench_kind *kind = test->param_value;
	struct pt_bench_stats cb, pi;
	struct mm_struct *mm;
	struct vm_area_struct *vma;
	unsigned long addr;
	u64 t_cb, t_pi;
	int i;

	addr = pt_bench_map(test, *kind);
	mm = current->mm;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (!vma) {
		mmap_read_unlock(mm);
		KUNIT_FAIL(test, "no VMA at %#lx", addr);
		return;
	}
	/*
	 * Alternate the walkers and keep the fastest walk of each: the
	 * clock also counts whatever else the guest runs meanwhile.
	 */
	t_cb = U64_MAX;
	t_pi = U64_MAX;
	for (i = 0; i < PT_BENCH_ROUNDS; i++)
		pt_bench_round(vma, &cb, &pi, &t_cb, &t_pi);
	mmap_read_unlock(mm);

	KUNIT_EXPECT_GT(test, cb.present, 0UL);
	KUNIT_EXPECT_EQ(test, cb.present, pi.present);
	KUNIT_EXPECT_EQ(test, cb.anon, pi.anon);
	KUNIT_EXPECT_EQ(test, cb.young, pi.young);
	KUNIT_EXPECT_EQ(test, cb.dirty, pi.dirty);
	KUNIT_EXPECT_EQ(test, cb.pmd, pi.pmd);
	KUNIT_EXPECT_EQ(test, cb.hugetlb, pi.hugetlb);
	KUNIT_EXPECT_EQ(test, cb.shared_hugetlb, pi.shared_hugetlb);
	KUNIT_EXPECT_EQ(test, cb.other, pi.other);

	kunit_info(test,
		   "bench %s: %lu pages (%lu pmd, %lu hugetlb); callbacks %llu ns, pt_iter %llu ns per walk\n",
		   pt_bench_names[*kind], cb.present, cb.pmd, cb.hugetlb,
		   t_cb, t_pi);
}

/*
 * Many small VMAs: PT_BENCH_NR_VMAS anonymous VMAs of 1 to 4 pages, each
 * followed by an unmapped guard page so that no two merge, all faulted in.
 * One walk goes over all of them one VMA at a time, as a read of
 * /proc/PID/smaps does: m_start()/m_next() hand show_smap() one VMA after
 * the other under the mmap read lock, and smap_gather_stats() walks each
 * with walk_page_vma() (pt_bench_callbacks() above).  What differs from the
 * rows above is the cost of starting a walk and of its first descent, once
 * per VMA of a few pages.
 */
#define PT_BENCH_NR_VMAS	2000
#define PT_BENCH_VMA_SLOT	5	/* pages: 1 to 4 mapped, then a gap */

static unsigned long pt_bench_map_vmas(struct kunit *test, unsigned long *end)
{
	unsigned long len = PT_BENCH_NR_VMAS * PT_BENCH_VMA_SLOT * PAGE_SIZE;
	unsigned long addr, slot, nr;
	int i;

	addr = kunit_vm_mmap(test, NULL, 0, len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, 0);
	KUNIT_ASSERT_FALSE(test, !addr || IS_ERR_VALUE(addr));
	for (i = 0; i < PT_BENCH_NR_VMAS; i++) {
		slot = addr + i * PT_BENCH_VMA_SLOT * PAGE_SIZE;
		nr = i % 4 + 1;
		KUNIT_ASSERT_EQ(test,
				vm_munmap(slot + nr * PAGE_SIZE,
					  (PT_BENCH_VMA_SLOT - nr) * PAGE_SIZE),
				0);
		pt_bench_fault(test, slot, nr * PAGE_SIZE, PAGE_SIZE);
	}
	*end = addr + len;
	return addr;
}

/* m_start()/m_next() + show_smap() -> smap_gather_stats() of 6.12.118. */
static void pt_bench_vmas_callbacks(struct mm_struct *mm, unsigned long start,
				    unsigned long end,
				    struct pt_bench_stats *st)
{
	struct vm_area_struct *vma;

	VMA_ITERATOR(vmi, mm, start);

	mmap_read_lock(mm);
	for_each_vma_range(vmi, vma, end) {
		pt_bench_callbacks(vma, st);
		st->vmas++;
	}
	mmap_read_unlock(mm);
}

/* The same with a pt_iter loop per VMA. */
static void pt_bench_vmas_iter(struct mm_struct *mm, unsigned long start,
			       unsigned long end, struct pt_bench_stats *st)
{
	struct vm_area_struct *vma;

	VMA_ITERATOR(vmi, mm, start);

	mmap_read_lock(mm);
	for_each_vma_range(vmi, vma, end) {
		pt_bench_iter(vma, st);
		st->vmas++;
	}
	mmap_read_unlock(mm);
}

static void pt_bench_many_vmas(struct kunit *test)
{
	struct mm_struct *mm;
	struct pt_bench_stats cb, pi;
	unsigned long start, end;
	u64 t0, t1, t2, t_cb = U64_MAX, t_pi = U64_MAX;
	int i;

	start = pt_bench_map_vmas(test, &end);
	mm = current->mm;
	for (i = 0; i < PT_BENCH_ROUNDS; i++) {
		memset(&cb, 0, sizeof(cb));
		memset(&pi, 0, sizeof(pi));
		t0 = ktime_get_ns();
		pt_bench_vmas_callbacks(mm, start, end, &cb);
		t1 = ktime_get_ns();
		pt_bench_vmas_iter(mm, start, end, &pi);
		t2 = ktime_get_ns();
		t_cb = min(t_cb, t1 - t0);
		t_pi = min(t_pi, t2 - t1);
	}

	KUNIT_EXPECT_EQ(test, cb.vmas, (unsigned long)PT_BENCH_NR_VMAS);
	KUNIT_EXPECT_EQ(test, cb.present,
			(unsigned long)PT_BENCH_NR_VMAS / 4 * (1 + 2 + 3 + 4));
	KUNIT_EXPECT_EQ(test, cb.vmas, pi.vmas);
	KUNIT_EXPECT_EQ(test, cb.present, pi.present);
	KUNIT_EXPECT_EQ(test, cb.anon, pi.anon);
	KUNIT_EXPECT_EQ(test, cb.young, pi.young);
	KUNIT_EXPECT_EQ(test, cb.dirty, pi.dirty);
	KUNIT_EXPECT_EQ(test, cb.pmd, pi.pmd);
	KUNIT_EXPECT_EQ(test, cb.hugetlb, pi.hugetlb);
	KUNIT_EXPECT_EQ(test, cb.other, pi.other);

	kunit_info(test,
		   "bench vmas-%dx1-4p: %lu pages (%lu vmas); callbacks %llu ns, pt_iter %llu ns per walk\n",
		   PT_BENCH_NR_VMAS, cb.present, cb.vmas, t_cb, t_pi);
}

/*
 * /proc/PID/pagemap: pagemap_read() of Linux 6.12.118, from a kernel
 * caller.  The callback side is pagemap_read() with pagemap_ops
 * (pagemap_pmd_range(), pte_to_pagemap_entry(), pagemap_pte_hole(),
 * pagemap_hugetlb_range()) copied from fs/proc/task_mmu.c; only the sink
 * differs: the entries go to a kernel array (memcpy() for copy_to_user()),
 * and the reader is taken to have CAP_SYS_ADMIN (show_pfn).  The pt_iter
 * side is the same pagemap_read() (same PMD-sized chunks, same mmap lock
 * per chunk, same bounce buffer) with the walk of a chunk done by
 * pt_bench_pagemap_walk(): the VMAs of the chunk, and a for_each_pt_entry()
 * loop with holes over each.  The two u64 arrays must be equal.
 */
struct pt_bench_pme {
	u64 pme;
};

struct pt_bench_pagemapread {
	int pos, len;		/* units: PM_ENTRY_BYTES, not bytes */
	struct pt_bench_pme *buffer;
	bool show_pfn;
};

#define PAGEMAP_WALK_SIZE	(PMD_SIZE)
#define PAGEMAP_WALK_MASK	(PMD_MASK)

#define PM_ENTRY_BYTES		sizeof(struct pt_bench_pme)
#define PM_PFRAME_BITS		55
#define PM_PFRAME_MASK		GENMASK_ULL(PM_PFRAME_BITS - 1, 0)
#define PM_SOFT_DIRTY		BIT_ULL(55)
#define PM_MMAP_EXCLUSIVE	BIT_ULL(56)
#define PM_UFFD_WP		BIT_ULL(57)
#define PM_FILE			BIT_ULL(61)
#define PM_SWAP			BIT_ULL(62)
#define PM_PRESENT		BIT_ULL(63)

#define PM_END_OF_BUFFER    1

/* folio_precise_page_mapcount() of fs/proc/internal.h, 6.12.118. */
static inline int pt_bench_precise_page_mapcount(struct folio *folio,
						 struct page *page)
{
	int mapcount = atomic_read(&page->_mapcount) + 1;

	if (page_mapcount_is_type(mapcount))
		mapcount = 0;
	if (folio_test_large(folio))
		mapcount += folio_entire_mapcount(folio);

	return mapcount;
}

/* make_pme() */
static inline struct pt_bench_pme pt_bench_make_pme(u64 frame, u64 flags)
{
	return (struct pt_bench_pme) { .pme = (frame & PM_PFRAME_MASK) | flags };
}

/* add_to_pagemap() */
static int pt_bench_add_to_pagemap(struct pt_bench_pme *pme,
				   struct pt_bench_pagemapread *pm)
{
	pm->buffer[pm->pos++] = *pme;
	if (pm->pos >= pm->len)
		return PM_END_OF_BUFFER;
	return 0;
}

/* pagemap_pte_hole() */
static int pt_bench_pagemap_pte_hole(unsigned long start, unsigned long end,
				     __always_unused int depth,
				     struct mm_walk *walk)
{
	struct pt_bench_pagemapread *pm = walk->private;
	unsigned long addr = start;
	int err = 0;

	while (addr < end) {
		struct vm_area_struct *vma = find_vma(walk->mm, addr);
		struct pt_bench_pme pme = pt_bench_make_pme(0, 0);
		/* End of address space hole, which we mark as non-present. */
		unsigned long hole_end;

		if (vma)
			hole_end = min(end, vma->vm_start);
		else
			hole_end = end;

		for (; addr < hole_end; addr += PAGE_SIZE) {
			err = pt_bench_add_to_pagemap(&pme, pm);
			if (err)
				goto out;
		}

		if (!vma)
			break;

		/* Addresses in the VMA. */
		if (vma->vm_flags & VM_SOFTDIRTY)
			pme = pt_bench_make_pme(0, PM_SOFT_DIRTY);
		for (; addr < min(end, vma->vm_end); addr += PAGE_SIZE) {
			err = pt_bench_add_to_pagemap(&pme, pm);
			if (err)
				goto out;
		}
	}
out:
	return err;
}

/* pte_to_pagemap_entry() */
static struct pt_bench_pme
pt_bench_pte_to_pagemap_entry(struct pt_bench_pagemapread *pm,
			      struct vm_area_struct *vma, unsigned long addr,
			      pte_t pte)
{
	u64 frame = 0, flags = 0;
	struct page *page = NULL;
	struct folio *folio;

	if (pte_present(pte)) {
		if (pm->show_pfn)
			frame = pte_pfn(pte);
		flags |= PM_PRESENT;
		page = vm_normal_page(vma, addr, pte);
		if (pte_soft_dirty(pte))
			flags |= PM_SOFT_DIRTY;
		if (pte_uffd_wp(pte))
			flags |= PM_UFFD_WP;
	} else if (is_swap_pte(pte)) {
		swp_entry_t entry;

		if (pte_swp_soft_dirty(pte))
			flags |= PM_SOFT_DIRTY;
		if (pte_swp_uffd_wp(pte))
			flags |= PM_UFFD_WP;
		entry = pte_to_swp_entry(pte);
		if (pm->show_pfn) {
			pgoff_t offset;
			/*
			 * For PFN swap offsets, keeping the offset field
			 * to be PFN only to be compatible with old smaps.
			 */
			if (is_pfn_swap_entry(entry))
				offset = swp_offset_pfn(entry);
			else
				offset = swp_offset(entry);
			frame = swp_type(entry) |
			    (offset << MAX_SWAPFILES_SHIFT);
		}
		flags |= PM_SWAP;
		if (is_pfn_swap_entry(entry))
			page = pfn_swap_entry_to_page(entry);
		if (pte_marker_entry_uffd_wp(entry))
			flags |= PM_UFFD_WP;
	}

	if (page) {
		folio = page_folio(page);
		if (!folio_test_anon(folio))
			flags |= PM_FILE;
		if ((flags & PM_PRESENT) &&
		    pt_bench_precise_page_mapcount(folio, page) == 1)
			flags |= PM_MMAP_EXCLUSIVE;
	}
	if (vma->vm_flags & VM_SOFTDIRTY)
		flags |= PM_SOFT_DIRTY;

	return pt_bench_make_pme(frame, flags);
}

/* pagemap_pmd_range() */
static int pt_bench_pagemap_pmd_range(pmd_t *pmdp, unsigned long addr,
				      unsigned long end, struct mm_walk *walk)
{
	struct vm_area_struct *vma = walk->vma;
	struct pt_bench_pagemapread *pm = walk->private;
	spinlock_t *ptl;	/* of the PMD leaf or of the PTE table */
	pte_t *pte, *orig_pte;
	int err = 0;
#ifdef CONFIG_TRANSPARENT_HUGEPAGE

	ptl = pmd_trans_huge_lock(pmdp, vma);
	if (ptl) {
		unsigned int idx = (addr & ~PMD_MASK) >> PAGE_SHIFT;
		u64 flags = 0, frame = 0;
		pmd_t pmd = *pmdp;
		struct page *page = NULL;
		struct folio *folio = NULL;

		__acquire(ptl);	/* for sparse: taken by pmd_trans_huge_lock() */

		if (vma->vm_flags & VM_SOFTDIRTY)
			flags |= PM_SOFT_DIRTY;

		if (pmd_none(pmd))
			goto populate_pagemap;

		if (pmd_present(pmd)) {
			page = pmd_page(pmd);

			flags |= PM_PRESENT;
			if (pmd_soft_dirty(pmd))
				flags |= PM_SOFT_DIRTY;
			if (pmd_uffd_wp(pmd))
				flags |= PM_UFFD_WP;
			if (pm->show_pfn)
				frame = pmd_pfn(pmd) + idx;
		} else if (IS_ENABLED(CONFIG_ARCH_ENABLE_THP_MIGRATION)) {
			/* #ifdef CONFIG_ARCH_ENABLE_THP_MIGRATION in 6.12 */
			swp_entry_t entry = pmd_to_swp_entry(pmd);
			unsigned long offset;

			if (pm->show_pfn) {
				if (is_pfn_swap_entry(entry))
					offset = swp_offset_pfn(entry) + idx;
				else
					offset = swp_offset(entry) + idx;
				frame = swp_type(entry) |
					(offset << MAX_SWAPFILES_SHIFT);
			}
			flags |= PM_SWAP;
			if (pmd_swp_soft_dirty(pmd))
				flags |= PM_SOFT_DIRTY;
			if (pmd_swp_uffd_wp(pmd))
				flags |= PM_UFFD_WP;
			/* VM_BUG_ON() in 6.12, for checkpatch */
			VM_WARN_ON(!is_pmd_migration_entry(pmd));
			page = pfn_swap_entry_to_page(entry);
		}

		if (page) {
			folio = page_folio(page);
			if (!folio_test_anon(folio))
				flags |= PM_FILE;
		}

populate_pagemap:
		for (; addr != end; addr += PAGE_SIZE, idx++) {
			u64 cur_flags = flags;
			struct pt_bench_pme pme;

			if (folio && (flags & PM_PRESENT) &&
			    pt_bench_precise_page_mapcount(folio, page + idx) == 1)
				cur_flags |= PM_MMAP_EXCLUSIVE;

			pme = pt_bench_make_pme(frame, cur_flags);
			err = pt_bench_add_to_pagemap(&pme, pm);
			if (err)
				break;
			if (pm->show_pfn) {
				if (flags & PM_PRESENT)
					frame++;
				else if (flags & PM_SWAP)
					frame += (1 << MAX_SWAPFILES_SHIFT);
			}
		}
		spin_unlock(ptl);
		return err;
	}
#endif /* CONFIG_TRANSPARENT_HUGEPAGE */

	/*
	 * We can assume that @vma always points to a valid one and @end never
	 * goes beyond vma->vm_end.
	 */
	pte = pte_offset_map_lock(walk->mm, pmdp, addr, &ptl);
	orig_pte = pte;
	if (!pte) {
		walk->action = ACTION_AGAIN;
		return err;
	}
	/* For sparse: the RCU read lock pte_unmap_unlock() drops. */
	__acquire(RCU);
	for (; addr < end; pte++, addr += PAGE_SIZE) {
		struct pt_bench_pme pme;

		pme = pt_bench_pte_to_pagemap_entry(pm, vma, addr,
						    ptep_get(pte));
		err = pt_bench_add_to_pagemap(&pme, pm);
		if (err)
			break;
	}
	pte_unmap_unlock(orig_pte, ptl);

	cond_resched();

	return err;
}

#ifdef CONFIG_HUGETLB_PAGE
/* pagemap_hugetlb_range(): walks within one hugetlb entry in one call */
static int pt_bench_pagemap_hugetlb_range(pte_t *ptep, unsigned long hmask,
					  unsigned long addr, unsigned long end,
					  struct mm_walk *walk)
{
	struct pt_bench_pagemapread *pm = walk->private;
	struct vm_area_struct *vma = walk->vma;
	u64 flags = 0, frame = 0;
	int err = 0;
	pte_t pte;

	if (vma->vm_flags & VM_SOFTDIRTY)
		flags |= PM_SOFT_DIRTY;

	pte = huge_ptep_get(walk->mm, addr, ptep);
	if (pte_present(pte)) {
		struct folio *folio = page_folio(pte_page(pte));

		if (!folio_test_anon(folio))
			flags |= PM_FILE;

		if (!folio_likely_mapped_shared(folio) &&
		    !hugetlb_pmd_shared(ptep))
			flags |= PM_MMAP_EXCLUSIVE;

		if (huge_pte_uffd_wp(pte))
			flags |= PM_UFFD_WP;

		flags |= PM_PRESENT;
		if (pm->show_pfn)
			frame = pte_pfn(pte) +
				((addr & ~hmask) >> PAGE_SHIFT);
	} else if (pte_swp_uffd_wp_any(pte)) {
		flags |= PM_UFFD_WP;
	}

	for (; addr != end; addr += PAGE_SIZE) {
		struct pt_bench_pme pme = pt_bench_make_pme(frame, flags);

		err = pt_bench_add_to_pagemap(&pme, pm);
		if (err)
			return err;
		if (pm->show_pfn && (flags & PM_PRESENT))
			frame++;
	}

	cond_resched();

	return err;
}
#else
#define pt_bench_pagemap_hugetlb_range	NULL
#endif /* HUGETLB_PAGE */

/* pagemap_ops */
static const struct pt_stock_walk_ops pt_bench_pagemap_ops = {
	.ops = {
		.pmd_entry	= pt_bench_pagemap_pmd_range,
		.pte_hole	= pt_bench_pagemap_pte_hole,
		.test_walk	= pt_stock_test_walk,
		.walk_lock	= PGWALK_RDLOCK,
	},
	.hugetlb	= pt_bench_pagemap_hugetlb_range,
};

/* @nr pages of the same entry, with no pfn, from @addr. */
static int pt_bench_pagemap_fill(struct pt_bench_pagemapread *pm,
				 unsigned long addr, unsigned long end,
				 u64 flags)
{
	struct pt_bench_pme pme = pt_bench_make_pme(0, flags);
	int err;

	for (; addr < end; addr += PAGE_SIZE) {
		err = pt_bench_add_to_pagemap(&pme, pm);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The pagemap entries of the pages of one pt_iter entry.  @flags is
 * PM_SOFT_DIRTY for a VM_SOFTDIRTY VMA, @show_pfn is pm->show_pfn: both
 * read once per VMA.
 */
static int pt_bench_pagemap_entry(struct pt_bench_pagemapread *pm,
				  const struct pt_iter *it, u64 flags,
				  bool show_pfn)
{
	unsigned long i, nr = pt_iter_nr_pages(it);
	u64 frame = 0, step = 0;
	struct folio *folio = NULL;
	struct page *page = NULL;
	struct pt_bench_pme pme;
	unsigned long offset;
	swp_entry_t swp;
	int err;

	/*
	 * The pages of a folio mapped by PTEs or by a THP PMD: the flags are
	 * those of the entry, only the mapcount is per page.
	 */
	if (likely(it->type == PT_ITER_FOLIO) &&
	    !pt_iter_has(it, PT_ATTR_HUGETLB)) {
		folio = it->folio;
		page = it->page;
		flags |= PM_PRESENT;
		if (pt_iter_has(it, PT_ATTR_SOFT_DIRTY))
			flags |= PM_SOFT_DIRTY;
		if (pt_iter_has(it, PT_ATTR_UFFD_WP))
			flags |= PM_UFFD_WP;
		if (!folio_test_anon(folio))
			flags |= PM_FILE;
		if (show_pfn) {
			frame = pt_iter_pfn(it);
			step = 1;
		}
		/* One page (a small folio, usually), as pagemap_add_folio(). */
		if (nr == 1) {
			pme = pt_bench_make_pme(frame, flags);
			if (pt_bench_precise_page_mapcount(folio, page) == 1)
				pme.pme |= PM_MMAP_EXCLUSIVE;
			return pt_bench_add_to_pagemap(&pme, pm);
		}
		for (i = 0; i < nr; i++) {
			pme = pt_bench_make_pme(frame + i * step, flags);
			if (pt_bench_precise_page_mapcount(folio,
							   nth_page(page, i)) == 1)
				pme.pme |= PM_MMAP_EXCLUSIVE;
			err = pt_bench_add_to_pagemap(&pme, pm);
			if (err)
				return err;
		}
		return 0;
	}

	switch (it->type) {
	case PT_ITER_NONE:
		return pt_bench_pagemap_fill(pm, it->addr, it->end, flags);
	case PT_ITER_FOLIO:
	case PT_ITER_PFN:
		flags |= PM_PRESENT;
		if (show_pfn) {
			frame = pt_iter_pfn(it);
			step = 1;
		}
		if (pt_iter_has(it, PT_ATTR_UFFD_WP))
			flags |= PM_UFFD_WP;
		if (pt_iter_has(it, PT_ATTR_HUGETLB)) {
			/* No soft-dirty bit, no per-page mapcount. */
			if (!folio_test_anon(it->folio))
				flags |= PM_FILE;
			if (!folio_likely_mapped_shared(it->folio) &&
			    !pt_iter_has(it, PT_ATTR_SHARED_TABLE))
				flags |= PM_MMAP_EXCLUSIVE;
			break;
		}
		if (pt_iter_has(it, PT_ATTR_SOFT_DIRTY))
			flags |= PM_SOFT_DIRTY;
		page = it->page;
		/* A PMD leaf has a page even with no folio: pmd_page(). */
		if (!page && it->level != PT_ITER_PTE)
			page = pfn_to_page(pt_iter_pfn(it));
		break;
	default:
		if (pt_iter_has(it, PT_ATTR_HUGETLB)) {
			/* Only the uffd-wp bit of a non-present hugetlb entry. */
			if (pt_iter_has(it, PT_ATTR_UFFD_WP))
				flags |= PM_UFFD_WP;
			break;
		}
		flags |= PM_SWAP;
		if (pt_iter_has(it, PT_ATTR_SOFT_DIRTY))
			flags |= PM_SOFT_DIRTY;
		if (pt_iter_has(it, PT_ATTR_UFFD_WP))
			flags |= PM_UFFD_WP;
		swp = pt_iter_swp(it);
		if (show_pfn) {
			if (is_pfn_swap_entry(swp))
				offset = swp_offset_pfn(swp);
			else
				offset = swp_offset(swp);
			/* A PMD leaf stores the swap entry of its first page. */
			if (it->level != PT_ITER_PTE) {
				offset += (it->addr & ~PMD_MASK) >> PAGE_SHIFT;
				step = 1UL << MAX_SWAPFILES_SHIFT;
			}
			frame = swp_type(swp) | (offset << MAX_SWAPFILES_SHIFT);
		}
		if (is_pfn_swap_entry(swp))
			page = it->page;
		break;
	}
	if (page) {
		/* The entry's folio, but for a PMD pfn leaf's page. */
		folio = it->folio ?: page_folio(page);
		if (!folio_test_anon(folio))
			flags |= PM_FILE;
	}
	for (i = 0; i < nr; i++) {
		pme = pt_bench_make_pme(frame, flags);
		if (folio && (flags & PM_PRESENT) &&
		    pt_bench_precise_page_mapcount(folio,
						   nth_page(page, i)) == 1)
			pme.pme |= PM_MMAP_EXCLUSIVE;
		err = pt_bench_add_to_pagemap(&pme, pm);
		if (err)
			return err;
		frame += step;
	}
	return 0;
}

#define PT_BENCH_PAGEMAP_FLAGS	(PT_ITER_HOLES | PT_ITER_BATCH |	\
				 PT_ITER_IGNORE_WRITE |			\
				 PT_ITER_IGNORE_YOUNG |			\
				 PT_ITER_IGNORE_DIRTY)

/*
 * What walk_page_range() with pagemap_ops does for [start, end), with
 * pt_iter: holes between VMAs, VM_PFNMAP VMAs as holes (walk_page_test()),
 * and a for_each_pt_entry() loop over each other VMA.
 */
static int pt_bench_pagemap_walk(struct mm_struct *mm, unsigned long start,
				 unsigned long end,
				 struct pt_bench_pagemapread *pm)
{
	unsigned long addr = start, vend;
	struct pt_iter it;
	int err;
	struct vm_area_struct *vma;

	VMA_ITERATOR(vmi, mm, start);

	for_each_vma_range(vmi, vma, end) {
		err = pt_bench_pagemap_fill(pm, addr, vma->vm_start, 0);
		if (err)
			return err;
		addr = max(addr, vma->vm_start);
		vend = min(end, vma->vm_end);
		if (vma->vm_flags & VM_PFNMAP) {
			err = pt_bench_pagemap_fill(pm, addr, vend,
						    vma->vm_flags & VM_SOFTDIRTY ?
						    PM_SOFT_DIRTY : 0);
		} else {
			u64 flags = vma->vm_flags & VM_SOFTDIRTY ?
				    PM_SOFT_DIRTY : 0;
			bool show_pfn = pm->show_pfn;

			for_each_pt_entry(&it, vma, addr, vend,
					  PT_BENCH_PAGEMAP_FLAGS) {
				err = pt_bench_pagemap_entry(pm, &it, flags,
							     show_pfn);
				if (err)
					break;
			}
		}
		if (err)
			return err;
		addr = vend;
	}
	return pt_bench_pagemap_fill(pm, addr, end, 0);
}

/*
 * pagemap_read(): a read of @count bytes at the offset of @start, into
 * @buf; walk_page_range() with pagemap_ops, or pt_bench_pagemap_walk() if
 * @iter.  Returns the number of bytes read.
 */
static ssize_t pt_bench_pagemap_read(struct mm_struct *mm, unsigned long start,
				     size_t count, u64 *buf, bool iter)
{
	struct pt_bench_pagemapread pm;
	unsigned long svpfn;
	unsigned long start_vaddr;
	unsigned long end_vaddr;
	int ret = 0, copied = 0;

	if (!mm || !mmget_not_zero(mm))
		goto out;

	ret = 0;
	if (!count)
		goto out_mm;

	/* file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN) */
	pm.show_pfn = true;

	pm.len = (PAGEMAP_WALK_SIZE >> PAGE_SHIFT);
	pm.buffer = kmalloc_array(pm.len, PM_ENTRY_BYTES, GFP_KERNEL);
	ret = -ENOMEM;
	if (!pm.buffer)
		goto out_mm;

	svpfn = start >> PAGE_SHIFT;	/* *ppos / PM_ENTRY_BYTES */
	end_vaddr = mm->task_size;

	/* watch out for wraparound */
	start_vaddr = end_vaddr;
	if (svpfn <= (ULONG_MAX >> PAGE_SHIFT)) {
		unsigned long end;

		ret = mmap_read_lock_killable(mm);
		if (ret)
			goto out_free;
		start_vaddr = untagged_addr_remote(mm, svpfn << PAGE_SHIFT);
		mmap_read_unlock(mm);

		end = start_vaddr + ((count / PM_ENTRY_BYTES) << PAGE_SHIFT);
		if (end >= start_vaddr && end < mm->task_size)
			end_vaddr = end;
	}

	/* Ensure the address is inside the task */
	if (start_vaddr > mm->task_size)
		start_vaddr = end_vaddr;

	ret = 0;
	while (count && (start_vaddr < end_vaddr)) {
		int len;
		unsigned long end;

		pm.pos = 0;
		end = (start_vaddr + PAGEMAP_WALK_SIZE) & PAGEMAP_WALK_MASK;
		/* overflow ? */
		if (end < start_vaddr || end > end_vaddr)
			end = end_vaddr;
		ret = mmap_read_lock_killable(mm);
		if (ret)
			goto out_free;
		if (iter)
			ret = pt_bench_pagemap_walk(mm, start_vaddr, end, &pm);
		else
			ret = walk_page_range(mm, start_vaddr, end,
					      &pt_bench_pagemap_ops.ops, &pm);
		mmap_read_unlock(mm);
		start_vaddr = end;

		len = min(count, PM_ENTRY_BYTES * pm.pos);
		/* copy_to_user() */
		memcpy(buf, pm.buffer, len);
		copied += len;
		buf += len / PM_ENTRY_BYTES;
		count -= len;
	}
	if (!ret || ret == PM_END_OF_BUFFER)
		ret = copied;

out_free:
	kfree(pm.buffer);
out_mm:
	mmput(mm);
out:
	return ret;
}

static void pt_bench_pagemap(struct kunit *test)
{
	const enum pt_bench_kind *kind = test->param_value;
	unsigned long addr, start, nr, i, present = 0;
	ssize_t n_cb = 0, n_pi = 0;
	u64 t0, t1, t2, t_cb = U64_MAX, t_pi = U64_MAX;
	struct mm_struct *mm;
	u64 *cb, *pi;
	int r;

	addr = pt_bench_map(test, *kind);
	mm = current->mm;
	/*
	 * The VMA and a PMD's worth of address space on either side: the
	 * rest of the mapping pt_bench_anon() made (VMAs with no page
	 * table) and whatever lies beyond (no VMA).
	 */
	start = addr - PMD_SIZE;
	nr = (pt_bench_len(*kind) + 2 * PMD_SIZE) >> PAGE_SHIFT;
	cb = vmalloc(nr * sizeof(u64));
	pi = vmalloc(nr * sizeof(u64));
	if (!cb || !pi) {
		vfree(cb);
		vfree(pi);
		kunit_skip(test, "no memory for %lu pagemap entries", nr);
	}

	for (r = 0; r < PT_BENCH_ROUNDS; r++) {
		memset(cb, 0, nr * sizeof(u64));
		memset(pi, 0xff, nr * sizeof(u64));
		t0 = ktime_get_ns();
		n_cb = pt_bench_pagemap_read(mm, start, nr * PM_ENTRY_BYTES,
					     cb, false);
		t1 = ktime_get_ns();
		n_pi = pt_bench_pagemap_read(mm, start, nr * PM_ENTRY_BYTES,
					     pi, true);
		t2 = ktime_get_ns();
		t_cb = min(t_cb, t1 - t0);
		t_pi = min(t_pi, t2 - t1);
	}

	KUNIT_EXPECT_EQ(test, n_cb, (ssize_t)(nr * PM_ENTRY_BYTES));
	KUNIT_EXPECT_EQ(test, n_cb, n_pi);
	for (i = 0; i < nr; i++) {
		if (cb[i] & PM_PRESENT)
			present++;
		if (cb[i] != pi[i]) {
			KUNIT_FAIL(test,
				   "pagemap entry %lu (%#lx) differs: callbacks %#llx, pt_iter %#llx",
				   i, start + (i << PAGE_SHIFT), cb[i], pi[i]);
			break;
		}
	}
	KUNIT_EXPECT_GT(test, present, 0UL);
	vfree(cb);
	vfree(pi);

	kunit_info(test,
		   "bench pagemap-%s: %lu pages (%lu present); callbacks %llu ns, pt_iter %llu ns per walk\n",
		   pt_bench_names[*kind], nr, present, t_cb, t_pi);
}

/*
 * PAGEMAP_SCAN: do_pagemap_scan() of Linux 6.12.118 for a read-only scan
 * (no PM_SCAN_WP_MATCHING), from a kernel caller.  The callback side is
 * do_pagemap_scan() with pagemap_scan_ops (pagemap_scan_test_walk(),
 * pagemap_scan_pmd_entry() and pagemap_scan_thp_entry(),
 * pagemap_scan_pte_hole(), pagemap_scan_hugetlb_entry()) and their helpers
 * copied from fs/proc/task_mmu.c.  The write-protecting branches keep their
 * tests of PM_SCAN_WP_MATCHING but not the code behind them, which a
 * read-only scan never runs.  Only the sink differs: the ranges go to a
 * kernel array (memcpy() for copy_to_user()) and the arguments come from
 * the caller (pagemap_scan_get_args() without copy_from_user()).  The
 * pt_iter side is the same do_pagemap_scan() with the walk of
 * walk_page_range() done by pt_bench_scan_walk(): the VMAs of the range and
 * a for_each_pt_entry() loop over each, left when the output is full or the
 * page budget (max_pages) is spent.  The ranges, their number and walk_end
 * must be equal.
 */
struct pt_bench_scan_private {
	struct pm_scan_arg arg;
	unsigned long masks_of_interest, cur_vma_category;
	struct page_region *vec_buf;
	unsigned long vec_buf_len, vec_buf_index, found_pages;
	struct page_region *vec_out;
};

/* pagemap_page_category() */
static unsigned long pt_bench_page_category(struct pt_bench_scan_private *p,
					    struct vm_area_struct *vma,
					    unsigned long addr, pte_t pte)
{
	unsigned long categories = 0;

	if (pte_none(pte)) {
		/*
		 * An unpopulated pte carries no uffd-wp marker, i.e. it is not
		 * write-protected, the same condition under which the present
		 * and swap cases below report PAGE_IS_WRITTEN (see 6.12.118).
		 */
		return PAGE_IS_WRITTEN;
	}

	if (pte_present(pte)) {
		struct page *page;

		categories |= PAGE_IS_PRESENT;
		if (!pte_uffd_wp(pte))
			categories |= PAGE_IS_WRITTEN;

		if (p->masks_of_interest & PAGE_IS_FILE) {
			page = vm_normal_page(vma, addr, pte);
			if (page && !PageAnon(page))
				categories |= PAGE_IS_FILE;
		}

		if (is_zero_pfn(pte_pfn(pte)))
			categories |= PAGE_IS_PFNZERO;
		if (pte_soft_dirty(pte))
			categories |= PAGE_IS_SOFT_DIRTY;
	} else if (is_swap_pte(pte)) {
		swp_entry_t swp;

		categories |= PAGE_IS_SWAPPED;
		if (!pte_swp_uffd_wp_any(pte))
			categories |= PAGE_IS_WRITTEN;

		if (p->masks_of_interest & PAGE_IS_FILE) {
			swp = pte_to_swp_entry(pte);
			if (is_pfn_swap_entry(swp) &&
			    !folio_test_anon(pfn_swap_entry_folio(swp)))
				categories |= PAGE_IS_FILE;
		}
		if (pte_swp_soft_dirty(pte))
			categories |= PAGE_IS_SOFT_DIRTY;
	}

	return categories;
}

#ifdef CONFIG_TRANSPARENT_HUGEPAGE
/* pagemap_thp_category() */
static unsigned long pt_bench_thp_category(struct pt_bench_scan_private *p,
					   struct vm_area_struct *vma,
					   unsigned long addr, pmd_t pmd)
{
	unsigned long categories = PAGE_IS_HUGE;

	if (pmd_none(pmd))
		return categories;

	if (pmd_present(pmd)) {
		struct page *page;

		categories |= PAGE_IS_PRESENT;
		if (!pmd_uffd_wp(pmd))
			categories |= PAGE_IS_WRITTEN;

		if (p->masks_of_interest & PAGE_IS_FILE) {
			page = vm_normal_page_pmd(vma, addr, pmd);
			if (page && !PageAnon(page))
				categories |= PAGE_IS_FILE;
		}

		if (is_huge_zero_pmd(pmd))
			categories |= PAGE_IS_PFNZERO;
		if (pmd_soft_dirty(pmd))
			categories |= PAGE_IS_SOFT_DIRTY;
	} else {
		swp_entry_t swp;

		categories |= PAGE_IS_SWAPPED;
		if (!pmd_swp_uffd_wp(pmd))
			categories |= PAGE_IS_WRITTEN;
		if (pmd_swp_soft_dirty(pmd))
			categories |= PAGE_IS_SOFT_DIRTY;

		if (p->masks_of_interest & PAGE_IS_FILE) {
			swp = pmd_to_swp_entry(pmd);
			if (is_pfn_swap_entry(swp) &&
			    !folio_test_anon(pfn_swap_entry_folio(swp)))
				categories |= PAGE_IS_FILE;
		}
	}

	return categories;
}
#endif /* CONFIG_TRANSPARENT_HUGEPAGE */

#ifdef CONFIG_HUGETLB_PAGE
/* pagemap_hugetlb_category() */
static unsigned long pt_bench_hugetlb_category(pte_t pte)
{
	unsigned long categories = PAGE_IS_HUGE;

	/*
	 * According to pagemap_hugetlb_range(), file-backed HugeTLB
	 * page cannot be swapped. So PAGE_IS_FILE is not checked for
	 * swapped pages.
	 */
	if (pte_present(pte)) {
		categories |= PAGE_IS_PRESENT;
		if (!huge_pte_uffd_wp(pte))
			categories |= PAGE_IS_WRITTEN;
		if (!PageAnon(pte_page(pte)))
			categories |= PAGE_IS_FILE;
		if (is_zero_pfn(pte_pfn(pte)))
			categories |= PAGE_IS_PFNZERO;
		if (pte_soft_dirty(pte))
			categories |= PAGE_IS_SOFT_DIRTY;
	} else if (is_swap_pte(pte)) {
		categories |= PAGE_IS_SWAPPED;
		if (!pte_swp_uffd_wp_any(pte))
			categories |= PAGE_IS_WRITTEN;
		if (pte_swp_soft_dirty(pte))
			categories |= PAGE_IS_SOFT_DIRTY;
	}

	return categories;
}
#endif /* CONFIG_HUGETLB_PAGE */

/* pagemap_scan_is_interesting_page() */
static bool pt_bench_scan_is_interesting_page(unsigned long categories,
					      const struct pt_bench_scan_private *p)
{
	categories ^= p->arg.category_inverted;
	if ((categories & p->arg.category_mask) != p->arg.category_mask)
		return false;
	if (p->arg.category_anyof_mask && !(categories & p->arg.category_anyof_mask))
		return false;

	return true;
}

/* pagemap_scan_is_interesting_vma() */
static bool pt_bench_scan_is_interesting_vma(unsigned long categories,
					     const struct pt_bench_scan_private *p)
{
	unsigned long required = p->arg.category_mask & PAGE_IS_WPALLOWED;

	categories ^= p->arg.category_inverted;
	if ((categories & required) != required)
		return false;

	return true;
}

/* pagemap_scan_test_walk() */
static int pt_bench_scan_test_walk(unsigned long start, unsigned long end,
				   struct mm_walk *walk)
{
	struct pt_bench_scan_private *p = walk->private;
	struct vm_area_struct *vma = walk->vma;
	unsigned long vma_category = 0;
	bool wp_allowed = userfaultfd_wp_async(vma) &&
	    userfaultfd_wp_use_markers(vma);

	if (!wp_allowed) {
		/* User requested explicit failure over wp-async capability */
		if (p->arg.flags & PM_SCAN_CHECK_WPASYNC)
			return -EPERM;
		/*
		 * User requires wr-protect, and allows silently skipping
		 * unsupported vmas.
		 */
		if (p->arg.flags & PM_SCAN_WP_MATCHING)
			return 1;
		/*
		 * Then the request doesn't involve wr-protects at all,
		 * go on with the rest checks, and allow vma walk.
		 */
	}

	if (vma->vm_flags & VM_PFNMAP)
		return 1;

	if (wp_allowed)
		vma_category |= PAGE_IS_WPALLOWED;

	if (vma->vm_flags & VM_SOFTDIRTY)
		vma_category |= PAGE_IS_SOFT_DIRTY;

	if (!pt_bench_scan_is_interesting_vma(vma_category, p))
		return 1;

	p->cur_vma_category = vma_category;

	return 0;
}

/* pagemap_scan_test_walk(), then 6.12's hugetlb walk (pt_stock_walk.h) */
static int pt_bench_scan_cb_test_walk(unsigned long start, unsigned long end,
				      struct mm_walk *walk)
{
	return pt_bench_scan_test_walk(start, end, walk) ?:
	       pt_stock_walk_hugetlb(start, end, walk);
}

/* pagemap_scan_push_range() */
static bool pt_bench_scan_push_range(unsigned long categories,
				     struct pt_bench_scan_private *p,
				     unsigned long addr, unsigned long end)
{
	struct page_region *cur_buf = &p->vec_buf[p->vec_buf_index];

	/*
	 * When there is no output buffer provided at all, the sentinel values
	 * won't match here. There is no other way for `cur_buf->end` to be
	 * non-zero other than it being non-empty.
	 */
	if (addr == cur_buf->end && categories == cur_buf->categories) {
		cur_buf->end = end;
		return true;
	}

	if (cur_buf->end) {
		if (p->vec_buf_index >= p->vec_buf_len - 1)
			return false;

		cur_buf = &p->vec_buf[++p->vec_buf_index];
	}

	cur_buf->start = addr;
	cur_buf->end = end;
	cur_buf->categories = categories;

	return true;
}

/* pagemap_scan_output() */
static int pt_bench_scan_output(unsigned long categories,
				struct pt_bench_scan_private *p,
				unsigned long addr, unsigned long *end)
{
	unsigned long n_pages, total_pages;
	int ret = 0;

	if (!p->vec_buf)
		return 0;

	categories &= p->arg.return_mask;

	n_pages = (*end - addr) / PAGE_SIZE;
	if (check_add_overflow(p->found_pages, n_pages, &total_pages) ||
	    total_pages > p->arg.max_pages) {
		size_t n_too_much = total_pages - p->arg.max_pages;
		*end -= n_too_much * PAGE_SIZE;
		n_pages -= n_too_much;
		ret = -ENOSPC;
	}

	if (!pt_bench_scan_push_range(categories, p, addr, *end)) {
		*end = addr;
		n_pages = 0;
		ret = -ENOSPC;
	}

	p->found_pages += n_pages;
	if (ret)
		p->arg.walk_end = *end;

	return ret;
}

/* pagemap_scan_thp_entry() */
static int pt_bench_scan_thp_entry(pmd_t *pmd, unsigned long start,
				   unsigned long end, struct mm_walk *walk)
{
#ifdef CONFIG_TRANSPARENT_HUGEPAGE
	struct pt_bench_scan_private *p = walk->private;
	struct vm_area_struct *vma = walk->vma;
	unsigned long categories;
	spinlock_t *ptl;	/* of the PMD leaf */
	int ret = 0;

	ptl = pmd_trans_huge_lock(pmd, vma);
	if (!ptl)
		return -ENOENT;
	__acquire(ptl);	/* for sparse: taken by pmd_trans_huge_lock() */

	categories = p->cur_vma_category |
		     pt_bench_thp_category(p, vma, start, *pmd);

	if (!pt_bench_scan_is_interesting_page(categories, p))
		goto out_unlock;

	ret = pt_bench_scan_output(categories, p, start, &end);
	if (start == end)
		goto out_unlock;

	if (~p->arg.flags & PM_SCAN_WP_MATCHING)
		goto out_unlock;
	if (~categories & PAGE_IS_WRITTEN)
		goto out_unlock;

	/* Write-protecting (split or make_uffd_wp_pmd()): not copied. */
	WARN_ON_ONCE(1);
out_unlock:
	spin_unlock(ptl);
	return ret;
#else /* !CONFIG_TRANSPARENT_HUGEPAGE */
	return -ENOENT;
#endif
}

/* pagemap_scan_pmd_entry() */
static int pt_bench_scan_pmd_entry(pmd_t *pmd, unsigned long start,
				   unsigned long end, struct mm_walk *walk)
{
	struct pt_bench_scan_private *p = walk->private;
	struct vm_area_struct *vma = walk->vma;
	unsigned long addr, flush_end = 0;
	pte_t *pte, *start_pte;
	spinlock_t *ptl;	/* of the PTE table */
	int ret;

	arch_enter_lazy_mmu_mode();

	ret = pt_bench_scan_thp_entry(pmd, start, end, walk);
	if (ret != -ENOENT) {
		arch_leave_lazy_mmu_mode();
		return ret;
	}

	ret = 0;
	pte = pte_offset_map_lock(vma->vm_mm, pmd, start, &ptl);
	start_pte = pte;
	if (!pte) {
		arch_leave_lazy_mmu_mode();
		walk->action = ACTION_AGAIN;
		return 0;
	}
	/* For sparse: the RCU read lock pte_unmap_unlock() drops. */
	__acquire(RCU);

	if ((p->arg.flags & PM_SCAN_WP_MATCHING) && !p->vec_out) {
		/* Fast path for performing exclusive WP: not copied. */
		WARN_ON_ONCE(1);
		addr = start;
		goto flush_and_return;
	}

	if (!p->arg.category_anyof_mask && !p->arg.category_inverted &&
	    p->arg.category_mask == PAGE_IS_WRITTEN &&
	    p->arg.return_mask == PAGE_IS_WRITTEN) {
		for (addr = start; addr < end; pte++, addr += PAGE_SIZE) {
			unsigned long next = addr + PAGE_SIZE;
			pte_t ptent = ptep_get(pte);

			if ((pte_present(ptent) && pte_uffd_wp(ptent)) ||
			    pte_swp_uffd_wp_any(ptent))
				continue;
			ret = pt_bench_scan_output(p->cur_vma_category | PAGE_IS_WRITTEN,
						   p, addr, &next);
			if (next == addr)
				break;
			if (~p->arg.flags & PM_SCAN_WP_MATCHING)
				continue;
			/* make_uffd_wp_pte(): not copied. */
			WARN_ON_ONCE(1);
		}
		goto flush_and_return;
	}

	for (addr = start; addr != end; pte++, addr += PAGE_SIZE) {
		pte_t ptent = ptep_get(pte);
		unsigned long categories = p->cur_vma_category |
					   pt_bench_page_category(p, vma, addr, ptent);
		unsigned long next = addr + PAGE_SIZE;

		if (!pt_bench_scan_is_interesting_page(categories, p))
			continue;

		ret = pt_bench_scan_output(categories, p, addr, &next);
		if (next == addr)
			break;

		if (~p->arg.flags & PM_SCAN_WP_MATCHING)
			continue;
		if (~categories & PAGE_IS_WRITTEN)
			continue;

		/* make_uffd_wp_pte(): not copied. */
		WARN_ON_ONCE(1);
	}

flush_and_return:
	if (flush_end)
		flush_tlb_range(vma, start, addr);

	pte_unmap_unlock(start_pte, ptl);
	arch_leave_lazy_mmu_mode();

	cond_resched();
	return ret;
}

#ifdef CONFIG_HUGETLB_PAGE
/* pagemap_scan_hugetlb_entry() */
static int pt_bench_scan_hugetlb_entry(pte_t *ptep, unsigned long hmask,
				       unsigned long start, unsigned long end,
				       struct mm_walk *walk)
{
	struct pt_bench_scan_private *p = walk->private;
	unsigned long categories;
	pte_t pte;

	if (~p->arg.flags & PM_SCAN_WP_MATCHING) {
		/* Go the short route when not write-protecting pages. */

		pte = huge_ptep_get(walk->mm, start, ptep);
		categories = p->cur_vma_category | pt_bench_hugetlb_category(pte);

		if (!pt_bench_scan_is_interesting_page(categories, p))
			return 0;

		return pt_bench_scan_output(categories, p, start, &end);
	}

	/* Write-protecting: not copied. */
	WARN_ON_ONCE(1);
	return -EINVAL;
}
#else
#define pt_bench_scan_hugetlb_entry NULL
#endif

/* pagemap_scan_pte_hole() */
static int pt_bench_scan_pte_hole(unsigned long addr, unsigned long end,
				  int depth, struct mm_walk *walk)
{
	struct pt_bench_scan_private *p = walk->private;
	struct vm_area_struct *vma = walk->vma;
	unsigned long categories;
	int ret;

	if (!vma)
		return 0;

	/*
	 * In a uffd-wp VMA an unpopulated range is treated as written:
	 * uffd-wp registration populates page tables and installs markers
	 * with WP_UNPOPULATED, so a missing marker means the range was
	 * zapped. See the pte_none() handling in pagemap_page_category().
	 *
	 * hugetlb differs, see pagemap_hugetlb_category().
	 */
	categories = p->cur_vma_category;
	if (userfaultfd_wp(vma) && !is_vm_hugetlb_page(vma))
		categories |= PAGE_IS_WRITTEN;

	if (!pt_bench_scan_is_interesting_page(categories, p))
		return 0;

	ret = pt_bench_scan_output(categories, p, addr, &end);
	if (addr == end)
		return ret;

	if (~p->arg.flags & PM_SCAN_WP_MATCHING)
		return ret;

	/* Write-protecting: not copied. */
	WARN_ON_ONCE(1);
	return -EINVAL;
}

/* pagemap_scan_ops */
static const struct pt_stock_walk_ops pt_bench_scan_ops = {
	.ops = {
		.test_walk = pt_bench_scan_cb_test_walk,
		.pmd_entry = pt_bench_scan_pmd_entry,
		.pte_hole = pt_bench_scan_pte_hole,
	},
	.hugetlb = pt_bench_scan_hugetlb_entry,
};

/* The categories of a pt_iter entry, as the functions above find them. */
static unsigned long pt_bench_scan_category(const struct pt_bench_scan_private *p,
					    const struct pt_iter *it)
{
	bool hugetlb = pt_iter_has(it, PT_ATTR_HUGETLB);
	unsigned long categories = 0;

	/* Pages of a folio mapped by PTEs or by a THP PMD: the usual entry. */
	if (likely(it->type == PT_ITER_FOLIO) && !hugetlb) {
		categories = PAGE_IS_PRESENT;
		if (it->level != PT_ITER_PTE)
			categories |= PAGE_IS_HUGE;
		if (!pt_iter_has(it, PT_ATTR_UFFD_WP))
			categories |= PAGE_IS_WRITTEN;
		if ((p->masks_of_interest & PAGE_IS_FILE) &&
		    !folio_test_anon(it->folio))
			categories |= PAGE_IS_FILE;
		if (pt_iter_has(it, PT_ATTR_SOFT_DIRTY))
			categories |= PAGE_IS_SOFT_DIRTY;
		return categories;
	}

	if (hugetlb || it->level != PT_ITER_PTE)
		categories |= PAGE_IS_HUGE;

	switch (it->type) {
	case PT_ITER_NONE:
		break;
	case PT_ITER_FOLIO:
	case PT_ITER_PFN:
		categories |= PAGE_IS_PRESENT;
		if (!pt_iter_has(it, PT_ATTR_UFFD_WP))
			categories |= PAGE_IS_WRITTEN;
		if ((hugetlb || (p->masks_of_interest & PAGE_IS_FILE)) &&
		    it->folio && !folio_test_anon(it->folio))
			categories |= PAGE_IS_FILE;
		if (it->type == PT_ITER_PFN &&
		    (it->level == PT_ITER_PTE ? is_zero_pfn(pt_iter_pfn(it)) :
		     is_huge_zero_pmd(it->pmd)))
			categories |= PAGE_IS_PFNZERO;
		if (pt_iter_has(it, PT_ATTR_SOFT_DIRTY))
			categories |= PAGE_IS_SOFT_DIRTY;
		break;
	default:
		categories |= PAGE_IS_SWAPPED;
		if (!pt_iter_has(it, PT_ATTR_UFFD_WP))
			categories |= PAGE_IS_WRITTEN;
		if (!hugetlb && (p->masks_of_interest & PAGE_IS_FILE) &&
		    it->page && !folio_test_anon(page_folio(it->page)))
			categories |= PAGE_IS_FILE;
		if (pt_iter_has(it, PT_ATTR_SOFT_DIRTY))
			categories |= PAGE_IS_SOFT_DIRTY;
		break;
	}
	return categories;
}

/* The loop of pt_bench_scan_vma(), with the walk's @flags. */
static __always_inline int pt_bench_scan_loop(struct vm_area_struct *vma,
					      unsigned long start,
					      unsigned long end,
					      struct pt_bench_scan_private *p,
					      unsigned int flags)
{
	unsigned long categories, next;
	struct pt_iter it;
	int ret = 0;

	for_each_pt_entry(&it, vma, start, end, flags) {
		categories = p->cur_vma_category |
			     pt_bench_scan_category(p, &it);
		if (!pt_bench_scan_is_interesting_page(categories, p))
			continue;
		next = it.end;
		ret = pt_bench_scan_output(categories, p, it.addr, &next);
		if (ret)
			break;	/* output full or budget spent */
	}
	return ret;
}

/*
 * The scan of [start, end) of @vma, which pt_bench_scan_test_walk() let
 * through.  Holes are not reported: none can be interesting to the scans
 * of this benchmark (pt_bench_scan_walk() checks).
 */
static int pt_bench_scan_vma(struct vm_area_struct *vma, unsigned long start,
			     unsigned long end, struct pt_bench_scan_private *p)
{
	unsigned int flags = PT_ITER_BATCH | PT_ITER_IGNORE_WRITE |
			     PT_ITER_IGNORE_YOUNG | PT_ITER_IGNORE_DIRTY;
	unsigned long required = p->arg.category_mask & ~p->arg.category_inverted;

	if (required & PAGE_IS_PRESENT)
		flags |= PT_ITER_WANT_PRESENT;
	else if (required & PAGE_IS_SWAPPED)
		flags |= PT_ITER_WANT_NONPRESENT;
	/*
	 * Only PAGE_IS_FILE needs the page of a present entry (of a hugetlb
	 * one too): without it, runs of PTEs with the same bits are one
	 * entry, whatever pages they map.
	 */
	if (!(p->masks_of_interest & PAGE_IS_FILE))
		flags |= PT_ITER_NO_PAGE;
	return pt_bench_scan_loop(vma, start, end, p, flags);
}

/* What walk_page_range() with pagemap_scan_ops does, with pt_iter. */
static int pt_bench_scan_walk(struct mm_struct *mm, unsigned long start,
			      unsigned long end,
			      struct pt_bench_scan_private *p)
{
	struct mm_walk walk = { .mm = mm, .private = p };
	unsigned long c;
	int ret;
	struct vm_area_struct *vma;

	VMA_ITERATOR(vmi, mm, start);

	for_each_vma_range(vmi, vma, end) {
		walk.vma = vma;
		ret = pt_bench_scan_test_walk(start, end, &walk);
		if (ret > 0)
			continue;
		if (ret < 0)
			return ret;
		/*
		 * Whether a hole could be interesting: a pte_none() entry, a
		 * missing table or a none hugetlb entry; never, here.
		 */
		c = p->cur_vma_category;
		if (pt_bench_scan_is_interesting_page(c, p) ||
		    pt_bench_scan_is_interesting_page(c | PAGE_IS_WRITTEN, p) ||
		    pt_bench_scan_is_interesting_page(c | PAGE_IS_HUGE, p))
			return -EOPNOTSUPP;
		ret = pt_bench_scan_vma(vma, max(start, vma->vm_start),
					min(end, vma->vm_end), p);
		if (ret)
			return ret;
	}
	return 0;
}

/* pagemap_scan_init_bounce_buffer() */
static int pt_bench_scan_init_bounce_buffer(struct pt_bench_scan_private *p)
{
	if (!p->arg.vec_len)
		return 0;

	p->vec_buf_len = min_t(size_t, PAGEMAP_WALK_SIZE >> PAGE_SHIFT,
			       p->arg.vec_len);
	p->vec_buf = kmalloc_array(p->vec_buf_len, sizeof(*p->vec_buf),
				   GFP_KERNEL);
	if (!p->vec_buf)
		return -ENOMEM;

	p->vec_buf->start = 0;
	p->vec_buf->end = 0;
	p->vec_out = (struct page_region *)(long)p->arg.vec;

	return 0;
}

/* pagemap_scan_flush_buffer() */
static long pt_bench_scan_flush_buffer(struct pt_bench_scan_private *p)
{
	const struct page_region *buf = p->vec_buf;
	long n = p->vec_buf_index;

	if (!p->vec_buf)
		return 0;

	if (buf[n].end != buf[n].start)
		n++;

	if (!n)
		return 0;

	/* copy_to_user() */
	memcpy(p->vec_out, buf, n * sizeof(*buf));

	p->arg.vec_len -= n;
	p->vec_out += n;

	p->vec_buf_index = 0;
	p->vec_buf_len = min_t(size_t, p->vec_buf_len, p->arg.vec_len);
	p->vec_buf->start = 0;
	p->vec_buf->end = 0;

	return n;
}

/*
 * do_pagemap_scan() with the arguments in @arg (as pagemap_scan_get_args()
 * leaves them; arg->vec is a kernel array); walk_page_range() with
 * pagemap_scan_ops, or pt_bench_scan_walk() if @iter.  Returns the number
 * of ranges, and arg->walk_end.
 */
static long pt_bench_do_pagemap_scan(struct mm_struct *mm,
				     struct pm_scan_arg *arg, bool iter)
{
	struct pt_bench_scan_private p = {0};
	unsigned long walk_start;
	size_t n_ranges_out = 0;
	int ret;

	if (!mmget_not_zero(mm))
		return -ESRCH;

	/* pagemap_scan_get_args(): the fixups of the default values */
	p.arg = *arg;
	p.arg.end = ALIGN(p.arg.end, PAGE_SIZE);
	p.arg.walk_end = 0;
	if (!p.arg.max_pages)
		p.arg.max_pages = ULONG_MAX;

	p.masks_of_interest = p.arg.category_mask | p.arg.category_anyof_mask |
			      p.arg.return_mask;
	ret = pt_bench_scan_init_bounce_buffer(&p);
	if (ret)
		goto out_mmput;

	for (walk_start = p.arg.start; walk_start < p.arg.end;
			walk_start = p.arg.walk_end) {
		struct mmu_notifier_range range;
		long n_out;

		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}

		ret = mmap_read_lock_killable(mm);
		if (ret)
			break;

		/* Protection change for the range is going to happen. */
		if (p.arg.flags & PM_SCAN_WP_MATCHING) {
			mmu_notifier_range_init(&range, MMU_NOTIFY_PROTECTION_VMA, 0,
						mm, walk_start, p.arg.end);
			mmu_notifier_invalidate_range_start(&range);
		}

		if (iter)
			ret = pt_bench_scan_walk(mm, walk_start, p.arg.end, &p);
		else
			ret = walk_page_range(mm, walk_start, p.arg.end,
					      &pt_bench_scan_ops.ops, &p);

		if (p.arg.flags & PM_SCAN_WP_MATCHING)
			mmu_notifier_invalidate_range_end(&range);

		mmap_read_unlock(mm);

		n_out = pt_bench_scan_flush_buffer(&p);
		if (n_out < 0)
			ret = n_out;
		else
			n_ranges_out += n_out;

		if (ret != -ENOSPC)
			break;

		if (p.arg.vec_len == 0 || p.found_pages == p.arg.max_pages)
			break;
	}

	/* ENOSPC signifies early stop (buffer full) from the walk. */
	if (!ret || ret == -ENOSPC)
		ret = n_ranges_out;

	/* The walk_end isn't set when ret is zero */
	if (!p.arg.walk_end)
		p.arg.walk_end = p.arg.end;
	/* pagemap_scan_writeback_args() */
	arg->walk_end = p.arg.walk_end;

	kfree(p.vec_buf);
out_mmput:
	mmput(mm);
	return ret;
}

/* Ranges of the output of the scans, at most. */
#define PT_BENCH_SCAN_VEC_LEN	16384

static void pt_bench_scan(struct kunit *test)
{
	const enum pt_bench_kind *kind = test->param_value;
	unsigned long addr, len, present, i;
	u64 t0, t1, t2, t_cb = U64_MAX, t_pi = U64_MAX;
	struct page_region *cb, *pi;
	struct pm_scan_arg a_cb, a_pi;
	long n_cb = 0, n_pi = 0;
	struct mm_struct *mm;
	int r;

	addr = pt_bench_map(test, *kind);
	len = pt_bench_len(*kind);
	mm = current->mm;
	present = len >> (*kind == PT_BENCH_SPARSE ? 16 : PAGE_SHIFT);
	cb = kvcalloc(PT_BENCH_SCAN_VEC_LEN, sizeof(*cb), GFP_KERNEL);
	pi = kvcalloc(PT_BENCH_SCAN_VEC_LEN, sizeof(*pi), GFP_KERNEL);
	if (!cb || !pi) {
		kvfree(cb);
		kvfree(pi);
		kunit_skip(test, "no memory for the scan output");
	}

	/*
	 * The present pages (all written: no uffd-wp) of the VMA and a PMD's
	 * worth of address space on either side, up to a budget of about
	 * three quarters of them that ends within a folio or a range.
	 */
	memset(&a_cb, 0, sizeof(a_cb));
	a_cb.size = sizeof(a_cb);
	a_cb.start = addr - PMD_SIZE;
	a_cb.end = addr + len + PMD_SIZE;
	a_cb.vec_len = PT_BENCH_SCAN_VEC_LEN;
	a_cb.max_pages = present / 4 * 3 + 5;
	a_cb.category_mask = PAGE_IS_PRESENT | PAGE_IS_WRITTEN;
	a_cb.return_mask = PAGE_IS_PRESENT | PAGE_IS_WRITTEN | PAGE_IS_HUGE;

	for (r = 0; r < PT_BENCH_ROUNDS; r++) {
		a_pi = a_cb;
		a_cb.vec = (unsigned long)cb;
		a_pi.vec = (unsigned long)pi;
		memset(cb, 0, PT_BENCH_SCAN_VEC_LEN * sizeof(*cb));
		memset(pi, 0xff, PT_BENCH_SCAN_VEC_LEN * sizeof(*pi));
		t0 = ktime_get_ns();
		n_cb = pt_bench_do_pagemap_scan(mm, &a_cb, false);
		t1 = ktime_get_ns();
		n_pi = pt_bench_do_pagemap_scan(mm, &a_pi, true);
		t2 = ktime_get_ns();
		t_cb = min(t_cb, t1 - t0);
		t_pi = min(t_pi, t2 - t1);
	}

	KUNIT_EXPECT_GT(test, n_cb, 0L);
	KUNIT_EXPECT_EQ(test, n_cb, n_pi);
	KUNIT_EXPECT_EQ(test, a_cb.walk_end, a_pi.walk_end);
	KUNIT_EXPECT_LT(test, a_cb.walk_end, a_cb.end);
	present = 0;
	for (i = 0; i < n_cb && i < n_pi; i++) {
		present += (cb[i].end - cb[i].start) >> PAGE_SHIFT;
		if (memcmp(&cb[i], &pi[i], sizeof(cb[i]))) {
			KUNIT_FAIL(test,
				   "range %lu differs: callbacks [%#llx, %#llx) %#llx, pt_iter [%#llx, %#llx) %#llx",
				   i, cb[i].start, cb[i].end, cb[i].categories,
				   pi[i].start, pi[i].end, pi[i].categories);
			break;
		}
	}
	KUNIT_EXPECT_EQ(test, present, (unsigned long)a_cb.max_pages);
	kvfree(cb);
	kvfree(pi);

	kunit_info(test,
		   "bench scan-%s: %lu pages (%ld ranges); callbacks %llu ns, pt_iter %llu ns per walk\n",
		   pt_bench_names[*kind], present, n_cb, t_cb, t_pi);
}

static struct kunit_case pt_bench_cases[] = {
	KUNIT_CASE_PARAM(pt_bench_walkers, pt_bench_gen_params),
	KUNIT_CASE(pt_bench_many_vmas),
	KUNIT_CASE_PARAM(pt_bench_pagemap, pt_bench_gen_params),
	KUNIT_CASE_PARAM(pt_bench_scan, pt_bench_gen_params),
	{}
};

static struct kunit_suite pt_bench_suite = {
	.name = "pt_iter_bench",
	.test_cases = pt_bench_cases,
};

kunit_test_suite(pt_bench_suite);

MODULE_DESCRIPTION("Benchmark of pt_iter against walk_page_range()");
MODULE_LICENSE("GPL");

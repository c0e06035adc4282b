// SPDX-License-Identifier: GPL-2.0
/*
 * A benchmark of pt_iter against the walker it replaces.
 *
 * Each case maps memory of one kind into a KUnit test mm, faults it in, and
 * gathers the same statistics (pages mapped, anonymous, young, dirty, PMD-
 * and hugetlb-mapped, other non-empty entries) over the whole VMA in two
 * ways: with walk_page_range() and mm_walk_ops callbacks written the way
 * /proc/PID/smaps writes them in Linux 6.12 (a ->pmd_entry() that handles a
 * THP and loops over a PTE table entry by entry, a ->hugetlb_entry()), and
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
#include <linux/ktime.h>
#include <linux/mman.h>
#include <linux/pagewalk.h>
#include <linux/pt_iter.h>
#include <linux/uaccess.h>

#define PT_BENCH_ROUNDS	20

struct pt_bench_stats {
	unsigned long present;
	unsigned long anon;
	unsigned long young;
	unsigned long dirty;
	unsigned long pmd;
	unsigned long hugetlb;
	unsigned long other;
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

/* The callback walker, shaped like smaps_pte_range() in Linux 6.12. */
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
		return 0;
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
	cond_resched();
	return 0;
}

#ifdef CONFIG_HUGETLB_PAGE
/* Shaped like smaps_hugetlb_range() in Linux 6.12. */
static int pt_bench_hugetlb_entry(pte_t *ptep, unsigned long hmask,
				  unsigned long addr, unsigned long end,
				  struct mm_walk *walk)
{
	struct pt_bench_stats *st = walk->private;
	unsigned long nr = (end - addr) >> PAGE_SHIFT;
	pte_t pte = huge_ptep_get(walk->mm, addr, ptep);

	if (pte_present(pte)) {
		pt_bench_account(st, page_folio(pte_page(pte)), nr,
				 pte_young(pte), huge_pte_dirty(pte));
		st->hugetlb += nr;
	} else if (!huge_pte_none(pte)) {
		st->other += nr;
	}
	return 0;
}
#else
#define pt_bench_hugetlb_entry	NULL
#endif

static const struct mm_walk_ops pt_bench_ops = {
	.pmd_entry	= pt_bench_pmd_entry,
	.hugetlb_entry	= pt_bench_hugetlb_entry,
	.walk_lock	= PGWALK_RDLOCK,
};

static void pt_bench_callbacks(struct vm_area_struct *vma,
			       struct pt_bench_stats *st)
{
	walk_page_range(vma->vm_mm, vma->vm_start, vma->vm_end,
			&pt_bench_ops, st);
}

/* The same statistics with pt_iter. */
static void pt_bench_iter(struct vm_area_struct *vma,
			  struct pt_bench_stats *st)
{
	struct pt_iter it;

	for_each_pt_entry(&it, vma, vma->vm_start, vma->vm_end,
			  PT_ITER_BATCH) {
		unsigned long nr = pt_iter_nr_pages(&it);

		switch (it.type) {
		case PT_ITER_NONE:
		case PT_ITER_PFN:
			break;
		case PT_ITER_FOLIO:
			pt_bench_account(st, it.folio, nr,
					 it.attrs & PT_ATTR_YOUNG,
					 it.attrs & PT_ATTR_DIRTY);
			if (it.attrs & PT_ATTR_HUGETLB)
				st->hugetlb += nr;
			else if (it.level == PT_ITER_PMD)
				st->pmd += nr;
			break;
		default:
			st->other += nr;
			break;
		}
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

/* Map and fault in the memory of @kind; returns its VMA's start. */
static unsigned long pt_bench_map(struct kunit *test, enum pt_bench_kind kind)
{
	unsigned long addr, len = SZ_64M;

	switch (kind) {
	case PT_BENCH_SMALL:
		addr = pt_bench_anon(test, len, MADV_NOHUGEPAGE);
		pt_bench_fault(test, addr, len, PAGE_SIZE);
		break;
	case PT_BENCH_SPARSE:
		len = SZ_1G;
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
		len = SZ_16M;
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
	KUNIT_EXPECT_EQ(test, cb.other, pi.other);

	kunit_info(test,
		   "bench %s: %lu pages (%lu pmd, %lu hugetlb); callbacks %llu ns, pt_iter %llu ns per walk\n",
		   pt_bench_names[*kind], cb.present, cb.pmd, cb.hugetlb,
		   t_cb, t_pi);
}

static struct kunit_case pt_bench_cases[] = {
	KUNIT_CASE_PARAM(pt_bench_walkers, pt_bench_gen_params),
	{}
};

static struct kunit_suite pt_bench_suite = {
	.name = "pt_iter_bench",
	.test_cases = pt_bench_cases,
};

kunit_test_suite(pt_bench_suite);

MODULE_DESCRIPTION("Benchmark of pt_iter against walk_page_range()");
MODULE_LICENSE("GPL");

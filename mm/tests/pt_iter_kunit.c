// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for pt_iter, the page table iterator of <linux/pt_iter.h>.
 *
 * Every test builds real mappings in an mm attached to the test thread
 * (kunit_vm_mmap()), faults them in from the kernel (clear_user() writes,
 * copy_from_user() reads), sometimes installs swap-format entries itself
 * under the page table lock, and then walks the range and compares the
 * sequence of entries with the one expected.
 *
 * A walk is recorded into an array of struct pt_rec: the body of the loop
 * only copies fields and evaluates conditions that need the page table lock
 * (is the lock held, is it the right one, does the raw value match the
 * table); every KUnit expectation is checked after the loop, so that a
 * failure never reports from atomic context.  pt_walk_check() checks the
 * invariants that hold for any walk; the tests then check the exact
 * sequence.
 *
 * Kernel command line for the hugetlb tests (they skip without it):
 *   x86_64: hugepagesz=1G hugepages=1 hugepagesz=2M hugepages=8
 *   arm64:  the same, plus hugepagesz=64K hugepages=8 hugepagesz=32M
 *	     hugepages=2
 */

#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/hugetlb.h>
#include <linux/jiffies.h>
#include <linux/khugepaged.h>
#include <linux/kthread.h>
#include <linux/lockdep.h>
#include <linux/mman.h>
#include <linux/mount.h>
#include <linux/pagemap.h>
#include <linux/pagewalk.h>
#include <linux/pfn_t.h>
#include <linux/pgtable.h>
#include <linux/pt_iter.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/shmem_fs.h>
#include <linux/swapops.h>
#include <linux/uaccess.h>
#include <linux/userfaultfd_k.h>

#include "../internal.h"
#include "pt_stock_walk.h"

#define PT_TEST_MAX_REC		520

/* Attributes compared by default: everything but the accessed bit. */
#define PT_TEST_SD	(IS_ENABLED(CONFIG_MEM_SOFT_DIRTY) ? PT_ATTR_SOFT_DIRTY : 0)
#define PT_TEST_MASK	(PT_ATTR_WRITE | PT_ATTR_DIRTY | PT_ATTR_UFFD_WP |	\
			 PT_ATTR_CONT | PT_ATTR_HUGETLB |			\
			 PT_ATTR_SHARED_TABLE | PT_ATTR_CLIPPED | PT_TEST_SD)
/* A page written by a fault: writable, dirty (and soft-dirty). */
#define PT_WRITTEN	(PT_ATTR_WRITE | PT_ATTR_DIRTY | PT_TEST_SD)
/* The same, accessed since. */
#define PT_WRITTEN_Y	(PT_WRITTEN | PT_ATTR_YOUNG)

#ifdef CONT_PTE_SHIFT
#define PT_TEST_MTHP_ORDER	(CONT_PTE_SHIFT - PAGE_SHIFT)
#else
#define PT_TEST_MTHP_ORDER	(16 - PAGE_SHIFT)
#endif

#define P(n)			((unsigned long)(n) << PAGE_SHIFT)

#ifdef CONFIG_ARM64_CONTPTE
#define PT_TEST_CONTPTE		true
#define PT_TEST_CONT_SIZE	CONT_PTE_SIZE
#else
#define PT_TEST_CONTPTE		false
#define PT_TEST_CONT_SIZE	PAGE_SIZE
#endif

/* For pt_exp(): do not check the level. */
#define PT_ANY_LEVEL		((enum pt_iter_level)-1)

/* One entry of a walk, and what was checked while its lock was held. */
struct pt_rec {
	unsigned long addr;
	unsigned long end;
	unsigned long nr_pages;
	unsigned long size;
	enum pt_iter_type type;
	enum pt_iter_level level;
	unsigned int attrs;
	struct folio *folio;
	struct page *page;
	unsigned long pfn;
	swp_entry_t swp;
	pte_t pte;
	pmd_t pmd;
	spinlock_t *ptl;	/* the entry's page table lock */
	int depth;		/* lockdep depth in the loop body */
	bool ptl_held;		/* ptl is locked, by us if lockdep knows */
	bool ptl_right;		/* ptl is the lock of this entry's table */
	bool raw_right;		/* pointer and raw value match the table */
	bool batch_right;	/* every PTE of a batch alike and consecutive */
	bool walk_lock_held;	/* the hugetlb VMA lock is held */
	bool folio_right;	/* page_folio(page) == folio */
	bool table_last;	/* pt_iter_table_last(), in a walk of all */
	long page_idx;		/* folio_page_idx(folio, page) */
	long folio_nr;		/* folio_nr_pages(folio) */
};

struct pt_walk {
	struct vm_area_struct *vma;
	unsigned long start;
	unsigned long end;
	unsigned int flags;
	bool hugetlb;
	bool loose;		/* racing with faults: ignore hw A/D bits */
	unsigned long hsize;	/* hstate size for hugetlb */
	int walk_extra;		/* locks held for the whole walk */
	int depth_base;
	int depth_after;
	bool last_ptl_locked;	/* the last entry's ptl, after the loop */
	bool walk_lock_after;	/* the hugetlb VMA lock, after the loop */
	int nr;
	struct pt_rec rec[PT_TEST_MAX_REC];
};

static int pt_test_lock_depth(void)
{
#ifdef CONFIG_LOCKDEP
	return current->lockdep_depth;
#else
	return -1;
#endif
}

static bool pt_test_depth_valid(void)
{
	return IS_ENABLED(CONFIG_LOCKDEP) && debug_locks;
}

/* Whether @ptl is locked, by anyone. */
static bool pt_test_locked(spinlock_t *ptl)
{
#ifdef CONFIG_PREEMPT_RT
	return rt_mutex_base_is_locked(&ptl->lock);
#else
	return raw_spin_is_locked(&ptl->rlock);
#endif
}

/* Whether @ptl is locked, and by us if lockdep can tell. */
static bool pt_test_spin_held(spinlock_t *ptl)
{
	if (!pt_test_locked(ptl))
		return false;
#ifdef CONFIG_LOCKDEP
	return lockdep_is_held(ptl);
#else
	return true;
#endif
}

static struct rw_semaphore *pt_test_walk_rwsem(struct vm_area_struct *vma)
{
#ifdef CONFIG_HUGETLB_PAGE
	if (is_vm_hugetlb_page(vma) && __vma_shareable_lock(vma)) {
		struct hugetlb_vma_lock *vma_lock = vma->vm_private_data;

		return &vma_lock->rw_sema;
	}
#endif
	return NULL;
}

static bool pt_test_walk_lock_held(struct vm_area_struct *vma)
{
	struct rw_semaphore *sem = pt_test_walk_rwsem(vma);

	if (!sem || !rwsem_is_locked(sem))
		return false;
#ifdef CONFIG_LOCKDEP
	return lockdep_is_held(sem);
#else
	return true;
#endif
}

/* The PMD entry covering @addr, or NULL if there is no PMD table. */
static pmd_t *pt_test_pmdp(struct mm_struct *mm, unsigned long addr)
{
	pgd_t *pgdp = pgd_offset(mm, addr);
	p4d_t *p4dp;
	pud_t *pudp;
	pud_t pud;

	if (pgd_none(pgdp_get(pgdp)))
		return NULL;
	p4dp = p4d_offset(pgdp, addr);
	if (p4d_none(p4dp_get(p4dp)))
		return NULL;
	pudp = pud_offset(p4dp, addr);
	pud = pudp_get(pudp);
	if (pud_none(pud) || !pud_present(pud) || pud_leaf(pud))
		return NULL;
	return pmd_offset(pudp, addr);
}

static pte_t pt_test_pte_norm(const struct pt_walk *w, pte_t pte)
{
	if (w->loose && pte_present(pte))
		pte = pte_mkold(pte_mkclean(pte));
	return pte;
}

static pmd_t pt_test_pmd_norm(const struct pt_walk *w, pmd_t pmd)
{
	if (w->loose && pmd_present(pmd))
		pmd = pmd_mkold(pmd_mkclean(pmd));
	return pmd;
}

/* Value bits that must be identical across a batch. */
static unsigned int pt_test_pte_bits(pte_t pte)
{
	return (pte_write(pte) ? PT_ATTR_WRITE : 0) |
	       (pte_young(pte) ? PT_ATTR_YOUNG : 0) |
	       (pte_dirty(pte) ? PT_ATTR_DIRTY : 0) |
	       (pte_soft_dirty(pte) ? PT_ATTR_SOFT_DIRTY : 0) |
	       (pte_uffd_wp(pte) ? PT_ATTR_UFFD_WP : 0);
}

/* The attribute bits that the PT_ITER_IGNORE_* of @flags let a batch mix. */
static unsigned int pt_test_ignored(unsigned int flags)
{
	return (flags & PT_ITER_IGNORE_WRITE ? PT_ATTR_WRITE : 0) |
	       (flags & PT_ITER_IGNORE_YOUNG ? PT_ATTR_YOUNG : 0) |
	       (flags & PT_ITER_IGNORE_DIRTY ? PT_ATTR_DIRTY : 0) |
	       (flags & PT_ITER_IGNORE_SOFT_DIRTY ? PT_ATTR_SOFT_DIRTY : 0) |
	       (flags & PT_ITER_IGNORE_UFFD_WP ? PT_ATTR_UFFD_WP : 0);
}

/* Check, under the entry's lock, the raw value, pointer and lock. */
static void pt_record_table(struct pt_walk *w, const struct pt_iter *it,
			    struct pt_rec *r)
{
	struct vm_area_struct *vma = w->vma;
	struct mm_struct *mm = vma->vm_mm;
	unsigned long i;
	pmd_t *pmdp;
	pte_t *ptep;

#ifdef CONFIG_HUGETLB_PAGE
	if (w->hugetlb) {
		struct hstate *h = hstate_vma(vma);
		unsigned long start = it->addr & huge_page_mask(h);

		ptep = hugetlb_walk(vma, start, huge_page_size(h));
		if (huge_page_size(h) == PUD_SIZE)
			/* Decoded as the PUD it is: it->pud and it->pudp. */
			r->raw_right = ptep && (pud_t *)ptep == it->pudp &&
				pud_same(pudp_get(it->pudp), it->pud);
		else
			r->raw_right = ptep && ptep == it->ptep &&
				pte_same(pt_test_pte_norm(w, huge_ptep_get(mm, start, ptep)),
					 pt_test_pte_norm(w, it->pte));
		r->ptl_right = it->ptl == huge_pte_lockptr(h, mm, it->ptep);
		return;
	}
#endif
	switch (it->level) {
	case PT_ITER_PTE:
		pmdp = pt_test_pmdp(mm, it->addr);
		if (!pmdp)
			return;
		r->ptl_right = it->ptl == pte_lockptr(mm, pmdp);
		ptep = pte_offset_kernel(pmdp, it->addr);
		if (ptep != it->ptep)
			return;
		if (it->type == PT_ITER_NONE) {
			r->raw_right = true;
			for (i = 0; i < r->nr_pages; i++)
				if (!pte_none(ptep_get(ptep + i)))
					r->raw_right = false;
			return;
		}
		r->raw_right = pte_same(pt_test_pte_norm(w, ptep_get(ptep)),
					pt_test_pte_norm(w, it->pte));
		r->batch_right = true;
		for (i = 1; i < r->nr_pages; i++) {
			pte_t pte = ptep_get(ptep + i);

			if (!pte_present(pte) ||
			    pte_pfn(pte) != pt_iter_pfn(it) + i ||
			    (!w->loose && ((pt_test_pte_bits(pte) ^
					    pt_test_pte_bits(it->pte)) &
					   ~pt_test_ignored(w->flags))))
				r->batch_right = false;
		}
		break;
	case PT_ITER_PMD:
		pmdp = pt_test_pmdp(mm, it->addr);
		if (!pmdp)
			return;
		r->ptl_right = it->ptl == pmd_lockptr(mm, pmdp);
		r->raw_right = pmdp == it->pmdp &&
			pmd_same(pt_test_pmd_norm(w, pmdp_get(pmdp)),
				 pt_test_pmd_norm(w, it->pmd));
		break;
	case PT_ITER_PUD:
		r->ptl_right = it->ptl == pud_lockptr(mm, it->pudp);
		r->raw_right = pud_same(pudp_get(it->pudp), it->pud);
		break;
	default:
		/* Holes above the PUD level hold no lock. */
		break;
	}
}

/* Whether a walk with @flags reports every entry: holes and every type. */
static bool pt_test_every_entry(unsigned int flags)
{
	unsigned int want = flags & PT_ITER_WANT_ALL;

	return (flags & PT_ITER_HOLES) && (!want || want == PT_ITER_WANT_ALL);
}

/* Called in the loop body: copy the entry, check what needs its lock. */
static void pt_record(struct pt_walk *w, const struct pt_iter *it)
{
	struct pt_rec *r;

	if (w->nr++ >= PT_TEST_MAX_REC)
		return;
	r = &w->rec[w->nr - 1];
	*r = (struct pt_rec) {
		.addr = it->addr,
		.end = it->end,
		.nr_pages = pt_iter_nr_pages(it),
		.size = pt_iter_size(it),
		.type = it->type,
		.level = it->level,
		.attrs = pt_iter_attrs(it),
		.folio = it->folio,
		.page = it->page,
		.pfn = pt_iter_pfn(it),
		.swp = pt_iter_swp(it),
		.pte = it->pte,
		.pmd = it->pmd,
		.ptl = it->ptl,
		.depth = pt_test_lock_depth(),
		.walk_lock_held = pt_test_walk_lock_held(w->vma),
		.page_idx = -1,
		.table_last = pt_test_every_entry(w->flags) &&
			      pt_iter_table_last(it),
	};
	if (it->page && it->folio) {
		r->folio_right = page_folio(it->page) == it->folio;
		r->page_idx = folio_page_idx(it->folio, it->page);
		r->folio_nr = folio_nr_pages(it->folio);
	}
	if (it->ptl) {
		r->ptl_held = pt_test_spin_held(it->ptl);
		pt_record_table(w, it, r);
	}
}

static void pt_walk_begin(struct pt_walk *w, struct vm_area_struct *vma,
			  unsigned long start, unsigned long end,
			  unsigned int flags)
{
	w->vma = vma;
	w->start = start;
	w->end = end;
	w->flags = flags;
	w->nr = 0;
	w->hugetlb = is_vm_hugetlb_page(vma);
	w->hsize = PAGE_SIZE;
#ifdef CONFIG_HUGETLB_PAGE
	if (w->hugetlb)
		w->hsize = huge_page_size(hstate_vma(vma));
#endif
	w->walk_extra = pt_test_walk_rwsem(vma) ? 1 : 0;
	w->depth_base = pt_test_lock_depth();
}

static void pt_walk_finish(struct pt_walk *w)
{
	int last = min(w->nr, PT_TEST_MAX_REC) - 1;

	w->depth_after = pt_test_lock_depth();
	if (last < 0 || !w->rec[last].ptl)
		w->last_ptl_locked = false;
	else if (!w->loose)
		w->last_ptl_locked = pt_test_locked(w->rec[last].ptl);
	else	/* another thread may hold it: only lockdep can tell */
		w->last_ptl_locked = pt_test_depth_valid() &&
				     pt_test_spin_held(w->rec[last].ptl);
	w->walk_lock_after = pt_test_walk_lock_held(w->vma);
}

/* Walk [start, end) of @vma; the mmap lock is held. */
static void pt_walk_locked(struct pt_walk *w, struct vm_area_struct *vma,
			   unsigned long start, unsigned long end,
			   unsigned int flags)
{
	struct pt_iter it;

	pt_walk_begin(w, vma, start, end, flags);
	for_each_pt_entry(&it, vma, start, end, flags)
		pt_record(w, &it);
	pt_walk_finish(w);
}

/* As pt_iter.rst has it: where PMD_SIZE == PUD_SIZE, such a leaf is a PMD. */
static enum pt_iter_level pt_test_size_level(unsigned long size)
{
	if (size == PMD_SIZE)
		return PT_ITER_PMD;
	if (size >= PUD_SIZE)
		return PT_ITER_PUD;
	if (size >= PMD_SIZE)
		return PT_ITER_PMD;
	return PT_ITER_PTE;
}

#define PT_CHECK(cond, fmt, ...)					\
	do {								\
		if (!(cond)) {						\
			ok = false;					\
			KUNIT_FAIL(test, "entry %d [+%#lx, +%#lx): " fmt, \
				   i, r->addr - w->start,		\
				   r->end - w->start, ##__VA_ARGS__);	\
		}							\
	} while (0)

/*
 * The invariants of any walk, whatever the mappings: coverage and order,
 * locking, the fields each type must and must not have.
 */
static bool pt_walk_check(struct kunit *test, const struct pt_walk *w)
{
	bool depth = pt_test_depth_valid();
	bool holes = w->flags & PT_ITER_HOLES;
	unsigned long prev = w->start;
	bool ok = true;
	int i;

	KUNIT_EXPECT_LE_MSG(test, w->nr, PT_TEST_MAX_REC, "walk too long");
	if (w->nr > PT_TEST_MAX_REC)
		return false;

	for (i = 0; i < w->nr; i++) {
		const struct pt_rec *r = &w->rec[i];
		unsigned long lsize = PAGE_SIZE, lstart;
		int locks;

		PT_CHECK(PAGE_ALIGNED(r->addr) && PAGE_ALIGNED(r->end),
			 "unaligned");
		PT_CHECK(r->addr < r->end, "empty entry");
		PT_CHECK(r->addr >= prev, "not after the previous entry");
		PT_CHECK(!holes || r->addr == prev, "gap with PT_ITER_HOLES");
		PT_CHECK(r->end <= w->end, "beyond the range");
		PT_CHECK(r->nr_pages == (r->end - r->addr) >> PAGE_SHIFT &&
			 r->size == r->end - r->addr, "nr_pages/size");
		PT_CHECK(r->type <= PT_ITER_MARKER, "bad type %d", r->type);
		/* Only holes can begin at a missing P4D or PGD entry. */
		PT_CHECK(r->level <= (r->type == PT_ITER_NONE ? PT_ITER_PGD :
				      PT_ITER_PUD), "bad level %d", r->level);
		prev = r->end;

		if (w->walk_extra)
			PT_CHECK(r->walk_lock_held, "hugetlb VMA lock not held");
		/*
		 * Where every entry is reported, the last one of a PTE table
		 * in the walk (it ends where the table or the walk ends) says
		 * so, and no other entry does.
		 */
		if (pt_test_every_entry(w->flags))
			PT_CHECK(r->table_last ==
				 (!w->hugetlb && r->level == PT_ITER_PTE &&
				  r->ptl && (r->end == w->end ||
					     !(r->end & ~PMD_MASK))),
				 "pt_iter_table_last() %d", r->table_last);

		if (r->type == PT_ITER_NONE) {
			PT_CHECK(holes, "hole without PT_ITER_HOLES");
			PT_CHECK(!r->folio && !r->page, "hole with a page");
			PT_CHECK(w->hugetlb || r->level != PT_ITER_PTE || r->ptl,
				 "hole of a PTE table without its lock");
			PT_CHECK(w->hugetlb || !(r->attrs & PT_ATTR_HUGETLB),
				 "PT_ATTR_HUGETLB on a hole outside hugetlb");
			if (r->ptl) {
				PT_CHECK(!w->hugetlb && r->level == PT_ITER_PTE,
					 "locked hole not at PTE level");
				PT_CHECK((r->addr & PMD_MASK) ==
					 ((r->end - 1) & PMD_MASK),
					 "locked hole spans PTE tables");
				PT_CHECK(r->ptl_held, "ptl not held");
				PT_CHECK(r->ptl_right, "wrong ptl");
				PT_CHECK(r->raw_right, "locked hole not empty");
			}
			locks = r->ptl ? 2 : 0;
			if (depth)
				PT_CHECK(r->depth == w->depth_base +
					 w->walk_extra + locks,
					 "%d locks held, %d expected",
					 r->depth - w->depth_base,
					 w->walk_extra + locks);
			continue;
		}

		/* Present and swap-format entries always hold the lock. */
		PT_CHECK(r->ptl && r->ptl_held, "ptl not held");
		PT_CHECK(r->ptl_right, "wrong ptl");
		PT_CHECK(r->raw_right, "raw value/pointer mismatch");
		locks = (!w->hugetlb && r->level == PT_ITER_PTE) ? 2 : 1;
		if (depth)
			PT_CHECK(r->depth == w->depth_base + w->walk_extra +
				 locks, "%d locks held, %d expected",
				 r->depth - w->depth_base,
				 w->walk_extra + locks);
		PT_CHECK(!!(r->attrs & PT_ATTR_HUGETLB) == w->hugetlb,
			 "PT_ATTR_HUGETLB");
		if (!w->hugetlb)
			PT_CHECK(!(r->attrs & PT_ATTR_SHARED_TABLE),
				 "PT_ATTR_SHARED_TABLE without hugetlb");

		/* Leaf geometry and clipping. */
		if (w->hugetlb) {
			lsize = w->hsize;
			PT_CHECK(r->level == pt_test_size_level(lsize),
				 "hugetlb level %d", r->level);
			PT_CHECK(!!(r->attrs & PT_ATTR_CONT) ==
				 (lsize != PAGE_SIZE && lsize != PMD_SIZE &&
				  lsize != PUD_SIZE), "PT_ATTR_CONT");
		} else if (r->level == PT_ITER_PMD) {
			lsize = PMD_SIZE;
		} else if (r->level == PT_ITER_PUD) {
			lsize = PUD_SIZE;
		}
		if (w->hugetlb || r->level != PT_ITER_PTE) {
			lstart = r->addr & ~(lsize - 1);
			PT_CHECK(r->end <= lstart + lsize, "beyond the leaf");
			PT_CHECK(!!(r->attrs & PT_ATTR_CLIPPED) ==
				 (r->addr != lstart || r->end != lstart + lsize),
				 "PT_ATTR_CLIPPED");
		} else if (r->attrs & PT_ATTR_CONT) {
			/* A contpte block the walk does not cover whole. */
			lsize = PT_TEST_CONT_SIZE;
			PT_CHECK(!!(r->attrs & PT_ATTR_CLIPPED) ==
				 (ALIGN_DOWN(r->addr, lsize) < w->start ||
				  ALIGN(r->end, lsize) > w->end),
				 "PT_ATTR_CLIPPED of a contpte batch");
		} else {
			PT_CHECK(!(r->attrs & PT_ATTR_CLIPPED),
				 "PT_ATTR_CLIPPED on a PTE");
		}
		if (!w->hugetlb && r->level == PT_ITER_PTE) {
			if (r->type != PT_ITER_FOLIO ||
			    !(w->flags & PT_ITER_BATCH))
				PT_CHECK(r->nr_pages == 1, "PTE entry of %lu pages",
					 r->nr_pages);
			else
				PT_CHECK(r->batch_right, "PTEs of the batch differ");
		}

		switch (r->type) {
		case PT_ITER_FOLIO:
			PT_CHECK(r->folio && r->page && r->folio_right,
				 "folio/page");
			PT_CHECK(r->page && page_to_pfn(r->page) == r->pfn,
				 "pfn");
			PT_CHECK(r->page_idx >= 0 &&
				 r->page_idx + r->nr_pages <= r->folio_nr,
				 "pages %ld+%lu beyond the folio of %ld",
				 r->page_idx, r->nr_pages, r->folio_nr);
			break;
		case PT_ITER_PFN:
			PT_CHECK(!r->folio && !r->page, "pfn entry with a page");
			break;
		case PT_ITER_SWAP:
			PT_CHECK(!r->folio && !r->page && !r->pfn,
				 "swap entry with a page");
			PT_CHECK(r->swp.val && !non_swap_entry(r->swp),
				 "not a swap entry");
			break;
		case PT_ITER_MIGRATION:
			PT_CHECK(is_migration_entry(r->swp), "swp");
			PT_CHECK(r->folio && r->page && r->folio_right,
				 "folio/page");
			break;
		case PT_ITER_DEVICE:
			PT_CHECK(is_device_private_entry(r->swp) ||
				 is_device_exclusive_entry(r->swp), "swp");
			PT_CHECK(r->folio && r->page && r->folio_right,
				 "folio/page");
			break;
		case PT_ITER_HWPOISON:
			PT_CHECK(is_hwpoison_entry(r->swp), "swp");
			PT_CHECK(r->page && !r->folio, "page");
			break;
		case PT_ITER_MARKER:
			PT_CHECK(is_pte_marker_entry(r->swp), "swp");
			PT_CHECK(!r->page && !r->folio, "page");
			break;
		default:
			break;
		}
		if (r->type >= PT_ITER_MIGRATION && r->type <= PT_ITER_HWPOISON)
			PT_CHECK(r->page && r->pfn == page_to_pfn(r->page) &&
				 r->pfn - swp_offset_pfn(r->swp) ==
				 (r->addr & (lsize - 1)) >> PAGE_SHIFT,
				 "pfn of a pfn swap entry");
	}

	if (holes && w->nr)
		KUNIT_EXPECT_EQ_MSG(test, prev, w->end,
				    "PT_ITER_HOLES walk does not cover the range");
	if (depth)
		KUNIT_EXPECT_EQ_MSG(test, w->depth_after, w->depth_base,
				    "locks held after the loop");
	KUNIT_EXPECT_FALSE_MSG(test, w->last_ptl_locked,
			       "last ptl still locked after the loop");
	KUNIT_EXPECT_FALSE_MSG(test, w->walk_lock_after,
			       "hugetlb VMA lock still held after the loop");
	return ok && w->depth_after == w->depth_base && !w->last_ptl_locked;
}

static struct pt_walk *pt_walk_alloc(struct kunit *test)
{
	struct pt_walk *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	return w;
}

/* Walk [start, end) of the VMA at @start, under mmap_read_lock. */
static struct pt_walk *pt_test_walk(struct kunit *test, unsigned long start,
				    unsigned long end, unsigned int flags)
{
	struct mm_struct *mm = current->mm;
	struct pt_walk *w = pt_walk_alloc(test);
	struct vm_area_struct *vma;
	bool found = false;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, start);
	if (vma && end <= vma->vm_end) {
		found = true;
		pt_walk_locked(w, vma, start, end, flags);
	}
	mmap_read_unlock(mm);
	KUNIT_ASSERT_TRUE_MSG(test, found, "[%#lx, %#lx) not in one VMA",
			      start, end);
	pt_walk_check(test, w);
	return w;
}

static const struct pt_rec pt_no_rec = { .page_idx = -1 };

/* Expect entry @i of @w to be of @type at @level over [addr, end). */
static const struct pt_rec *pt_exp(struct kunit *test,
				   const struct pt_walk *w, int i,
				   enum pt_iter_type type,
				   enum pt_iter_level level,
				   unsigned long addr, unsigned long end)
{
	const struct pt_rec *r;

	if (i >= w->nr || i >= PT_TEST_MAX_REC) {
		KUNIT_FAIL(test, "entry %d missing: the walk had %d", i, w->nr);
		return &pt_no_rec;
	}
	r = &w->rec[i];
	KUNIT_EXPECT_EQ_MSG(test, r->type, type, "entry %d type", i);
	if (level != PT_ANY_LEVEL)
		KUNIT_EXPECT_EQ_MSG(test, r->level, level, "entry %d level", i);
	KUNIT_EXPECT_EQ_MSG(test, r->addr, addr, "entry %d addr (+%#lx)", i,
			    r->addr - w->start);
	KUNIT_EXPECT_EQ_MSG(test, r->end, end, "entry %d end (+%#lx)", i,
			    r->end - w->start);
	return r;
}

static void pt_exp_attrs(struct kunit *test, const struct pt_rec *r,
			 unsigned int want, unsigned int mask)
{
	KUNIT_EXPECT_EQ_MSG(test, r->attrs & mask, want,
			    "attrs of [%#lx, %#lx)", r->addr, r->end);
}

static void pt_exp_page(struct kunit *test, const struct pt_rec *r,
			struct folio *folio, long idx)
{
	KUNIT_EXPECT_PTR_EQ_MSG(test, r->folio, folio, "folio of [%#lx, %#lx)",
				r->addr, r->end);
	KUNIT_EXPECT_EQ_MSG(test, r->page_idx, idx, "page of [%#lx, %#lx)",
			    r->addr, r->end);
	if (folio)
		KUNIT_EXPECT_EQ_MSG(test, r->pfn, folio_pfn(folio) + idx,
				    "pfn of [%#lx, %#lx)", r->addr, r->end);
}

static void pt_exp_count(struct kunit *test, const struct pt_walk *w, int n)
{
	KUNIT_EXPECT_EQ_MSG(test, w->nr, n, "number of entries");
}

/*
 * Expect the entries from @i on to be PTE batches of @folio that cover
 * [addr, end), starting at page @idx of the folio, with the attributes
 * @attrs (PT_ATTR_CONT and PT_ATTR_CLIPPED are not compared: the entry
 * checker does).  That is one entry, except on arm64
 * with contpte: a PMD mapping split into PTEs is made of contpte blocks, and
 * the PTE_CONT bit is part of the value that must be alike, so a batch also
 * ends where a contpte block that was unfolded (by a change to one of its
 * PTEs) meets one that was not.  Such breaks may only fall on contpte block
 * boundaries.  Returns the index of the entry after them.
 */
static int pt_exp_batch(struct kunit *test, const struct pt_walk *w, int i,
			unsigned long addr, unsigned long end,
			struct folio *folio, long idx, unsigned int attrs)
{
	unsigned int mask = (PT_TEST_MASK | PT_ATTR_YOUNG) &
			    ~(PT_ATTR_CONT | PT_ATTR_CLIPPED);
	unsigned long at = addr;

	while (at < end) {
		const struct pt_rec *r;

		if (i >= w->nr || i >= PT_TEST_MAX_REC) {
			KUNIT_FAIL(test, "entry %d missing: the walk had %d",
				   i, w->nr);
			return i;
		}
		r = &w->rec[i];
		KUNIT_EXPECT_EQ_MSG(test, r->type, PT_ITER_FOLIO, "entry %d", i);
		KUNIT_EXPECT_EQ_MSG(test, r->level, PT_ITER_PTE, "entry %d", i);
		KUNIT_EXPECT_EQ_MSG(test, r->addr, at, "entry %d addr", i);
		KUNIT_EXPECT_LE_MSG(test, r->end, end, "entry %d end", i);
		if (r->end < end)
			KUNIT_EXPECT_TRUE_MSG(test, PT_TEST_CONTPTE &&
					      IS_ALIGNED(r->end,
							 PT_TEST_CONT_SIZE),
					      "batch %d ends at +%#lx of %#lx",
					      i, r->end - addr, end - addr);
		pt_exp_page(test, r, folio, idx + ((at - addr) >> PAGE_SHIFT));
		pt_exp_attrs(test, r, attrs & mask, mask);
		i++;
		if (r->end <= at)
			break;
		at = r->end;
	}
	return i;
}

/* Mappings and faults. */

static unsigned long pt_test_mmap(struct kunit *test, struct file *file,
				  unsigned long addr, unsigned long len,
				  unsigned long prot, unsigned long flags)
{
	unsigned long ret;

	ret = kunit_vm_mmap(test, file, addr, len, prot, flags, 0);
	KUNIT_ASSERT_TRUE_MSG(test, ret && !IS_ERR_VALUE(ret),
			      "vm_mmap: %ld", (long)ret);
	return ret;
}

/*
 * An anonymous read/write mapping of which [ret, ret + len) is aligned to
 * @align, and, after madvise(@advice) (0 for none) of exactly that range,
 * one VMA of its own.
 */
static unsigned long pt_test_anon(struct kunit *test, unsigned long len,
				  unsigned long align, int advice)
{
	unsigned long addr;

	addr = pt_test_mmap(test, NULL, 0, len + align, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
	addr = ALIGN(addr, align);
	if (advice)
		KUNIT_ASSERT_EQ(test, do_madvise(current->mm, addr, len, advice),
				0);
	return addr;
}

static void pt_test_madvise(struct kunit *test, unsigned long addr,
			    unsigned long len, int advice)
{
	KUNIT_ASSERT_EQ(test, do_madvise(current->mm, addr, len, advice), 0);
}

static void pt_test_write(struct kunit *test, unsigned long addr,
			  unsigned long len)
{
	KUNIT_ASSERT_EQ_MSG(test, clear_user((void __user *)addr, len), 0UL,
			    "write fault at %#lx", addr);
}

static void pt_test_read(struct kunit *test, unsigned long addr)
{
	char c;

	KUNIT_ASSERT_EQ_MSG(test, copy_from_user(&c, (void __user *)addr, 1),
			    0UL, "read fault at %#lx", addr);
}

/* The folio of the single present entry mapping @addr. */
static struct folio *pt_test_folio(struct kunit *test, unsigned long addr)
{
	struct pt_walk *w = pt_test_walk(test, addr, addr + PAGE_SIZE, 0);

	KUNIT_ASSERT_EQ(test, w->nr, 1);
	KUNIT_ASSERT_EQ(test, w->rec[0].type, PT_ITER_FOLIO);
	return w->rec[0].folio;
}

/*
 * Replace the PTE mapping @addr by @new (pte_none() to clear it); the mmap
 * lock is held for write.  Returns false if there is no PTE table.
 */
static bool pt_test_xchg_pte(struct vm_area_struct *vma, unsigned long addr,
			     pte_t new, pte_t *old)
{
	struct mm_struct *mm = vma->vm_mm;
	pmd_t *pmdp = pt_test_pmdp(mm, addr);
	spinlock_t *ptl;	/* the PTE table lock */
	pte_t *ptep;

	if (!pmdp)
		return false;
	ptep = pte_offset_map_lock(mm, pmdp, addr, &ptl);
	if (!ptep)
		return false;
	/* For sparse: the RCU read lock pte_unmap_unlock() drops. */
	__acquire(RCU);
	*old = ptep_get(ptep);
	if (pte_present(*old))
		ptep_clear_flush(vma, addr, ptep);
	else
		pte_clear(mm, addr, ptep);
	if (!pte_none(new))
		set_pte_at(mm, addr, ptep, new);
	pte_unmap_unlock(ptep, ptl);
	return true;
}

/* Modify one present PTE in place with @fn, under its lock. */
static bool pt_test_modify_pte(struct kunit *test, unsigned long addr,
			       pte_t (*fn)(pte_t pte))
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	pte_t old = __pte(0);
	bool ok = false;

	mmap_write_lock(mm);
	vma = vma_lookup(mm, addr);
	if (vma && pt_test_xchg_pte(vma, addr, __pte(0), &old) &&
	    pte_present(old))
		ok = pt_test_xchg_pte(vma, addr, fn(old), &old);
	mmap_write_unlock(mm);
	return ok;
}

static pte_t pt_test_mkold(pte_t pte)
{
	return pte_mkold(pte);
}

#ifdef CONFIG_MEM_SOFT_DIRTY
static pte_t pt_test_clear_sd(pte_t pte)
{
	return pte_clear_soft_dirty(pte);
}
#endif

#ifdef CONFIG_HAVE_ARCH_USERFAULTFD_WP
static pte_t pt_test_mkuffd_wp(pte_t pte)
{
	return pte_mkuffd_wp(pte_wrprotect(pte));
}
#endif

/*
 * 1. Small anonymous pages: present pages, the zero page and holes, with
 * every combination of PT_ITER_HOLES and PT_ITER_BATCH.
 */
static void pt_iter_test_small_pages(struct kunit *test)
{
	static const unsigned int flags[] = {
		0, PT_ITER_BATCH, PT_ITER_HOLES, PT_ITER_HOLES | PT_ITER_BATCH,
	};
	unsigned long a = pt_test_anon(test, PMD_SIZE, PMD_SIZE, 0);
	const struct pt_rec *r;
	struct pt_walk *w;
	int f, i;

	pt_test_write(test, a + P(2), P(3));
	pt_test_write(test, a + P(8), P(1));
	pt_test_read(test, a + P(10));

	for (f = 0; f < ARRAY_SIZE(flags); f++) {
		bool holes = flags[f] & PT_ITER_HOLES;

		w = pt_test_walk(test, a, a + P(16), flags[f]);
		kunit_info(test, "flags %#x: %d entries", flags[f], w->nr);
		pt_exp_count(test, w, holes ? 9 : 5);
		i = 0;
		if (holes) {
			r = pt_exp(test, w, i++, PT_ITER_NONE, PT_ITER_PTE, a,
				   a + P(2));
			KUNIT_EXPECT_NOT_NULL_MSG(test, r->ptl,
						  "hole inside a table unlocked");
		}
		for (; i < (holes ? 4 : 3); i++) {
			unsigned long p = a + P(holes ? i + 1 : i + 2);

			r = pt_exp(test, w, i, PT_ITER_FOLIO, PT_ITER_PTE, p,
				   p + PAGE_SIZE);
			pt_exp_attrs(test, r, PT_WRITTEN, PT_TEST_MASK);
			KUNIT_EXPECT_EQ(test, r->folio_nr, 1);
			KUNIT_EXPECT_EQ(test, r->page_idx, 0);
		}
		/* Three small folios side by side are never one batch. */
		KUNIT_EXPECT_PTR_NE(test, w->rec[holes].folio,
				    w->rec[holes + 1].folio);
		if (holes) {
			r = pt_exp(test, w, i++, PT_ITER_NONE, PT_ITER_PTE,
				   a + P(5), a + P(8));
			KUNIT_EXPECT_NOT_NULL(test, r->ptl);
		}
		r = pt_exp(test, w, i++, PT_ITER_FOLIO, PT_ITER_PTE, a + P(8),
			   a + P(9));
		pt_exp_attrs(test, r, PT_WRITTEN, PT_TEST_MASK);
		if (holes) {
			r = pt_exp(test, w, i++, PT_ITER_NONE, PT_ITER_PTE,
				   a + P(9), a + P(10));
			KUNIT_EXPECT_NOT_NULL(test, r->ptl);
		}
		/* The shared zero page, after a read fault. */
		r = pt_exp(test, w, i++, PT_ITER_PFN, PT_ITER_PTE, a + P(10),
			   a + P(11));
		KUNIT_EXPECT_TRUE(test, is_zero_pfn(r->pfn));
		pt_exp_attrs(test, r, 0, PT_TEST_MASK);
		if (holes) {
			/* The walk ends in the table: the hole is in it. */
			r = pt_exp(test, w, i++, PT_ITER_NONE, PT_ITER_PTE,
				   a + P(11), a + P(16));
			KUNIT_EXPECT_NOT_NULL(test, r->ptl);
		}
	}

	/* A range starting and ending at present pages. */
	w = pt_test_walk(test, a + P(3), a + P(9), PT_ITER_HOLES);
	pt_exp_count(test, w, 4);
	pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PTE, a + P(3), a + P(4));
	pt_exp(test, w, 1, PT_ITER_FOLIO, PT_ITER_PTE, a + P(4), a + P(5));
	pt_exp(test, w, 2, PT_ITER_NONE, PT_ITER_PTE, a + P(5), a + P(8));
	pt_exp(test, w, 3, PT_ITER_FOLIO, PT_ITER_PTE, a + P(8), a + P(9));

	/* A range that is one hole. */
	w = pt_test_walk(test, a + P(5), a + P(8), PT_ITER_HOLES);
	pt_exp_count(test, w, 1);
	r = pt_exp(test, w, 0, PT_ITER_NONE, PT_ITER_PTE, a + P(5), a + P(8));
	KUNIT_EXPECT_NOT_NULL(test, r->ptl);
	w = pt_test_walk(test, a + P(5), a + P(8), PT_ITER_BATCH);
	pt_exp_count(test, w, 0);

	/* A one-page range. */
	w = pt_test_walk(test, a + P(8), a + P(9), PT_ITER_HOLES);
	pt_exp_count(test, w, 1);
	pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PTE, a + P(8), a + P(9));

	/* An empty range. */
	w = pt_test_walk(test, a + P(8), a + P(8), PT_ITER_HOLES);
	pt_exp_count(test, w, 0);
}

/*
 * 2. Attributes: young, soft-dirty and uffd-wp read from the PTE, and a
 * write-protected PTE.
 */
static void pt_iter_test_pte_attrs(struct kunit *test)
{
	unsigned long a = pt_test_anon(test, PMD_SIZE, PMD_SIZE, 0);
	const struct pt_rec *r;
	struct pt_walk *w;

	pt_test_write(test, a, P(4));
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a + P(1),
						   pt_test_mkold));
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a + P(2),
						   pte_wrprotect));
#ifdef CONFIG_MEM_SOFT_DIRTY
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a + P(3),
						   pt_test_clear_sd));
#endif
	w = pt_test_walk(test, a, a + P(4), PT_ITER_BATCH);
	pt_exp_count(test, w, 4);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PTE, a, a + P(1));
	pt_exp_attrs(test, r, PT_WRITTEN | PT_ATTR_YOUNG,
		     PT_TEST_MASK | PT_ATTR_YOUNG);
	r = pt_exp(test, w, 1, PT_ITER_FOLIO, PT_ITER_PTE, a + P(1), a + P(2));
	pt_exp_attrs(test, r, PT_WRITTEN, PT_TEST_MASK | PT_ATTR_YOUNG);
	r = pt_exp(test, w, 2, PT_ITER_FOLIO, PT_ITER_PTE, a + P(2), a + P(3));
	pt_exp_attrs(test, r, PT_WRITTEN & ~PT_ATTR_WRITE, PT_TEST_MASK);
	r = pt_exp(test, w, 3, PT_ITER_FOLIO, PT_ITER_PTE, a + P(3), a + P(4));
	pt_exp_attrs(test, r, PT_ATTR_WRITE | PT_ATTR_DIRTY, PT_TEST_MASK);

#ifdef CONFIG_HAVE_ARCH_USERFAULTFD_WP
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a,
						   pt_test_mkuffd_wp));
	w = pt_test_walk(test, a, a + P(1), 0);
	pt_exp_count(test, w, 1);
	pt_exp_attrs(test, &w->rec[0], PT_ATTR_UFFD_WP | PT_ATTR_DIRTY |
		     PT_TEST_SD, PT_TEST_MASK);
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a, pte_clear_uffd_wp));
#endif
}

/* Fault in a PMD-mapped THP at @addr, checking that it is one. */
static struct folio *pt_test_thp(struct kunit *test, unsigned long addr)
{
	struct pt_walk *w;

	pt_test_write(test, addr, 1);
	w = pt_test_walk(test, addr, addr + PMD_SIZE, 0);
	KUNIT_ASSERT_EQ_MSG(test, w->nr, 1, "no PMD-mapped THP at %#lx",
			    addr);
	KUNIT_ASSERT_EQ_MSG(test, w->rec[0].level, PT_ITER_PMD,
			    "no PMD-mapped THP at %#lx", addr);
	KUNIT_ASSERT_EQ(test, w->rec[0].type, PT_ITER_FOLIO);
	return w->rec[0].folio;
}

/*
 * 3. A PMD-mapped THP: one PMD entry of 512 pages, clipped when the range
 * starts or ends inside it; the huge zero page; holes around it.
 */
static void pt_iter_test_thp_pmd(struct kunit *test)
{
	/* Aligned so that the three are in one PMD table. */
	unsigned long a = pt_test_anon(test, 3 * PMD_SIZE, 4 * PMD_SIZE,
				       MADV_HUGEPAGE);
	unsigned long t = a + PMD_SIZE, z = a + 2 * PMD_SIZE;
	const struct pt_rec *r;
	struct folio *folio;
	struct pt_walk *w;

	if (!IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		kunit_skip(test, "no THP");
	folio = pt_test_thp(test, t);
	pt_test_read(test, z);
	/* Keep khugepaged away from the VMA from now on. */
	pt_test_madvise(test, a, 3 * PMD_SIZE, MADV_NOHUGEPAGE);

	KUNIT_EXPECT_EQ(test, folio_nr_pages(folio), HPAGE_PMD_NR);
	w = pt_test_walk(test, t, t + PMD_SIZE, PT_ITER_BATCH);
	pt_exp_count(test, w, 1);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PMD, t, t + PMD_SIZE);
	pt_exp_attrs(test, r, PT_WRITTEN, PT_TEST_MASK);
	pt_exp_page(test, r, folio, 0);
	KUNIT_EXPECT_EQ(test, r->nr_pages, HPAGE_PMD_NR);

	/* Inside the leaf: clipped, page and pfn of the first address. */
	w = pt_test_walk(test, t + P(1), t + P(2), 0);
	pt_exp_count(test, w, 1);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PMD, t + P(1), t + P(2));
	pt_exp_attrs(test, r, PT_WRITTEN | PT_ATTR_CLIPPED, PT_TEST_MASK);
	pt_exp_page(test, r, folio, 1);

	/* Starting in a hole, ending inside the leaf. */
	w = pt_test_walk(test, t - P(1), t + P(1), PT_ITER_HOLES);
	pt_exp_count(test, w, 2);
	r = pt_exp(test, w, 0, PT_ITER_NONE, PT_ITER_PMD, t - P(1), t);
	KUNIT_EXPECT_NULL(test, r->ptl);
	r = pt_exp(test, w, 1, PT_ITER_FOLIO, PT_ITER_PMD, t, t + P(1));
	pt_exp_attrs(test, r, PT_WRITTEN | PT_ATTR_CLIPPED, PT_TEST_MASK);
	pt_exp_page(test, r, folio, 0);

	/* Starting inside the leaf, then the huge zero page. */
	w = pt_test_walk(test, t + PMD_SIZE - P(2), z + PMD_SIZE, PT_ITER_HOLES);
	pt_exp_count(test, w, 2);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PMD, t + PMD_SIZE - P(2),
		   z);
	pt_exp_attrs(test, r, PT_WRITTEN | PT_ATTR_CLIPPED, PT_TEST_MASK);
	pt_exp_page(test, r, folio, HPAGE_PMD_NR - 2);
	r = pt_exp(test, w, 1, PT_ITER_PFN, PT_ITER_PMD, z, z + PMD_SIZE);
	KUNIT_EXPECT_TRUE(test, is_huge_zero_pmd(r->pmd));
	KUNIT_EXPECT_EQ(test, r->pfn, pmd_pfn(r->pmd));
	pt_exp_attrs(test, r, 0, PT_TEST_MASK);

	/*
	 * The whole VMA: hole, THP, then the huge zero page, which the step
	 * from leaf to leaf finds in the same PMD table.
	 */
	w = pt_test_walk(test, a, a + 3 * PMD_SIZE,
			 PT_ITER_HOLES | PT_ITER_BATCH);
	pt_exp_count(test, w, 3);
	r = pt_exp(test, w, 0, PT_ITER_NONE, PT_ITER_PMD, a, t);
	KUNIT_EXPECT_NULL(test, r->ptl);
	pt_exp(test, w, 1, PT_ITER_FOLIO, PT_ITER_PMD, t, z);
	r = pt_exp(test, w, 2, PT_ITER_PFN, PT_ITER_PMD, z, z + PMD_SIZE);
	KUNIT_EXPECT_TRUE(test, is_huge_zero_pmd(r->pmd));
}

/*
 * Walk [start, end) with @flags, asking this CPU to reschedule while the
 * walk is on its first entry, as the scheduler does (the flag, and on x86
 * its copy in the preempt count): by the next entry the walk must have
 * dropped the lock and rescheduled, which clears it.  Expects @nr entries.
 */
static void pt_test_resched_between(struct kunit *test, unsigned long start,
				    unsigned long end, unsigned int flags,
				    int nr)
{
	struct mm_struct *mm = current->mm;
	bool resched_after = true;
	struct vm_area_struct *vma;
	struct pt_iter it;
	int n = 0;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, start);
	if (!vma) {
		mmap_read_unlock(mm);
		KUNIT_FAIL(test, "no VMA at %#lx", start);
		return;
	}
	for_each_pt_entry(&it, vma, start, end, flags) {
		if (n++ == 0) {
			set_tsk_need_resched(current);
			set_preempt_need_resched();
			continue;
		}
		if (n == 2)
			resched_after = test_tsk_need_resched(current);
	}
	mmap_read_unlock(mm);
	KUNIT_EXPECT_EQ(test, n, nr);
	KUNIT_EXPECT_FALSE_MSG(test, resched_after,
			       "no reschedule between leaves when asked");
}

/*
 * The THPs @folio[0..2] at @a, walked with @flags: clipped by the range at
 * both ends, and a reschedule between the first and the second when asked.
 */
static void pt_test_thp_run(struct kunit *test, unsigned long a,
			    struct folio **folio, unsigned int flags)
{
	const struct pt_rec *r;
	struct pt_walk *w;

	w = pt_test_walk(test, a + P(1), a + 2 * PMD_SIZE + P(3), flags);
	pt_exp_count(test, w, 3);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PMD, a + P(1),
		   a + PMD_SIZE);
	pt_exp_attrs(test, r, PT_WRITTEN | PT_ATTR_CLIPPED, PT_TEST_MASK);
	pt_exp_page(test, r, folio[0], 1);
	r = pt_exp(test, w, 1, PT_ITER_FOLIO, PT_ITER_PMD, a + PMD_SIZE,
		   a + 2 * PMD_SIZE);
	pt_exp_attrs(test, r, PT_WRITTEN, PT_TEST_MASK);
	pt_exp_page(test, r, folio[1], 0);
	KUNIT_EXPECT_EQ(test, r->pfn, folio_pfn(folio[1]));
	r = pt_exp(test, w, 2, PT_ITER_FOLIO, PT_ITER_PMD, a + 2 * PMD_SIZE,
		   a + 2 * PMD_SIZE + P(3));
	pt_exp_attrs(test, r, PT_WRITTEN | PT_ATTR_CLIPPED, PT_TEST_MASK);
	pt_exp_page(test, r, folio[2], 0);

	pt_test_resched_between(test, a, a + 3 * PMD_SIZE, flags, 3);
}

/*
 * 3a. Consecutive THPs of one PMD table, which the walk steps through
 * keeping the table's lock: each one whole but where the range clips it,
 * and the lock dropped for a reschedule when this CPU should do one.
 */
static void pt_iter_test_thp_run(struct kunit *test)
{
	/* Aligned so that the three are in one PMD table. */
	unsigned long a = pt_test_anon(test, 3 * PMD_SIZE, 4 * PMD_SIZE,
				       MADV_HUGEPAGE);
	struct folio *folio[3];
	int i;

	if (!IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		kunit_skip(test, "no THP");
	for (i = 0; i < 3; i++)
		folio[i] = pt_test_thp(test, a + i * PMD_SIZE);
	pt_test_madvise(test, a, 3 * PMD_SIZE, MADV_NOHUGEPAGE);

	pt_test_thp_run(test, a, folio, 0);
}

/*
 * A thread that runs @fn(@data) on another CPU than this task, which stays
 * on its own CPU until pt_test_thread_stop(); created, not yet woken up.
 * NULL, the test failed, if there is none.
 */
static struct task_struct *pt_test_thread(struct kunit *test,
					  int (*fn)(void *), void *data,
					  const char *name)
{
	struct task_struct *t;

	migrate_disable();
	t = kthread_create(fn, data, "%s", name);
	if (IS_ERR(t)) {
		migrate_enable();
		KUNIT_FAIL(test, "no thread: %ld", PTR_ERR(t));
		return NULL;
	}
	get_task_struct(t);
	kthread_bind(t, cpumask_any_but(cpu_online_mask,
					raw_smp_processor_id()));
	return t;
}

static void pt_test_thread_stop(struct task_struct *t)
{
	kthread_stop(t);
	put_task_struct(t);
	migrate_enable();
}

/*
 * Whether another CPU can wait for a lock this test holds, and the test see
 * that it does; if not, the test is marked skipped.
 */
static bool pt_test_can_contend(struct kunit *test)
{
	if (num_online_cpus() < 2) {
		kunit_mark_skipped(test, "one CPU");
		return false;
	}
#ifdef arch_spin_is_contended
	return true;
#else
	/* The generic ticket lock (riscv) does not say it is waited for. */
	kunit_mark_skipped(test, "spin_is_contended() is always false here");
	return false;
#endif
}

/*
 * Wait, up to 30 seconds (a vCPU of an emulator can be left waiting by a
 * busy host), until another CPU waits for @ptl, which this task holds
 * (NULL: none held).  Returns whether one does.
 */
static bool pt_test_wait_contended(spinlock_t *ptl)
{
	unsigned long timeout = jiffies + 30 * HZ;

	while (ptl && !spin_is_contended(ptl) &&
	       time_before(jiffies, timeout))
		cpu_relax();
	return ptl && spin_is_contended(ptl);
}

/* A thread that takes a lock once, on another CPU. */
struct pt_test_waiter {
	spinlock_t *ptl;	/* the lock to take */
	bool got;		/* it was taken */
};

static int pt_test_waiter_fn(void *data)
{
	struct pt_test_waiter *wt = data;

	spin_lock(wt->ptl);
	WRITE_ONCE(wt->got, true);
	spin_unlock(wt->ptl);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * 3b. Another CPU waits for the PMD table's lock while the walk holds it at
 * the first of three THPs of the table: the walk lets it go before the next
 * THP, as when it dropped the lock after each leaf.
 */
static void pt_iter_test_thp_contended(struct kunit *test)
{
	unsigned long a = pt_test_anon(test, 3 * PMD_SIZE, 4 * PMD_SIZE,
				       MADV_HUGEPAGE);
	struct mm_struct *mm = current->mm;
	struct pt_test_waiter wt = {};
	struct vm_area_struct *vma;
	struct task_struct *t;
	bool contended = false, got = false;
	struct pt_iter it;
	int i, n = 0;

	if (!IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		kunit_skip(test, "no THP");
	if (!pt_test_can_contend(test))
		return;
	for (i = 0; i < 3; i++)
		pt_test_thp(test, a + i * PMD_SIZE);
	pt_test_madvise(test, a, 3 * PMD_SIZE, MADV_NOHUGEPAGE);

	/* This task on one CPU, the waiter on another. */
	t = pt_test_thread(test, pt_test_waiter_fn, &wt, "pt_iter_waiter");
	if (!t)
		return;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, a);
	for_each_pt_entry(&it, vma, a, a + 3 * PMD_SIZE, 0) {
		if (n++ == 0) {
			wt.ptl = it.ptl;
			wake_up_process(t);
			contended = pt_test_wait_contended(it.ptl);
		} else if (n == 2) {
			got = READ_ONCE(wt.got);
		}
	}
	mmap_read_unlock(mm);
	pt_test_thread_stop(t);

	KUNIT_EXPECT_EQ(test, n, 3);
	KUNIT_ASSERT_TRUE_MSG(test, contended, "the waiter never waited");
	KUNIT_EXPECT_TRUE_MSG(test, got,
			      "the lock kept from leaf to leaf while contended");
}

/*
 * 4. A PTE-mapped THP: batches, a page replaced by another folio in the
 * middle, PTEs whose bits differ, ranges ending inside a batch, and the
 * move from a PTE table to a PMD leaf.
 */
static void pt_iter_test_thp_pte_mapped(struct kunit *test)
{
	unsigned long a = pt_test_anon(test, 2 * PMD_SIZE, PMD_SIZE,
				       MADV_HUGEPAGE);
	unsigned long t2 = a + PMD_SIZE;
	struct folio *folio, *folio2;
	const struct pt_rec *r;
	struct pt_walk *w;
	int i;

	if (!IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		kunit_skip(test, "no THP");
	folio = pt_test_thp(test, a);
	folio2 = pt_test_thp(test, t2);
	pt_test_madvise(test, a, 2 * PMD_SIZE, MADV_NOHUGEPAGE);

	/* Zapping one page splits the PMD mapping; the folio stays whole. */
	pt_test_madvise(test, a + P(100), P(1), MADV_DONTNEED);
	w = pt_test_walk(test, a, t2, PT_ITER_BATCH);
	i = pt_exp_batch(test, w, 0, a, a + P(100), folio, 0, PT_WRITTEN_Y);
	KUNIT_EXPECT_EQ(test, w->rec[0].folio_nr, HPAGE_PMD_NR);
	i = pt_exp_batch(test, w, i, a + P(101), t2, folio, 101, PT_WRITTEN_Y);
	pt_exp_count(test, w, i);

	w = pt_test_walk(test, a, t2, PT_ITER_BATCH | PT_ITER_HOLES);
	i = pt_exp_batch(test, w, 0, a, a + P(100), folio, 0, PT_WRITTEN_Y);
	r = pt_exp(test, w, i++, PT_ITER_NONE, PT_ITER_PTE, a + P(100),
		   a + P(101));
	KUNIT_EXPECT_NOT_NULL(test, r->ptl);
	i = pt_exp_batch(test, w, i, a + P(101), t2, folio, 101, PT_WRITTEN_Y);
	pt_exp_count(test, w, i);

	/*
	 * Without PT_ITER_BATCH: one entry per PTE (of the first 200 pages,
	 * which the record holds whatever the page size).
	 */
	w = pt_test_walk(test, a, a + P(200), PT_ITER_HOLES);
	pt_exp_count(test, w, 200);
	for (i = 0; i < 200 && i < w->nr; i++) {
		r = &w->rec[i];
		if (i == 100) {
			KUNIT_EXPECT_EQ(test, r->type, PT_ITER_NONE);
			continue;
		}
		KUNIT_EXPECT_EQ(test, r->addr, a + P(i));
		KUNIT_EXPECT_EQ(test, r->nr_pages, 1);
		KUNIT_EXPECT_PTR_EQ(test, r->folio, folio);
		KUNIT_EXPECT_EQ(test, r->page_idx, i);
	}

	/* The page written again is a new small folio: batch, 1, batch. */
	pt_test_write(test, a + P(100), 1);
	w = pt_test_walk(test, a, t2, PT_ITER_BATCH);
	i = pt_exp_batch(test, w, 0, a, a + P(100), folio, 0, PT_WRITTEN_Y);
	r = pt_exp(test, w, i++, PT_ITER_FOLIO, PT_ITER_PTE, a + P(100),
		   a + P(101));
	KUNIT_EXPECT_PTR_NE(test, r->folio, folio);
	KUNIT_EXPECT_EQ(test, r->folio_nr, 1);
	i = pt_exp_batch(test, w, i, a + P(101), t2, folio, 101, PT_WRITTEN_Y);
	pt_exp_count(test, w, i);

	/* A PTE with different bits ends the batch. */
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a + P(300),
						   pt_test_mkold));
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a + P(400),
						   pte_wrprotect));
	w = pt_test_walk(test, a + P(101), t2, PT_ITER_BATCH);
	i = pt_exp_batch(test, w, 0, a + P(101), a + P(300), folio, 101,
			 PT_WRITTEN_Y);
	i = pt_exp_batch(test, w, i, a + P(300), a + P(301), folio, 300,
			 PT_WRITTEN);
	i = pt_exp_batch(test, w, i, a + P(301), a + P(400), folio, 301,
			 PT_WRITTEN_Y);
	i = pt_exp_batch(test, w, i, a + P(400), a + P(401), folio, 400,
			 PT_WRITTEN_Y & ~PT_ATTR_WRITE);
	i = pt_exp_batch(test, w, i, a + P(401), t2, folio, 401,
			 PT_WRITTEN_Y);
	pt_exp_count(test, w, i);

	/* Ranges ending and starting inside a batch. */
	w = pt_test_walk(test, a + P(10), a + P(20), PT_ITER_BATCH);
	i = pt_exp_batch(test, w, 0, a + P(10), a + P(20), folio, 10,
			 PT_WRITTEN_Y);
	pt_exp_count(test, w, i);

	/* From the PTE table of one THP to the PMD leaf of the next. */
	w = pt_test_walk(test, a + P(500), t2 + P(2),
			 PT_ITER_BATCH | PT_ITER_HOLES);
	i = pt_exp_batch(test, w, 0, a + P(500), t2, folio, 500, PT_WRITTEN_Y);
	r = pt_exp(test, w, i++, PT_ITER_FOLIO, PT_ITER_PMD, t2, t2 + P(2));
	pt_exp_page(test, r, folio2, 0);
	pt_exp_attrs(test, r, PT_WRITTEN | PT_ATTR_CLIPPED, PT_TEST_MASK);
	pt_exp_count(test, w, i);
}

/*
 * 5. A THP split by splitting its VMA: each half is one batch that ends at
 * the VMA boundary; once the VMAs merge again, all 512 PTEs are one batch.
 */
static void pt_iter_test_thp_vma_split(struct kunit *test)
{
	unsigned long a = pt_test_anon(test, PMD_SIZE, PMD_SIZE, MADV_HUGEPAGE);
	unsigned long half = PMD_SIZE / 2;
	const struct pt_rec *r;
	struct folio *folio;
	struct pt_walk *w;

	if (!IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		kunit_skip(test, "no THP");
	folio = pt_test_thp(test, a);
	pt_test_madvise(test, a + half, half, MADV_NOHUGEPAGE);

	w = pt_test_walk(test, a, a + half, PT_ITER_BATCH | PT_ITER_HOLES);
	pt_exp_count(test, w, 1);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PTE, a, a + half);
	pt_exp_page(test, r, folio, 0);
	w = pt_test_walk(test, a + half, a + PMD_SIZE, PT_ITER_BATCH);
	pt_exp_count(test, w, 1);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PTE, a + half,
		   a + PMD_SIZE);
	pt_exp_page(test, r, folio, HPAGE_PMD_NR / 2);

	pt_test_madvise(test, a, half, MADV_NOHUGEPAGE);
	w = pt_test_walk(test, a, a + PMD_SIZE, PT_ITER_BATCH);
	pt_exp_count(test, w, 1);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PTE, a, a + PMD_SIZE);
	pt_exp_page(test, r, folio, 0);
	/* arm64 maps the split THP with contpte blocks. */
	pt_exp_attrs(test, r, PT_WRITTEN |
		     (PT_TEST_CONTPTE ? PT_ATTR_CONT : 0), PT_TEST_MASK);
}

static unsigned long pt_test_mthp_was_set;

static void pt_test_mthp_restore(void *unused)
{
	if (!pt_test_mthp_was_set)
		clear_bit(PT_TEST_MTHP_ORDER, &huge_anon_orders_madvise);
}

/*
 * 6. A 64K mTHP (order 4 enabled for MADV_HUGEPAGE VMAs by setting the bit
 * that sysfs sets): one batch of 16 PTEs, contpte (PT_ATTR_CONT) on arm64.
 */
static void pt_iter_test_mthp(struct kunit *test)
{
	unsigned long a, nr = 1UL << PT_TEST_MTHP_ORDER;
	bool cont = PT_TEST_CONTPTE;
	const struct pt_rec *r;
	struct folio *folio;
	struct pt_walk *w;
	unsigned long i;
	int ret;

	if (!IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		kunit_skip(test, "no THP");
	pt_test_mthp_was_set = test_and_set_bit(PT_TEST_MTHP_ORDER,
						&huge_anon_orders_madvise);
	ret = kunit_add_action_or_reset(test, pt_test_mthp_restore, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);

	/* Smaller than a PMD: no PMD THP can be placed in it. */
	a = pt_test_anon(test, PMD_SIZE / 2, P(nr), MADV_HUGEPAGE);
	pt_test_write(test, a + P(5), 1);
	folio = pt_test_folio(test, a + P(5));
	KUNIT_ASSERT_EQ_MSG(test, folio_nr_pages(folio), nr,
			    "no order-%d mTHP", PT_TEST_MTHP_ORDER);

	w = pt_test_walk(test, a, a + P(nr), PT_ITER_BATCH);
	pt_exp_count(test, w, 1);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PTE, a, a + P(nr));
	pt_exp_page(test, r, folio, 0);
	pt_exp_attrs(test, r, PT_WRITTEN | (cont ? PT_ATTR_CONT : 0),
		     PT_TEST_MASK);

	/* One entry per PTE, each of them, the last one too, in the block. */
	w = pt_test_walk(test, a, a + P(nr), 0);
	pt_exp_count(test, w, nr);
	for (i = 0; i < nr; i++) {
		r = pt_exp(test, w, i, PT_ITER_FOLIO, PT_ITER_PTE, a + P(i),
			   a + P(i + 1));
		pt_exp_page(test, r, folio, i);
		pt_exp_attrs(test, r, PT_WRITTEN | (cont ? PT_ATTR_CONT : 0),
			     PT_TEST_MASK);
	}

	/* Part of a contpte block: the leaf is clipped. */
	w = pt_test_walk(test, a + P(4), a + P(8), PT_ITER_BATCH);
	pt_exp_count(test, w, 1);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PTE, a + P(4), a + P(8));
	pt_exp_page(test, r, folio, 4);
	pt_exp_attrs(test, r, PT_WRITTEN |
		     (cont ? PT_ATTR_CONT | PT_ATTR_CLIPPED : 0), PT_TEST_MASK);

	/* A hole in the folio unfolds the contpte block. */
	pt_test_madvise(test, a + P(7), P(1), MADV_DONTNEED);
	w = pt_test_walk(test, a, a + P(nr), PT_ITER_BATCH | PT_ITER_HOLES);
	pt_exp_count(test, w, 3);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PTE, a, a + P(7));
	pt_exp_page(test, r, folio, 0);
	pt_exp_attrs(test, r, PT_WRITTEN, PT_TEST_MASK);
	r = pt_exp(test, w, 1, PT_ITER_NONE, PT_ITER_PTE, a + P(7), a + P(8));
	KUNIT_EXPECT_NOT_NULL(test, r->ptl);
	r = pt_exp(test, w, 2, PT_ITER_FOLIO, PT_ITER_PTE, a + P(8),
		   a + P(nr));
	pt_exp_page(test, r, folio, 8);
	pt_exp_attrs(test, r, PT_WRITTEN, PT_TEST_MASK);

	/*
	 * One PTE made old: a batch ends at a difference in the young bit,
	 * unless the walk says young may differ (PT_ITER_IGNORE_YOUNG).
	 */
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a + P(3),
						   pt_test_mkold));
	w = pt_test_walk(test, a, a + P(nr), PT_ITER_BATCH);
	pt_exp_count(test, w, 4);
	pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PTE, a, a + P(3));
	pt_exp(test, w, 1, PT_ITER_FOLIO, PT_ITER_PTE, a + P(3), a + P(4));
	pt_exp(test, w, 2, PT_ITER_FOLIO, PT_ITER_PTE, a + P(4), a + P(7));
	w = pt_test_walk(test, a, a + P(nr),
			 PT_ITER_BATCH | PT_ITER_IGNORE_YOUNG);
	pt_exp_count(test, w, 2);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PTE, a, a + P(7));
	pt_exp_page(test, r, folio, 0);
	pt_exp(test, w, 1, PT_ITER_FOLIO, PT_ITER_PTE, a + P(8), a + P(nr));

	/*
	 * The first PTE made old too: a batch has a bit it may mix if any of
	 * its PTEs has it, whichever comes first, as folio_pte_batch() says.
	 */
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a, pt_test_mkold));
	w = pt_test_walk(test, a, a + P(nr),
			 PT_ITER_BATCH | PT_ITER_IGNORE_YOUNG);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PTE, a, a + P(7));
	KUNIT_EXPECT_TRUE(test, r->attrs & PT_ATTR_YOUNG);
	w = pt_test_walk(test, a + P(3), a + P(4),
			 PT_ITER_BATCH | PT_ITER_IGNORE_YOUNG);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PTE, a + P(3), a + P(4));
	KUNIT_EXPECT_FALSE(test, r->attrs & PT_ATTR_YOUNG);
}

/*
 * 7. Holes: a hole is made of empty entries of one level.  Empty PTEs are a
 * hole of their PTE table, reported with its lock; missing PTE tables (empty
 * PMD entries), missing PMD tables (empty PUD entries) are holes of their
 * own level, reported without a lock.
 */
static void pt_iter_test_holes(struct kunit *test)
{
	unsigned long m, b, p0, p1, end;
	const struct pt_rec *r;
	struct pt_walk *w;

	if (PMD_SIZE == PUD_SIZE)
		kunit_skip(test, "the PMD level is folded: no missing PMD tables");
	m = pt_test_mmap(test, NULL, 0, 3 * PUD_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
	b = ALIGN(m + PMD_SIZE, PUD_SIZE);
	p0 = b - PMD_SIZE + P(2);
	p1 = b + PUD_SIZE + 2 * PMD_SIZE + P(1);
	end = b + PUD_SIZE + 4 * PMD_SIZE;
	KUNIT_ASSERT_LE(test, end, m + 3 * PUD_SIZE);
	pt_test_write(test, p0, 1);
	pt_test_write(test, p1, 1);

	w = pt_test_walk(test, b - PMD_SIZE, end, PT_ITER_HOLES);
	pt_exp_count(test, w, 9);
	r = pt_exp(test, w, 0, PT_ITER_NONE, PT_ITER_PTE, b - PMD_SIZE, p0);
	KUNIT_EXPECT_NOT_NULL(test, r->ptl);
	pt_exp(test, w, 1, PT_ITER_FOLIO, PT_ITER_PTE, p0, p0 + P(1));
	/* The rest of the PTE table, with its lock. */
	r = pt_exp(test, w, 2, PT_ITER_NONE, PT_ITER_PTE, p0 + P(1), b);
	KUNIT_EXPECT_NOT_NULL(test, r->ptl);
	/* A PUD entry, two PMD entries. */
	r = pt_exp(test, w, 3, PT_ITER_NONE, PT_ITER_PUD, b, b + PUD_SIZE);
	KUNIT_EXPECT_NULL(test, r->ptl);
	r = pt_exp(test, w, 4, PT_ITER_NONE, PT_ITER_PMD, b + PUD_SIZE,
		   p1 - P(1));
	KUNIT_EXPECT_NULL(test, r->ptl);
	/* A PTE of the next table. */
	r = pt_exp(test, w, 5, PT_ITER_NONE, PT_ITER_PTE, p1 - P(1), p1);
	KUNIT_EXPECT_NOT_NULL(test, r->ptl);
	pt_exp(test, w, 6, PT_ITER_FOLIO, PT_ITER_PTE, p1, p1 + P(1));
	/* The rest of its table, and a PMD entry. */
	r = pt_exp(test, w, 7, PT_ITER_NONE, PT_ITER_PTE, p1 + P(1),
		   p1 - P(1) + PMD_SIZE);
	KUNIT_EXPECT_NOT_NULL(test, r->ptl);
	r = pt_exp(test, w, 8, PT_ITER_NONE, PT_ITER_PMD, p1 - P(1) + PMD_SIZE,
		   end);
	KUNIT_EXPECT_NULL(test, r->ptl);

	w = pt_test_walk(test, b - PMD_SIZE, end, PT_ITER_BATCH);
	pt_exp_count(test, w, 2);
	pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PTE, p0, p0 + P(1));
	pt_exp(test, w, 1, PT_ITER_FOLIO, PT_ITER_PTE, p1, p1 + P(1));

	/* Walks that begin in each of those holes. */
	w = pt_test_walk(test, b, end, PT_ITER_HOLES);
	pt_exp_count(test, w, 6);
	r = pt_exp(test, w, 0, PT_ITER_NONE, PT_ITER_PUD, b, b + PUD_SIZE);
	KUNIT_EXPECT_NULL(test, r->ptl);
	w = pt_test_walk(test, b + PUD_SIZE, end, PT_ITER_HOLES);
	pt_exp_count(test, w, 5);
	r = pt_exp(test, w, 0, PT_ITER_NONE, PT_ITER_PMD, b + PUD_SIZE,
		   p1 - P(1));
	KUNIT_EXPECT_NULL(test, r->ptl);
	w = pt_test_walk(test, p1 - P(1), end, PT_ITER_HOLES);
	pt_exp_count(test, w, 4);
	r = pt_exp(test, w, 0, PT_ITER_NONE, PT_ITER_PTE, p1 - P(1), p1);
	KUNIT_EXPECT_NOT_NULL(test, r->ptl);

	/* A range that is one hole over a missing PMD table. */
	w = pt_test_walk(test, b + P(1), b + PUD_SIZE - P(1), PT_ITER_HOLES);
	pt_exp_count(test, w, 1);
	r = pt_exp(test, w, 0, PT_ITER_NONE, PT_ITER_PUD, b + P(1),
		   b + PUD_SIZE - P(1));
	KUNIT_EXPECT_NULL(test, r->ptl);
	w = pt_test_walk(test, b, b + PUD_SIZE, 0);
	pt_exp_count(test, w, 0);
}

/* Install @new at @addr, remembering the old PTE in @old. */
static void pt_test_install(struct kunit *test, struct vm_area_struct *vma,
			    unsigned long addr, pte_t new, pte_t *old)
{
	KUNIT_EXPECT_TRUE(test, pt_test_xchg_pte(vma, addr, new, old));
}

/*
 * A copy of an entry (a migration entry) kept beyond its step and its
 * loop: its accessors read the copy, not the walk, which has moved on.
 */
static void pt_test_copy_entry(struct kunit *test, struct vm_area_struct *vma,
			       unsigned long a, unsigned long at,
			       swp_entry_t swp, unsigned long pfn)
{
	struct pt_iter it, copy = {};

	for_each_pt_entry(&it, vma, a, a + P(16), PT_ITER_HOLES) {
		if (it.addr == at)
			copy = it;
	}
	KUNIT_ASSERT_EQ(test, copy.addr, at);
	KUNIT_EXPECT_EQ(test, copy.type, PT_ITER_MIGRATION);
	KUNIT_EXPECT_EQ(test, pt_iter_swp(&copy).val, swp.val);
	KUNIT_EXPECT_EQ(test, pt_iter_pfn(&copy), pfn);
	/* The last entry, a hole, read after the loop. */
	KUNIT_EXPECT_EQ(test, it.type, PT_ITER_NONE);
	KUNIT_EXPECT_EQ(test, pt_iter_pfn(&it), 0UL);
	KUNIT_EXPECT_EQ(test, pt_iter_swp(&it).val, 0UL);
}

/*
 * 8. Swap-format PTEs installed under the PTL: swap, migration, hwpoison,
 * pte markers, device-exclusive.  Each is one entry of one page with its
 * lock held, never batched.  The original PTEs are put back before the mm
 * goes away.
 */
static void pt_iter_test_swap_ptes(struct kunit *test)
{
	unsigned long a = pt_test_anon(test, PMD_SIZE, PMD_SIZE, 0);
	struct mm_struct *mm = current->mm;
	struct folio *folio[8];
	struct vm_area_struct *vma;
	swp_entry_t swp[16] = {};
	pte_t old[16], new[16];
	struct pt_walk *w, *w_swap, *w_present;
	const struct pt_rec *r;
	int i, n;

	pt_test_write(test, a, P(8));
	for (i = 0; i < 8; i++)
		folio[i] = pt_test_folio(test, a + P(i));

	swp[1] = swp_entry(0, 0x1234);
	swp[2] = make_readable_migration_entry(folio_pfn(folio[2]));
#ifdef CONFIG_MEMORY_FAILURE
	swp[3] = swp_entry(SWP_HWPOISON, folio_pfn(folio[3]));
#endif
	swp[4] = make_poisoned_swp_entry();
#ifdef CONFIG_DEVICE_PRIVATE
	swp[5] = make_readable_device_exclusive_entry(folio_pfn(folio[5]));
#endif
#ifdef CONFIG_PTE_MARKER_UFFD_WP
	swp[6] = make_pte_marker_entry(PTE_MARKER_UFFD_WP);
#endif
	/* Two swap entries of consecutive slots, in empty PTEs. */
	swp[8] = swp_entry(0, 0x2000);
	swp[9] = swp_entry(0, 0x2001);
	for (i = 0; i < 16; i++)
		new[i] = swp[i].val ? swp_entry_to_pte(swp[i]) : __pte(0);
#ifdef CONFIG_MEM_SOFT_DIRTY
	new[1] = pte_swp_mksoft_dirty(new[1]);
#endif
#ifdef CONFIG_HAVE_ARCH_USERFAULTFD_WP
	new[9] = pte_swp_mkuffd_wp(new[9]);
#endif

	mmap_write_lock(mm);
	vma = vma_lookup(mm, a);
	folio_lock(folio[2]);
	folio_lock(folio[3]);
	for (i = 0; i < 16; i++)
		if (swp[i].val)
			pt_test_install(test, vma, a + P(i), new[i], &old[i]);

	w = pt_walk_alloc(test);
	pt_walk_locked(w, vma, a, a + P(16), PT_ITER_HOLES | PT_ITER_BATCH);
	/* Only the types asked for: swap entries; present pages. */
	w_swap = pt_walk_alloc(test);
	pt_walk_locked(w_swap, vma, a, a + P(16), PT_ITER_WANT(PT_ITER_SWAP));
	w_present = pt_walk_alloc(test);
	pt_walk_locked(w_present, vma, a, a + P(16),
		       PT_ITER_WANT_PRESENT | PT_ITER_BATCH);

	pt_test_copy_entry(test, vma, a, a + P(2), swp[2], folio_pfn(folio[2]));

	for (i = 0; i < 16; i++)
		if (swp[i].val)
			pt_test_install(test, vma, a + P(i), old[i], &new[i]);
	folio_unlock(folio[3]);
	folio_unlock(folio[2]);
	mmap_write_unlock(mm);

	pt_walk_check(test, w_swap);
	pt_exp_count(test, w_swap, 3);
	pt_exp(test, w_swap, 0, PT_ITER_SWAP, PT_ITER_PTE, a + P(1), a + P(2));
	pt_exp(test, w_swap, 1, PT_ITER_SWAP, PT_ITER_PTE, a + P(8), a + P(9));
	pt_exp(test, w_swap, 2, PT_ITER_SWAP, PT_ITER_PTE, a + P(9),
	       a + P(10));
	pt_walk_check(test, w_present);
	for (i = 0, n = 0; i < 8; i++) {
		if (swp[i].val)
			continue;
		r = pt_exp(test, w_present, n++, PT_ITER_FOLIO, PT_ITER_PTE,
			   a + P(i), a + P(i + 1));
		pt_exp_page(test, r, folio[i], 0);
	}
	pt_exp_count(test, w_present, n);

	pt_walk_check(test, w);
	pt_exp_count(test, w, 11);
	n = 0;
	r = pt_exp(test, w, n++, PT_ITER_FOLIO, PT_ITER_PTE, a, a + P(1));
	pt_exp_page(test, r, folio[0], 0);

	r = pt_exp(test, w, n++, PT_ITER_SWAP, PT_ITER_PTE, a + P(1), a + P(2));
	KUNIT_EXPECT_EQ(test, r->swp.val, swp[1].val);
	pt_exp_attrs(test, r, PT_TEST_SD, PT_TEST_MASK);

	r = pt_exp(test, w, n++, PT_ITER_MIGRATION, PT_ITER_PTE, a + P(2),
		   a + P(3));
	KUNIT_EXPECT_EQ(test, r->swp.val, swp[2].val);
	pt_exp_page(test, r, folio[2], 0);
	pt_exp_attrs(test, r, 0, PT_TEST_MASK);

	if (swp[3].val) {
		r = pt_exp(test, w, n++, PT_ITER_HWPOISON, PT_ITER_PTE,
			   a + P(3), a + P(4));
		KUNIT_EXPECT_EQ(test, r->swp.val, swp[3].val);
		KUNIT_EXPECT_PTR_EQ(test, r->page, &folio[3]->page);
		KUNIT_EXPECT_NULL(test, r->folio);
		KUNIT_EXPECT_EQ(test, r->pfn, folio_pfn(folio[3]));
	} else {
		pt_exp(test, w, n++, PT_ITER_FOLIO, PT_ITER_PTE, a + P(3),
		       a + P(4));
	}

	r = pt_exp(test, w, n++, PT_ITER_MARKER, PT_ITER_PTE, a + P(4),
		   a + P(5));
	KUNIT_EXPECT_EQ(test, r->swp.val, swp[4].val);
	pt_exp_attrs(test, r, 0, PT_TEST_MASK);

	if (swp[5].val) {
		r = pt_exp(test, w, n++, PT_ITER_DEVICE, PT_ITER_PTE, a + P(5),
			   a + P(6));
		KUNIT_EXPECT_EQ(test, r->swp.val, swp[5].val);
		pt_exp_page(test, r, folio[5], 0);
	} else {
		r = pt_exp(test, w, n++, PT_ITER_FOLIO, PT_ITER_PTE, a + P(5),
			   a + P(6));
		kunit_info(test, "no CONFIG_DEVICE_PRIVATE: no device entry");
	}
	if (swp[6].val) {
		r = pt_exp(test, w, n++, PT_ITER_MARKER, PT_ITER_PTE, a + P(6),
			   a + P(7));
		KUNIT_EXPECT_EQ(test, r->swp.val, swp[6].val);
		pt_exp_attrs(test, r, PT_ATTR_UFFD_WP, PT_TEST_MASK);
	} else {
		r = pt_exp(test, w, n++, PT_ITER_FOLIO, PT_ITER_PTE, a + P(6),
			   a + P(7));
		kunit_info(test, "no CONFIG_PTE_MARKER_UFFD_WP: no uffd-wp marker");
	}
	r = pt_exp(test, w, n++, PT_ITER_FOLIO, PT_ITER_PTE, a + P(7),
		   a + P(8));
	pt_exp_page(test, r, folio[7], 0);
	r = pt_exp(test, w, n++, PT_ITER_SWAP, PT_ITER_PTE, a + P(8), a + P(9));
	KUNIT_EXPECT_EQ(test, r->swp.val, swp[8].val);
	pt_exp_attrs(test, r, 0, PT_TEST_MASK);
	r = pt_exp(test, w, n++, PT_ITER_SWAP, PT_ITER_PTE, a + P(9),
		   a + P(10));
	KUNIT_EXPECT_EQ(test, r->swp.val, swp[9].val);
	pt_exp_attrs(test, r, IS_ENABLED(CONFIG_HAVE_ARCH_USERFAULTFD_WP) ?
		     PT_ATTR_UFFD_WP : 0, PT_TEST_MASK);
	r = pt_exp(test, w, n++, PT_ITER_NONE, PT_ITER_PTE, a + P(10),
		   a + P(16));

	/* Everything was put back. */
	w = pt_test_walk(test, a, a + P(16), PT_ITER_HOLES);
	pt_exp_count(test, w, 9);
	for (i = 0; i < 8; i++) {
		r = pt_exp(test, w, i, PT_ITER_FOLIO, PT_ITER_PTE, a + P(i),
			   a + P(i + 1));
		pt_exp_page(test, r, folio[i], 0);
	}
}

/*
 * 9. A PMD migration entry in place of a PMD-mapped THP: one PMD entry,
 * clipped like the THP was, with the folio and page under migration.
 */
static void pt_iter_test_pmd_migration(struct kunit *test)
{
#ifdef CONFIG_ARCH_ENABLE_THP_MIGRATION
	unsigned long a = pt_test_anon(test, 2 * PMD_SIZE, PMD_SIZE,
				       MADV_HUGEPAGE);
	unsigned long t = a + PMD_SIZE;
	struct mm_struct *mm = current->mm;
	struct pt_walk *w[3];
	const struct pt_rec *r;
	struct vm_area_struct *vma;
	struct folio *folio;
	pmd_t *pmdp, orig, swpmd;
	swp_entry_t swp;
	spinlock_t *ptl;	/* the PMD lock */
	bool done = false;
	int i;

	folio = pt_test_thp(test, t);
	pt_test_madvise(test, a, 2 * PMD_SIZE, MADV_NOHUGEPAGE);
	for (i = 0; i < ARRAY_SIZE(w); i++)
		w[i] = pt_walk_alloc(test);
	swp = make_writable_migration_entry(folio_pfn(folio));

	mmap_write_lock(mm);
	vma = vma_lookup(mm, t);
	pmdp = pt_test_pmdp(mm, t);
	if (vma && pmdp) {
		folio_lock(folio);
		ptl = pmd_lock(mm, pmdp);
		orig = pmdp_huge_clear_flush(vma, t, pmdp);
		swpmd = swp_entry_to_pmd(swp);
		if (pmd_soft_dirty(orig))
			swpmd = pmd_swp_mksoft_dirty(swpmd);
		set_pmd_at(mm, t, pmdp, swpmd);
		spin_unlock(ptl);

		pt_walk_locked(w[0], vma, t, t + PMD_SIZE, 0);
		pt_walk_locked(w[1], vma, t + P(2), t + P(3), PT_ITER_BATCH);
		pt_walk_locked(w[2], vma, t - P(1), t + PMD_SIZE,
			       PT_ITER_HOLES);

		ptl = pmd_lock(mm, pmdp);
		pmdp_huge_get_and_clear(mm, t, pmdp);
		set_pmd_at(mm, t, pmdp, orig);
		spin_unlock(ptl);
		folio_unlock(folio);
		done = true;
	}
	mmap_write_unlock(mm);
	KUNIT_ASSERT_TRUE(test, done);

	for (i = 0; i < ARRAY_SIZE(w); i++)
		pt_walk_check(test, w[i]);
	pt_exp_count(test, w[0], 1);
	r = pt_exp(test, w[0], 0, PT_ITER_MIGRATION, PT_ITER_PMD, t,
		   t + PMD_SIZE);
	KUNIT_EXPECT_EQ(test, r->swp.val, swp.val);
	pt_exp_page(test, r, folio, 0);
	pt_exp_attrs(test, r, PT_TEST_SD, PT_TEST_MASK);
	KUNIT_EXPECT_TRUE(test, pmd_same(r->pmd, swpmd));

	pt_exp_count(test, w[1], 1);
	r = pt_exp(test, w[1], 0, PT_ITER_MIGRATION, PT_ITER_PMD, t + P(2),
		   t + P(3));
	pt_exp_page(test, r, folio, 2);
	pt_exp_attrs(test, r, PT_TEST_SD | PT_ATTR_CLIPPED, PT_TEST_MASK);

	pt_exp_count(test, w[2], 2);
	pt_exp(test, w[2], 0, PT_ITER_NONE, PT_ITER_PMD, t - P(1), t);
	pt_exp(test, w[2], 1, PT_ITER_MIGRATION, PT_ITER_PMD, t, t + PMD_SIZE);

	/* And the THP is back. */
	w[0] = pt_test_walk(test, t, t + PMD_SIZE, 0);
	pt_exp_count(test, w[0], 1);
	r = pt_exp(test, w[0], 0, PT_ITER_FOLIO, PT_ITER_PMD, t, t + PMD_SIZE);
	pt_exp_page(test, r, folio, 0);
#else
	kunit_skip(test, "no CONFIG_ARCH_ENABLE_THP_MIGRATION");
#endif
}

#ifdef CONFIG_HUGETLB_PAGE
struct pt_hugetlb_param {
	unsigned int shift;
	const char *name;
};

static const struct pt_hugetlb_param pt_hugetlb_params[] = {
	{ 16, "64K" },
	{ 21, "2M" },
	{ 25, "32M" },
};

static void pt_hugetlb_desc(const struct pt_hugetlb_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", p->name);
}

KUNIT_ARRAY_PARAM(pt_hugetlb, pt_hugetlb_params, pt_hugetlb_desc);

/*
 * Map @nr hugetlb pages of 1 << @shift bytes (MAP_SHARED, so that the
 * hugetlb VMA lock exists), after making sure @need pages are free.  Skips
 * the test if the size does not exist or has no free pages.
 */
static unsigned long pt_test_hugetlb_map(struct kunit *test,
					 unsigned int shift, unsigned long nr,
					 unsigned long need, unsigned long addr,
					 unsigned long flags)
{
	struct hstate *h = size_to_hstate(1UL << shift);
	struct file *file;
	int i;

	if (!h)
		kunit_skip(test, "no hugetlb pages of %luK", 1UL << (shift - 10));
	/* Pages of an earlier test may still wait for a delayed fput. */
	for (i = 0; i < 200 && READ_ONCE(h->free_huge_pages) < need; i++) {
		flush_delayed_fput();
		usleep_range(5000, 6000);
	}
	if (READ_ONCE(h->free_huge_pages) < need)
		kunit_skip(test, "%lu free hugetlb pages of %luK, %lu needed",
			   READ_ONCE(h->free_huge_pages), 1UL << (shift - 10),
			   need);

	file = hugetlb_file_setup(HUGETLB_ANON_FILE, nr << shift, VM_NORESERVE,
				  HUGETLB_ANONHUGE_INODE, shift);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(file), "hugetlb_file_setup: %ld",
			       PTR_ERR(file));
	addr = kunit_vm_mmap(test, file, addr, nr << shift,
			     PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_NORESERVE | flags, 0);
	fput(file);
	KUNIT_ASSERT_TRUE_MSG(test, addr && !IS_ERR_VALUE(addr),
			      "vm_mmap: %ld", (long)addr);
	return addr;
}

/*
 * Replace the hugetlb entry at @addr by a migration entry for @folio, walk
 * [addr, addr + size) and [addr + 2 pages, addr + 3 pages) into @w, and
 * put the entry back.  The mmap lock is held for write.
 */
static bool pt_test_hugetlb_migration(struct vm_area_struct *vma,
				      unsigned long addr, struct folio *folio,
				      swp_entry_t swp, struct pt_walk **w)
{
	struct hstate *h = hstate_vma(vma);
	unsigned long sz = huge_page_size(h);
	struct mm_struct *mm = vma->vm_mm;
	spinlock_t *ptl;	/* the hugetlb entry's lock */
	pte_t *ptep, orig;

	hugetlb_vma_lock_write(vma);
	ptep = hugetlb_walk(vma, addr, sz);
	if (!ptep) {
		hugetlb_vma_unlock_write(vma);
		return false;
	}
	ptl = huge_pte_lock(h, mm, ptep);
	orig = huge_ptep_clear_flush(vma, addr, ptep);
	set_huge_pte_at(mm, addr, ptep, swp_entry_to_pte(swp), sz);
	spin_unlock(ptl);
	hugetlb_vma_unlock_write(vma);

	pt_walk_locked(w[0], vma, addr, addr + sz, PT_ITER_HOLES);
	pt_walk_locked(w[1], vma, addr + P(2), addr + P(3), PT_ITER_BATCH);

	hugetlb_vma_lock_write(vma);
	ptep = hugetlb_walk(vma, addr, sz);
	ptl = huge_pte_lock(h, mm, ptep);
	huge_ptep_get_and_clear(mm, addr, ptep, sz);
	set_huge_pte_at(mm, addr, ptep, orig, sz);
	spin_unlock(ptl);
	hugetlb_vma_unlock_write(vma);
	return true;
}

/*
 * 10. One hugetlb page between two holes: one logical leaf of the hstate's
 * level with PT_ATTR_HUGETLB (and PT_ATTR_CONT for cont-PTE and cont-PMD
 * sizes), clipped to the range, the hugetlb VMA lock held throughout.  The
 * same page replaced by a migration entry: the same leaf, of type
 * PT_ITER_MIGRATION, with the folio and the page at the first address.
 */
static void pt_test_hugetlb_sized(struct kunit *test, unsigned int shift)
{
	unsigned long sz = 1UL << shift, a, h0;
	enum pt_iter_level level = pt_test_size_level(sz);
	unsigned int cont = (sz != PMD_SIZE && sz != PUD_SIZE) ?
			    PT_ATTR_CONT : 0;
	/* Written by a fault: soft-dirty too, where that exists. */
	unsigned int want = PT_ATTR_WRITE | PT_ATTR_DIRTY | PT_ATTR_HUGETLB |
			    PT_TEST_SD | cont;
	struct vm_area_struct *vma;
	struct pt_walk *mw[2];
	const struct pt_rec *r;
	struct mm_struct *mm;
	struct folio *folio;
	struct pt_walk *w;
	swp_entry_t swp;
	bool done = false;
	int f;

	a = pt_test_hugetlb_map(test, shift, 3, 1, 0, 0);
	mm = current->mm;
	h0 = a + sz;
	pt_test_write(test, h0, 1);

	for (f = 0; f < 4; f++) {
		unsigned int flags = (f & 1 ? PT_ITER_BATCH : 0) |
				     (f & 2 ? PT_ITER_HOLES : 0);
		int i = 0;

		w = pt_test_walk(test, a, a + 3 * sz, flags);
		pt_exp_count(test, w, f & 2 ? 3 : 1);
		if (f & 2) {
			r = pt_exp(test, w, i++, PT_ITER_NONE, PT_ANY_LEVEL,
				   a, h0);
			KUNIT_EXPECT_NULL(test, r->ptl);
		}
		r = pt_exp(test, w, i++, PT_ITER_FOLIO, level, h0, h0 + sz);
		pt_exp_attrs(test, r, want, PT_TEST_MASK);
		KUNIT_EXPECT_EQ(test, r->page_idx, 0);
		KUNIT_EXPECT_EQ(test, r->folio_nr, sz >> PAGE_SHIFT);
		KUNIT_EXPECT_TRUE(test, r->folio && folio_test_hugetlb(r->folio));
		KUNIT_EXPECT_EQ(test, r->pfn, pte_pfn(r->pte));
		if (f & 2) {
			r = pt_exp(test, w, i++, PT_ITER_NONE, PT_ANY_LEVEL,
				   h0 + sz, h0 + 2 * sz);
			KUNIT_EXPECT_NULL(test, r->ptl);
		}
	}
	folio = w->rec[1].folio;
	KUNIT_ASSERT_NOT_NULL(test, folio);

	/* Inside the leaf. */
	w = pt_test_walk(test, h0 + P(1), h0 + P(2), PT_ITER_BATCH);
	pt_exp_count(test, w, 1);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, level, h0 + P(1), h0 + P(2));
	pt_exp_attrs(test, r, want | PT_ATTR_CLIPPED, PT_TEST_MASK);
	pt_exp_page(test, r, folio, 1);

	/* From the middle of the leaf into the hole after it. */
	w = pt_test_walk(test, h0 + sz / 2, h0 + sz + P(1), PT_ITER_HOLES);
	pt_exp_count(test, w, 2);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, level, h0 + sz / 2, h0 + sz);
	pt_exp_attrs(test, r, want | PT_ATTR_CLIPPED, PT_TEST_MASK);
	pt_exp_page(test, r, folio, (sz / 2) >> PAGE_SHIFT);
	r = pt_exp(test, w, 1, PT_ITER_NONE, PT_ANY_LEVEL, h0 + sz,
		   h0 + sz + P(1));
	KUNIT_EXPECT_NULL(test, r->ptl);

	/* A migration entry in its place. */
	swp = make_readable_migration_entry(folio_pfn(folio));
	mw[0] = pt_walk_alloc(test);
	mw[1] = pt_walk_alloc(test);
	mmap_write_lock(mm);
	vma = vma_lookup(mm, h0);
	if (vma) {
		folio_lock(folio);
		done = pt_test_hugetlb_migration(vma, h0, folio, swp, mw);
		folio_unlock(folio);
	}
	mmap_write_unlock(mm);
	KUNIT_ASSERT_TRUE(test, done);

	pt_walk_check(test, mw[0]);
	pt_walk_check(test, mw[1]);
	pt_exp_count(test, mw[0], 1);
	r = pt_exp(test, mw[0], 0, PT_ITER_MIGRATION, level, h0, h0 + sz);
	KUNIT_EXPECT_EQ(test, r->swp.val, swp.val);
	pt_exp_page(test, r, folio, 0);
	pt_exp_attrs(test, r, PT_ATTR_HUGETLB | cont, PT_TEST_MASK);
	pt_exp_count(test, mw[1], 1);
	r = pt_exp(test, mw[1], 0, PT_ITER_MIGRATION, level, h0 + P(2),
		   h0 + P(3));
	pt_exp_page(test, r, folio, 2);
	pt_exp_attrs(test, r, PT_ATTR_HUGETLB | PT_ATTR_CLIPPED | cont,
		     PT_TEST_MASK);

	/* And the page is back. */
	w = pt_test_walk(test, h0, h0 + sz, 0);
	pt_exp_count(test, w, 1);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, level, h0, h0 + sz);
	pt_exp_page(test, r, folio, 0);
	pt_exp_attrs(test, r, want, PT_TEST_MASK);
}

static void pt_iter_test_hugetlb(struct kunit *test)
{
	const struct pt_hugetlb_param *p = test->param_value;

	pt_test_hugetlb_sized(test, p->shift);
}

/*
 * 5a. Consecutive hugetlb pages of one PMD table (PMD-sized, or cont-PMD
 * blocks), which the walk steps through keeping the table's lock, as it
 * does THPs: each one whole but where the range clips it, its own folio,
 * and the lock dropped for a reschedule when this CPU should do one.
 */
static void pt_iter_test_hugetlb_run(struct kunit *test)
{
	const struct pt_hugetlb_param *p = test->param_value;
	unsigned long sz = 1UL << p->shift;
	unsigned long nr = sz == PMD_SIZE ? 3 : 2;
	unsigned int want = PT_ATTR_WRITE | PT_ATTR_DIRTY | PT_ATTR_HUGETLB |
			    PT_TEST_SD | (sz != PMD_SIZE ? PT_ATTR_CONT : 0);
	unsigned long a, start, end, i;
	const struct pt_rec *r;
	struct pt_walk *w;

	if (sz < PMD_SIZE || sz >= PUD_SIZE)
		kunit_skip(test, "not a PMD-level size");
	a = pt_test_hugetlb_map(test, p->shift, nr, nr, 0, 0);
	for (i = 0; i < nr; i++)
		pt_test_write(test, a + i * sz, 1);

	w = pt_test_walk(test, a + P(1), a + (nr - 1) * sz + P(3), 0);
	pt_exp_count(test, w, nr);
	for (i = 0; i < nr && i < w->nr; i++) {
		start = i ? a + i * sz : a + P(1);
		end = i < nr - 1 ? a + (i + 1) * sz : a + i * sz + P(3);
		r = pt_exp(test, w, i, PT_ITER_FOLIO, pt_test_size_level(sz),
			   start, end);
		pt_exp_attrs(test, r, want |
			     (i == 0 || i == nr - 1 ? PT_ATTR_CLIPPED : 0),
			     PT_TEST_MASK);
		KUNIT_EXPECT_TRUE(test, r->folio &&
				  folio_test_hugetlb(r->folio));
		KUNIT_EXPECT_EQ(test, r->folio_nr, sz >> PAGE_SHIFT);
		pt_exp_page(test, r, r->folio, i ? 0 : 1);
		if (i)
			KUNIT_EXPECT_PTR_NE(test, r->folio,
					    w->rec[i - 1].folio);
	}

	pt_test_resched_between(test, a, a + nr * sz, 0, nr);
}

/*
 * 5b. Two THPs, then two PMD-sized hugetlb pages, on either side of a PUD
 * boundary, the end of a PMD table: the step from one leaf to the next
 * keeps a PMD table's lock only within the table, the second leaf is
 * found in the next table, under its own lock.
 */
static void pt_iter_test_pud_boundary(struct kunit *test)
{
	struct folio *folio[2];
	const struct pt_rec *r;
	unsigned long a, b, i;
	struct pt_walk *w;

	if (PMD_SIZE == PUD_SIZE)
		kunit_skip(test, "the PMD level is folded");
	/* b is on a PUD boundary, [a, a + 2 * PMD_SIZE) around it. */
	b = pt_test_anon(test, 2 * PUD_SIZE, PUD_SIZE, 0) + PUD_SIZE;
	a = b - PMD_SIZE;
	if (IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE)) {
		pt_test_madvise(test, a, 2 * PMD_SIZE, MADV_HUGEPAGE);
		for (i = 0; i < 2; i++)
			folio[i] = pt_test_thp(test, a + i * PMD_SIZE);
		w = pt_test_walk(test, a, a + 2 * PMD_SIZE, 0);
		pt_exp_count(test, w, 2);
		for (i = 0; i < 2; i++) {
			r = pt_exp(test, w, i, PT_ITER_FOLIO, PT_ITER_PMD,
				   a + i * PMD_SIZE, a + (i + 1) * PMD_SIZE);
			pt_exp_page(test, r, folio[i], 0);
		}
	}

	/* The same range, remapped with hugetlb pages. */
	KUNIT_ASSERT_EQ(test, pt_test_hugetlb_map(test, PMD_SHIFT, 2, 2, a,
						  MAP_FIXED), a);
	for (i = 0; i < 2; i++)
		pt_test_write(test, a + i * PMD_SIZE, 1);
	w = pt_test_walk(test, a, a + 2 * PMD_SIZE, 0);
	pt_exp_count(test, w, 2);
	for (i = 0; i < 2; i++) {
		r = pt_exp(test, w, i, PT_ITER_FOLIO, PT_ITER_PMD,
			   a + i * PMD_SIZE, a + (i + 1) * PMD_SIZE);
		pt_exp_attrs(test, r, PT_ATTR_HUGETLB, PT_ATTR_HUGETLB);
		KUNIT_EXPECT_TRUE(test, r->folio &&
				  folio_test_hugetlb(r->folio));
		KUNIT_EXPECT_EQ(test, r->page_idx, 0);
	}
	KUNIT_EXPECT_PTR_NE(test, w->rec[0].folio, w->rec[1].folio);
}

/* The same for a PUD-sized page: slow, as faulting it clears 1G. */
static void pt_iter_test_hugetlb_pud(struct kunit *test)
{
	if (PMD_SIZE == PUD_SIZE)
		kunit_skip(test, "the PUD level is folded: 10 tests the size");
	pt_test_hugetlb_sized(test, PUD_SHIFT);
}

/*
 * Write @pte as the hugetlb entry of the PUD-sized page at @addr, the way
 * hugetlb does (set_huge_pte_at(), in the PTE format), read it back as a
 * PUD into @pud and walk it into @w.  The mmap lock is held for write.
 */
static bool pt_test_pud_set(struct vm_area_struct *vma, unsigned long addr,
			    pte_t pte, pud_t *pud, struct pt_walk *w)
{
	struct mm_struct *mm = vma->vm_mm;
	spinlock_t *ptl;	/* the hugetlb entry's lock */
	pte_t *ptep;

	hugetlb_vma_lock_write(vma);
	ptep = hugetlb_walk(vma, addr, PUD_SIZE);
	if (!ptep) {
		hugetlb_vma_unlock_write(vma);
		return false;
	}
	ptl = huge_pte_lock(hstate_vma(vma), mm, ptep);
	huge_ptep_clear_flush(vma, addr, ptep);
	set_huge_pte_at(mm, addr, ptep, pte, PUD_SIZE);
	*pud = pudp_get((pud_t *)ptep);
	spin_unlock(ptl);
	hugetlb_vma_unlock_write(vma);
	if (w)
		pt_walk_locked(w, vma, addr, addr + PUD_SIZE, 0);
	return true;
}

/* A present PUD: the helpers agree with the PTE-format bits hugetlb set. */
static void pt_test_pud_present(struct kunit *test,
				struct vm_area_struct *vma, unsigned long addr,
				pte_t pte, struct folio *folio)
{
	struct pt_walk *w = pt_walk_alloc(test);
	unsigned int attrs = 0;
	const struct pt_rec *r;
	pud_t pud;

	if (!pt_test_pud_set(vma, addr, pte, &pud, w)) {
		KUNIT_FAIL(test, "no PUD at %#lx", addr);
		return;
	}
	/* x86's pud_present() and is_swap_pud() do not know PROT_NONE. */
	KUNIT_EXPECT_FALSE(test, pud_none(pud));
	if (pud_present(pud))
		KUNIT_EXPECT_FALSE(test, is_swap_pud(pud));
	else
		kunit_info(test, "present PUD %#llx: pud_present() is false",
			   (u64)pud_val(pud));
	KUNIT_EXPECT_EQ(test, pud_pfn(pud), pte_pfn(pte));
	KUNIT_EXPECT_EQ(test, !!pud_write(pud), !!huge_pte_write(pte));
	KUNIT_EXPECT_EQ(test, !!pud_dirty(pud), !!huge_pte_dirty(pte));
	KUNIT_EXPECT_EQ(test, !!pud_young(pud), !!pte_young(pte));
	KUNIT_EXPECT_EQ(test, !!pud_uffd_wp(pud), !!huge_pte_uffd_wp(pte));
	KUNIT_EXPECT_EQ(test, !!pud_soft_dirty(pud), !!pte_soft_dirty(pte));

	if (huge_pte_write(pte))
		attrs |= PT_ATTR_WRITE;
	if (huge_pte_dirty(pte))
		attrs |= PT_ATTR_DIRTY;
	if (pte_young(pte))
		attrs |= PT_ATTR_YOUNG;
	if (huge_pte_uffd_wp(pte))
		attrs |= PT_ATTR_UFFD_WP;
	if (pte_soft_dirty(pte))
		attrs |= PT_ATTR_SOFT_DIRTY;
	pt_walk_check(test, w);
	pt_exp_count(test, w, 1);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PUD, addr,
		   addr + PUD_SIZE);
	pt_exp_page(test, r, folio, 0);
	/* Nothing touches the page meanwhile: young is stable here. */
	pt_exp_attrs(test, r, attrs | PT_ATTR_HUGETLB,
		     PT_TEST_MASK | PT_ATTR_YOUNG);
}

/*
 * A swap-format PUD: @swp, with the uffd-wp and soft-dirty swap bits if
 * asked, written by hugetlb in the PTE format, decodes to the same entry
 * and bits, with each bit cleared alone; pt_iter reports it as a PUD entry
 * of @type.
 */
static void pt_test_pud_swap(struct kunit *test, struct vm_area_struct *vma,
			     unsigned long addr, swp_entry_t swp,
			     enum pt_iter_type type, bool uffd_wp,
			     bool soft_dirty)
{
	struct pt_walk *w = pt_walk_alloc(test);
	pte_t pte = swp_entry_to_pte(swp);
	unsigned int attrs = PT_ATTR_HUGETLB;
	const struct pt_rec *r;
	pud_t pud, cleared;

	if (uffd_wp)
		pte = pte_swp_mkuffd_wp(pte);
	if (soft_dirty)
		pte = pte_swp_mksoft_dirty(pte);
	if (!pt_test_pud_set(vma, addr, pte, &pud, w)) {
		KUNIT_FAIL(test, "no PUD at %#lx", addr);
		return;
	}
	kunit_info(test, "swap entry %#lx%s%s as PUD %#llx", swp.val,
		   uffd_wp ? " +uffd-wp" : "", soft_dirty ? " +soft-dirty" : "",
		   (u64)pud_val(pud));
	KUNIT_EXPECT_FALSE(test, pud_present(pud));
	KUNIT_EXPECT_TRUE(test, is_swap_pud(pud));
	KUNIT_EXPECT_EQ(test, pud_to_swp_entry(pud).val, swp.val);
	KUNIT_EXPECT_EQ(test, !!pud_swp_uffd_wp(pud), uffd_wp);
	KUNIT_EXPECT_EQ(test, !!pud_swp_soft_dirty(pud), soft_dirty);

	cleared = pud_swp_clear_uffd_wp(pud);
	KUNIT_EXPECT_FALSE(test, pud_swp_uffd_wp(cleared));
	KUNIT_EXPECT_EQ(test, !!pud_swp_soft_dirty(cleared), soft_dirty);
	KUNIT_EXPECT_EQ(test, pud_to_swp_entry(cleared).val, swp.val);
	cleared = pud_swp_clear_soft_dirty(pud);
	KUNIT_EXPECT_FALSE(test, pud_swp_soft_dirty(cleared));
	KUNIT_EXPECT_EQ(test, !!pud_swp_uffd_wp(cleared), uffd_wp);
	KUNIT_EXPECT_EQ(test, pud_to_swp_entry(cleared).val, swp.val);

	if (uffd_wp || (is_pte_marker_entry(swp) &&
			pte_marker_entry_uffd_wp(swp)))
		attrs |= PT_ATTR_UFFD_WP;
	if (soft_dirty)
		attrs |= PT_ATTR_SOFT_DIRTY;
	pt_walk_check(test, w);
	pt_exp_count(test, w, 1);
	r = pt_exp(test, w, 0, type, PT_ITER_PUD, addr, addr + PUD_SIZE);
	KUNIT_EXPECT_EQ(test, r->swp.val, swp.val);
	pt_exp_attrs(test, r, attrs, PT_TEST_MASK);
}

/*
 * 11. The PUD helpers, on a PUD-sized hugetlb page.  hugetlb writes its
 * entries in the PTE format; what the PUD helpers read back must match
 * what was written, and so must what pt_iter reports through them.
 */
static void pt_iter_test_pud_helpers(struct kunit *test)
{
	const bool have_uffd_wp = IS_ENABLED(CONFIG_HAVE_ARCH_USERFAULTFD_WP);
	const bool have_sd = IS_ENABLED(CONFIG_MEM_SOFT_DIRTY);
	struct vm_area_struct *vma;
	struct folio *folio = NULL;
	struct mm_struct *mm;
	unsigned long a, pfn;
	swp_entry_t swp[5];
	enum pt_iter_type type[5] = {
		PT_ITER_MIGRATION, PT_ITER_MIGRATION, PT_ITER_HWPOISON,
		PT_ITER_MARKER, PT_ITER_MARKER,
	};
	spinlock_t *ptl;	/* the hugetlb entry's lock */
	pte_t *ptep, pte, orig = __pte(0);
	pud_t pud;
	int i, bits;

	if (PMD_SIZE == PUD_SIZE)
		kunit_skip(test, "the PUD level is folded: no PUD leaves");
	/* The first mapping gives the test its mm. */
	a = pt_test_hugetlb_map(test, PUD_SHIFT, 1, 1, 0, 0);
	mm = current->mm;
	pt_test_write(test, a, 1);
	mmap_write_lock(mm);
	vma = vma_lookup(mm, a);
	if (vma) {
		hugetlb_vma_lock_read(vma);
		ptep = hugetlb_walk(vma, a, PUD_SIZE);
		if (ptep) {
			ptl = huge_pte_lock(hstate_vma(vma), mm, ptep);
			orig = huge_ptep_get(mm, a, ptep);
			spin_unlock(ptl);
		}
		hugetlb_vma_unlock_read(vma);
	}
	if (pte_present(orig))
		folio = page_folio(pte_page(orig));
	if (!folio) {
		mmap_write_unlock(mm);
		KUNIT_FAIL(test, "no PUD-sized hugetlb page at %#lx", a);
		return;
	}
	folio_lock(folio);

	/* Present: as faulted, then with each bit flipped. */
	pt_test_pud_present(test, vma, a, orig, folio);
	pt_test_pud_present(test, vma, a, pte_mkold(pte_mkclean(orig)), folio);
	pt_test_pud_present(test, vma, a, huge_pte_wrprotect(orig), folio);
	/* PROT_NONE, as hugetlb_change_protection() writes it. */
	pte = huge_pte_modify(orig, vm_get_page_prot(VM_NONE));
	pte = arch_make_huge_pte(pte, PUD_SHIFT, VM_NONE);
	pt_test_pud_present(test, vma, a, pte, folio);
	if (have_uffd_wp)
		pt_test_pud_present(test, vma, a, huge_pte_mkuffd_wp(orig),
				    folio);
	if (have_sd) {
		pt_test_pud_present(test, vma, a, pte_mksoft_dirty(orig),
				    folio);
		pt_test_pud_present(test, vma, a, pte_clear_soft_dirty(orig),
				    folio);
	}

	/* Every kind of swap-format entry hugetlb leaves in a PUD. */
	pfn = folio_pfn(folio);
	swp[0] = make_readable_migration_entry(pfn);
	swp[1] = make_writable_migration_entry(pfn);
	swp[2] = make_hwpoison_entry(folio_page(folio, 0));
	swp[3] = make_pte_marker_entry(PTE_MARKER_UFFD_WP);
	swp[4] = make_pte_marker_entry(PTE_MARKER_POISONED);
	for (i = 0; i < ARRAY_SIZE(swp); i++) {
		/* Without CONFIG_MEMORY_FAILURE there are no hwpoison entries. */
		if (type[i] == PT_ITER_HWPOISON &&
		    !IS_ENABLED(CONFIG_MEMORY_FAILURE))
			continue;
		for (bits = 0; bits < 4; bits++) {
			bool uffd_wp = bits & 1, sd = bits & 2;

			if ((uffd_wp && !have_uffd_wp) || (sd && !have_sd))
				continue;
			/*
			 * uffd-wp protects the page: the kernel never puts it
			 * on an entry that will map it writable, and
			 * CONFIG_PAGE_TABLE_CHECK warns if it is asked to.
			 */
			if (uffd_wp && is_writable_migration_entry(swp[i]))
				continue;
			pt_test_pud_swap(test, vma, a, swp[i], type[i],
					 uffd_wp, sd);
		}
	}

	KUNIT_EXPECT_TRUE(test, pt_test_pud_set(vma, a, orig, &pud, NULL));
	KUNIT_EXPECT_TRUE(test, pud_present(pud));
	folio_unlock(folio);
	mmap_write_unlock(mm);
}

/*
 * 11a. vm_normal_page_pud() on PUDs built for the purpose, in VMAs of each
 * kind: only a PUD that maps normal memory in a VMA without VM_PFNMAP or
 * VM_MIXEDMAP (hugetlb), a COWed page in a private VM_PFNMAP mapping or a
 * valid pfn in a VM_MIXEDMAP mapping has a page.  The helper looks at the
 * pfn and the special and devmap bits only.  The PUD is built with
 * pfn_pud(), which only some architectures have.
 */
#if defined(CONFIG_X86_64) || defined(CONFIG_ARM64) || \
	defined(CONFIG_RISCV) || defined(CONFIG_PPC_BOOK3S_64)
#define PT_TEST_HAVE_PFN_PUD	1
static struct page *pt_test_normal_page_pud(unsigned long pfn,
					    vm_flags_t flags, pgoff_t pgoff,
					    bool special, bool devmap)
{
	struct vm_area_struct vma = {
		.vm_start = PUD_SIZE,
		.vm_end = 2 * PUD_SIZE,
		.vm_pgoff = pgoff,
	};
	pud_t pud = pfn_pud(pfn, vm_get_page_prot(VM_READ));

	vm_flags_init(&vma, flags);
	if (special)
		pud = pud_mkspecial(pud);
#if defined(CONFIG_ARCH_HAS_PTE_DEVMAP) && \
	defined(CONFIG_TRANSPARENT_HUGEPAGE) && \
	defined(CONFIG_HAVE_ARCH_TRANSPARENT_HUGEPAGE_PUD)
	if (devmap)
		pud = pud_mkdevmap(pud);
#endif
	if (pud_pfn(pud) != pfn)
		return ERR_PTR(-EINVAL);
	return vm_normal_page_pud(&vma, PUD_SIZE, pud);
}
#else
#define PT_TEST_HAVE_PFN_PUD	0
static struct page *pt_test_normal_page_pud(unsigned long pfn,
					    vm_flags_t flags, pgoff_t pgoff,
					    bool special, bool devmap)
{
	return NULL;
}
#endif

static void pt_iter_test_vm_normal_page_pud(struct kunit *test)
{
	const vm_flags_t priv = VM_READ | VM_MAYREAD | VM_MAYWRITE;
	const vm_flags_t shared = priv | VM_SHARED | VM_MAYSHARE;
	const unsigned long nr = PUD_SIZE >> PAGE_SHIFT;
	struct page *page;
	unsigned long pfn, bad;

	if (!PT_TEST_HAVE_PFN_PUD)
		kunit_skip(test, "no pfn_pud() on this architecture");
	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	/* A PUD maps a PUD-aligned pfn; memory around a page has a memmap. */
	pfn = ALIGN_DOWN(page_to_pfn(page), nr);
	__free_page(page);
	if (!pfn_valid(pfn))
		kunit_skip(test, "pfn %#lx below a page has no memmap", pfn);
	bad = ALIGN(highest_memmap_pfn + 1, nr);
	KUNIT_ASSERT_FALSE(test, pfn_valid(bad));

	/* Normal memory, as hugetlb maps it. */
	KUNIT_EXPECT_PTR_EQ(test, pt_test_normal_page_pud(pfn, priv, 0, 0, 0),
			    pfn_to_page(pfn));
	KUNIT_EXPECT_PTR_EQ(test,
			    pt_test_normal_page_pud(pfn, shared, 0, 0, 0),
			    pfn_to_page(pfn));
	/* Beyond the memmap: no page. */
	KUNIT_EXPECT_NULL(test, pt_test_normal_page_pud(bad, priv, 0, 0, 0));

	/* VM_PFNMAP: the linear pfn is no page, COWed or not. */
	KUNIT_EXPECT_NULL(test, pt_test_normal_page_pud(pfn, priv | VM_PFNMAP,
							pfn, 0, 0));
	KUNIT_EXPECT_NULL(test, pt_test_normal_page_pud(pfn, shared | VM_PFNMAP,
							pfn, 0, 0));
	/* Another pfn in a private mapping is a COWed page ... */
	KUNIT_EXPECT_PTR_EQ(test,
			    pt_test_normal_page_pud(pfn, priv | VM_PFNMAP,
						    pfn + nr, 0, 0),
			    pfn_to_page(pfn));
	/* ... but not in a shared one. */
	KUNIT_EXPECT_NULL(test, pt_test_normal_page_pud(pfn, shared | VM_PFNMAP,
							pfn + nr, 0, 0));

	/* VM_MIXEDMAP: a page if the pfn has one. */
	KUNIT_EXPECT_PTR_EQ(test,
			    pt_test_normal_page_pud(pfn, shared | VM_MIXEDMAP,
						    pfn, 0, 0),
			    pfn_to_page(pfn));
	KUNIT_EXPECT_NULL(test, pt_test_normal_page_pud(bad,
							shared | VM_MIXEDMAP,
							bad, 0, 0));

	/* A special PUD (huge pfnmap) or a devmap PUD: never a page. */
	if (IS_ENABLED(CONFIG_ARCH_SUPPORTS_PUD_PFNMAP))
		KUNIT_EXPECT_NULL(test,
				  pt_test_normal_page_pud(pfn,
							  shared | VM_MIXEDMAP,
							  pfn, 1, 0));
	if (IS_ENABLED(CONFIG_ARCH_HAS_PTE_DEVMAP) &&
	    IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE) &&
	    IS_ENABLED(CONFIG_HAVE_ARCH_TRANSPARENT_HUGEPAGE_PUD))
		KUNIT_EXPECT_NULL(test, pt_test_normal_page_pud(pfn, priv, 0,
								0, 1));
}

/*
 * Two VMAs that map one file of PMD-sized hugetlb pages at PUD-aligned
 * addresses, a PUD apart, so that they can share their PMD table: the
 * first one's address.  Skips the test without PMD table sharing, or
 * without @nr free PMD-sized hugetlb pages.
 */
static unsigned long pt_test_hugetlb_sharing(struct kunit *test, int nr)
{
	struct hstate *h = size_to_hstate(PMD_SIZE);
	unsigned long m, b;
	struct file *file;
	int i;

	if (!IS_ENABLED(CONFIG_HUGETLB_PMD_PAGE_TABLE_SHARING))
		kunit_skip(test, "no hugetlb PMD sharing");
	if (!h)
		kunit_skip(test, "no PMD-sized hugetlb pages");
	for (i = 0; i < 200 && READ_ONCE(h->free_huge_pages) < nr; i++) {
		flush_delayed_fput();
		usleep_range(5000, 6000);
	}
	if (READ_ONCE(h->free_huge_pages) < nr)
		kunit_skip(test, "fewer than %d free PMD-sized hugetlb pages",
			   nr);

	/* Address space for two PUD-aligned VMAs. */
	m = pt_test_mmap(test, NULL, 0, 3 * PUD_SIZE, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
	b = ALIGN(m, PUD_SIZE);
	file = hugetlb_file_setup(HUGETLB_ANON_FILE, PUD_SIZE, VM_NORESERVE,
				  HUGETLB_ANONHUGE_INODE, PMD_SHIFT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	for (i = 0; i < 2; i++) {
		m = kunit_vm_mmap(test, file, b + i * PUD_SIZE, PUD_SIZE,
				  PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_FIXED | MAP_NORESERVE, 0);
		KUNIT_EXPECT_EQ(test, m, b + i * PUD_SIZE);
	}
	fput(file);
	return b;
}

/*
 * 12. A hugetlb PMD table shared by two VMAs mapping the same file at
 * PUD-aligned addresses: PT_ATTR_SHARED_TABLE in both.
 */
static void pt_iter_test_hugetlb_shared_table(struct kunit *test)
{
	unsigned long b = pt_test_hugetlb_sharing(test, 1);
	unsigned long b2 = b + PUD_SIZE;
	const struct pt_rec *r;
	struct folio *folio;
	struct pt_walk *w;
	spinlock_t *ptl;	/* the lock of the first VMA's entry */

	pt_test_write(test, b, 1);
	/* The second VMA's fault finds the first one's PMD table. */
	pt_test_read(test, b2);

	w = pt_test_walk(test, b, b + 2 * PMD_SIZE, PT_ITER_HOLES);
	pt_exp_count(test, w, 2);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PMD, b, b + PMD_SIZE);
	pt_exp_attrs(test, r, PT_ATTR_HUGETLB | PT_ATTR_SHARED_TABLE,
		     PT_ATTR_HUGETLB | PT_ATTR_SHARED_TABLE | PT_ATTR_CONT);
	folio = r->folio;
	ptl = r->ptl;
	r = pt_exp(test, w, 1, PT_ITER_NONE, PT_ITER_PMD, b + PMD_SIZE,
		   b + 2 * PMD_SIZE);
	KUNIT_EXPECT_NULL(test, r->ptl);

	w = pt_test_walk(test, b2, b2 + PMD_SIZE, 0);
	pt_exp_count(test, w, 1);
	r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PMD, b2, b2 + PMD_SIZE);
	pt_exp_attrs(test, r, PT_ATTR_HUGETLB | PT_ATTR_SHARED_TABLE,
		     PT_ATTR_HUGETLB | PT_ATTR_SHARED_TABLE | PT_ATTR_CONT);
	KUNIT_EXPECT_PTR_EQ(test, r->folio, folio);
	/* One table, one lock. */
	KUNIT_EXPECT_PTR_EQ(test, r->ptl, ptl);
}
#endif /* CONFIG_HUGETLB_PAGE */

/*
 * 13. Leaving the loop early, by break, return or goto, drops the PTE table
 * lock, a PMD leaf lock or a locked hole's lock without pt_iter_end(): the
 * loop's variable ends the walk when it goes out of scope.  The iterator is
 * then exhausted, and pt_iter_end() after that is harmless.
 */
struct pt_test_stop {
	spinlock_t *ptl;	/* the entry's lock, as it was */
	unsigned long at;
	bool held;
};

/* Leave the loop at @stop: 0 by break, 1 by return, 2 by goto. */
static int pt_test_leave(struct vm_area_struct *vma, unsigned long a,
			 unsigned long stop, int how, struct pt_iter *it,
			 struct pt_test_stop *st)
{
	for_each_pt_entry(it, vma, a, a + 2 * PMD_SIZE, PT_ITER_HOLES) {
		if (it->addr != stop)
			continue;
		st->ptl = it->ptl;
		st->at = it->addr;
		st->held = it->ptl && pt_test_spin_held(it->ptl);
		if (how == 1)
			return 1;
		if (how == 2)
			goto out;
		break;
	}
	return 0;
out:
	return 2;
}

static void pt_iter_test_break(struct kunit *test)
{
	unsigned long a = pt_test_anon(test, 2 * PMD_SIZE, PMD_SIZE,
				       MADV_HUGEPAGE);
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct pt_test_stop st[9] = {};
	bool locked_after[9], more[9];
	int depth[9], ret[9], base, i;
	struct pt_iter it;

	if (!IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		kunit_skip(test, "no THP");
	pt_test_thp(test, a + PMD_SIZE);
	pt_test_madvise(test, a, 2 * PMD_SIZE, MADV_NOHUGEPAGE);
	pt_test_write(test, a, P(4));
	pt_test_write(test, a + P(6), 1);

	mmap_read_lock(mm);
	vma = vma_lookup(mm, a);
	base = pt_test_lock_depth();
	/* i % 3 - 0: on a PTE; 1: on a locked hole; 2: on a PMD leaf. */
	for (i = 0; i < 9; i++) {
		unsigned long stop = i % 3 == 0 ? a + P(2) :
				     i % 3 == 1 ? a + P(4) : a + PMD_SIZE;

		ret[i] = pt_test_leave(vma, a, stop, i / 3, &it, &st[i]);
		depth[i] = pt_test_lock_depth();
		locked_after[i] = st[i].ptl && pt_test_locked(st[i].ptl);
		pt_iter_end(&it);
		more[i] = pt_iter_next(&it);
		if (more[i])
			pt_iter_end(&it);
	}
	mmap_read_unlock(mm);

	for (i = 0; i < 9; i++) {
		KUNIT_EXPECT_NE_MSG(test, st[i].at, 0UL, "case %d: not reached",
				    i);
		KUNIT_EXPECT_EQ_MSG(test, ret[i], i / 3, "case %d: left how", i);
		KUNIT_EXPECT_TRUE_MSG(test, st[i].held, "case %d: no lock", i);
		KUNIT_EXPECT_FALSE_MSG(test, locked_after[i],
				       "case %d: ptl held after the loop", i);
		if (pt_test_depth_valid())
			KUNIT_EXPECT_EQ_MSG(test, depth[i], base,
					    "case %d: locks after the loop", i);
		KUNIT_EXPECT_FALSE_MSG(test, more[i],
				       "case %d: entries after pt_iter_end", i);
	}
}

/*
 * 14. pt_iter_pause(): every lock is dropped (the caller may sleep), and
 * the walk resumes where asked: after the entry, at the entry again, or
 * further on.
 */
static void pt_iter_test_pause(struct kunit *test)
{
	/* Pages visited, relative to the start; the PMD leaf's first, + 3. */
	const unsigned long pmd_nr = PMD_SIZE >> PAGE_SHIFT;
	const unsigned long want[] = { 0, 1, 2, 3, 4, 4, 7, pmd_nr, pmd_nr + 3 };
	unsigned long a = pt_test_anon(test, 2 * PMD_SIZE, PMD_SIZE,
				       MADV_HUGEPAGE);
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	int depth[4] = {}, base, n = 0, k = 0, i;
	bool locked_after[4] = {}, held[12] = {};
	unsigned long seen[12] = {};
	spinlock_t *ptl;	/* the lock of the paused entry */
	struct pt_iter it;

	if (!IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		kunit_skip(test, "no THP");
	pt_test_thp(test, a + PMD_SIZE);
	pt_test_madvise(test, a, 2 * PMD_SIZE, MADV_NOHUGEPAGE);
	pt_test_write(test, a, P(8));

	mmap_read_lock(mm);
	vma = vma_lookup(mm, a);
	base = pt_test_lock_depth();
	for_each_pt_entry(&it, vma, a, a + PMD_SIZE + P(8), 0) {
		if (n == ARRAY_SIZE(seen)) {
			pt_iter_end(&it);
			break;
		}
		seen[n] = it.addr;
		held[n] = it.ptl && pt_test_spin_held(it.ptl);
		ptl = it.ptl;
		switch (n++) {
		case 2:		/* go on after this entry */
			pt_iter_pause(&it, it.end);
			break;
		case 4:		/* look at this entry again */
			pt_iter_pause(&it, it.addr);
			break;
		case 5:		/* skip ahead */
			pt_iter_pause(&it, a + P(7));
			break;
		case 7:		/* a PMD leaf, resume inside it */
			pt_iter_pause(&it, it.addr + P(3));
			break;
		default:
			continue;
		}
		depth[k] = pt_test_lock_depth();
		locked_after[k] = pt_test_locked(ptl);
		/* Sleep only if nothing is held, or lockdep would trip. */
		if (!locked_after[k] && (!pt_test_depth_valid() ||
					 depth[k] == base))
			usleep_range(1000, 2000);
		k++;
	}
	mmap_read_unlock(mm);

	KUNIT_EXPECT_EQ(test, n, ARRAY_SIZE(want));
	for (i = 0; i < ARRAY_SIZE(want) && i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, seen[i], a + P(want[i]), "entry %d",
				    i);
		KUNIT_EXPECT_TRUE_MSG(test, held[i], "entry %d: no lock", i);
	}
	KUNIT_EXPECT_EQ(test, k, 4);
	for (i = 0; i < k; i++) {
		KUNIT_EXPECT_FALSE_MSG(test, locked_after[i],
				       "pause %d: ptl still held", i);
		if (pt_test_depth_valid())
			KUNIT_EXPECT_EQ_MSG(test, depth[i], base,
					    "pause %d: locks still held", i);
	}
}

/*
 * 14b. pt_iter_pause() after a hole of a PTE table, reported with the
 * table's lock, with PT_ITER_HOLES: resuming after it
 * inside the table, exactly at the end of the table, and exactly at the
 * end of the walk (which then ends) sees what a walk without pauses sees.
 */
static void pt_iter_test_pause_holes(struct kunit *test)
{
	/* Entries of the walk, in pages from the start: [start, end). */
	static const struct {
		unsigned long start, end;
		bool hole;
	} want[] = {
		{ 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 4 }, { 4, 6, true },
		{ 6, 7 }, { 7, 8 }, { 8, 512, true }, { 512, 513 },
		{ 513, 514 }, { 514, 516, true },
	};
	unsigned long a = pt_test_anon(test, 2 * PMD_SIZE, PMD_SIZE,
				       MADV_NOHUGEPAGE);
	unsigned long seen[ARRAY_SIZE(want) + 2][2] = {};
	bool hole[ARRAY_SIZE(want) + 2] = {};
	bool held[ARRAY_SIZE(want) + 2] = {};
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	bool locked_after[3] = {};
	int pass, n, k, i;
	struct pt_iter it;
	spinlock_t *ptl;	/* the lock of the paused hole */

	if (PTRS_PER_PTE != 512)
		kunit_skip(test, "the layout assumes 512 PTEs per table");
	pt_test_write(test, a, P(4));
	pt_test_write(test, a + P(6), P(2));
	pt_test_write(test, a + PMD_SIZE, P(2));

	/* Pass 0 walks without pausing, pass 1 pauses after each hole. */
	for (pass = 0; pass < 2; pass++) {
		n = 0;
		k = 0;
		mmap_read_lock(mm);
		vma = vma_lookup(mm, a);
		for_each_pt_entry(&it, vma, a, a + PMD_SIZE + P(4),
				  PT_ITER_HOLES) {
			if (n == ARRAY_SIZE(seen)) {
				pt_iter_end(&it);
				break;
			}
			seen[n][0] = it.addr;
			seen[n][1] = it.end;
			hole[n] = it.type == PT_ITER_NONE;
			held[n] = it.ptl && pt_test_spin_held(it.ptl);
			n++;
			if (!pass || it.type != PT_ITER_NONE || k == 3)
				continue;
			ptl = it.ptl;
			pt_iter_pause(&it, it.end);
			locked_after[k++] = ptl && pt_test_locked(ptl);
		}
		mmap_read_unlock(mm);

		KUNIT_EXPECT_EQ_MSG(test, n, ARRAY_SIZE(want), "pass %d", pass);
		for (i = 0; i < ARRAY_SIZE(want) && i < n; i++) {
			KUNIT_EXPECT_EQ_MSG(test, seen[i][0],
					    a + P(want[i].start),
					    "pass %d, entry %d", pass, i);
			KUNIT_EXPECT_EQ_MSG(test, seen[i][1],
					    a + P(want[i].end),
					    "pass %d, entry %d", pass, i);
			KUNIT_EXPECT_EQ_MSG(test, hole[i], want[i].hole,
					    "pass %d, entry %d", pass, i);
			KUNIT_EXPECT_TRUE_MSG(test, held[i],
					      "pass %d, entry %d: no lock",
					      pass, i);
		}
		if (pass) {
			KUNIT_EXPECT_EQ(test, k, 3);
			for (i = 0; i < k; i++)
				KUNIT_EXPECT_FALSE_MSG(test, locked_after[i],
						       "pause %d: ptl still held",
						       i);
		}
	}
}

#ifdef CONFIG_HUGETLB_PAGE
/*
 * 15. pt_iter_pause() and pt_iter_end() on hugetlb drop the hugetlb VMA
 * lock, which the next step takes again.
 */
static void pt_iter_test_hugetlb_locking(struct kunit *test)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	bool walk_held[3] = {}, walk_paused = true, walk_ended = true;
	int n = 0, depth_paused = 0, depth_ended = 0, base;
	unsigned long a, seen[3] = {};
	struct pt_iter it;

	a = pt_test_hugetlb_map(test, PMD_SHIFT, 2, 2, 0, 0);
	mm = current->mm;
	pt_test_write(test, a, 2 * PMD_SIZE);

	mmap_read_lock(mm);
	vma = vma_lookup(mm, a);
	base = pt_test_lock_depth();
	for_each_pt_entry(&it, vma, a, a + 2 * PMD_SIZE, 0) {
		walk_held[n] = pt_test_walk_lock_held(vma) &&
			       it.ptl && pt_test_spin_held(it.ptl);
		seen[n] = it.addr;
		if (n++ == 0) {
			pt_iter_pause(&it, it.end);
			walk_paused = pt_test_walk_lock_held(vma);
			depth_paused = pt_test_lock_depth();
			if (!walk_paused)
				usleep_range(1000, 2000);
		}
		if (n == ARRAY_SIZE(seen)) {
			pt_iter_end(&it);
			break;
		}
	}
	/* Leave the loop on the first entry: that drops the VMA lock too. */
	for_each_pt_entry(&it, vma, a, a + 2 * PMD_SIZE, 0)
		break;
	walk_ended = pt_test_walk_lock_held(vma);
	depth_ended = pt_test_lock_depth();
	mmap_read_unlock(mm);

	KUNIT_EXPECT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, seen[0], a);
	KUNIT_EXPECT_EQ(test, seen[1], a + PMD_SIZE);
	KUNIT_EXPECT_TRUE(test, walk_held[0]);
	KUNIT_EXPECT_TRUE(test, walk_held[1]);
	KUNIT_EXPECT_FALSE(test, walk_paused);
	KUNIT_EXPECT_FALSE(test, walk_ended);
	if (pt_test_depth_valid()) {
		KUNIT_EXPECT_EQ(test, depth_paused, base);
		KUNIT_EXPECT_EQ(test, depth_ended, base);
	}
}
#endif

/* Holds the mmap lock of @mm for reading until told to let it go. */
struct pt_test_mmap_holder {
	struct mm_struct *mm;
	struct completion locked;
	struct completion release;
	struct completion done;
};

static int pt_test_hold_mmap(void *data)
{
	struct pt_test_mmap_holder *h = data;

	mmap_read_lock(h->mm);
	complete(&h->locked);
	wait_for_completion(&h->release);
	mmap_read_unlock(h->mm);
	complete(&h->done);
	return 0;
}

/*
 * 16. A walk under the VMA lock alone (no mmap lock), as a page fault
 * handler would do it, while another thread holds the mmap lock for
 * reading: the walk asserts what this task holds, so lockdep stays quiet.
 */
static void pt_iter_test_vma_lock(struct kunit *test)
{
	unsigned long a = pt_test_anon(test, PMD_SIZE, PMD_SIZE, 0);
	struct pt_walk *w = pt_walk_alloc(test);
	struct pt_test_mmap_holder h = { .mm = current->mm };
	struct vm_area_struct *vma;
	struct task_struct *t;
	int i;

	if (!IS_ENABLED(CONFIG_PER_VMA_LOCK))
		kunit_skip(test, "no CONFIG_PER_VMA_LOCK");
	pt_test_write(test, a, P(4));
	pt_test_write(test, a + P(6), P(1));
	init_completion(&h.locked);
	init_completion(&h.release);
	init_completion(&h.done);
	t = kthread_run(pt_test_hold_mmap, &h, "pt_iter_mmap");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wait_for_completion(&h.locked);
	vma = lock_vma_under_rcu(current->mm, a);
	if (vma) {
		pt_walk_locked(w, vma, a, a + P(8),
			       PT_ITER_HOLES | PT_ITER_BATCH);
		vma_end_read(vma);
	}
	complete(&h.release);
	wait_for_completion(&h.done);
	if (!vma)
		kunit_skip(test, "could not take the VMA lock");

	pt_walk_check(test, w);
	pt_exp_count(test, w, 7);
	for (i = 0; i < 4; i++)
		pt_exp(test, w, i, PT_ITER_FOLIO, PT_ITER_PTE, a + P(i),
		       a + P(i + 1));
	pt_exp(test, w, 4, PT_ITER_NONE, PT_ITER_PTE, a + P(4), a + P(6));
	pt_exp(test, w, 5, PT_ITER_FOLIO, PT_ITER_PTE, a + P(6), a + P(7));
	pt_exp(test, w, 6, PT_ITER_NONE, PT_ITER_PTE, a + P(7), a + P(8));
}

struct pt_race {
	struct mm_struct *mm;
	unsigned long base;
	unsigned long ops;
};

#define PT_RACE_LEN	(2 * PMD_SIZE)

static void pt_race_fault(unsigned long addr, unsigned long len, bool write)
{
	char c;

	if (write)
		len = clear_user((void __user *)addr, len);
	else
		len = copy_from_user(&c, (void __user *)addr, 1);
}

/* Fault, zap and re-fault pages (and a THP) of the range, until stopped. */
static int pt_race_thread(void *data)
{
	struct pt_race *race = data;
	unsigned long npages = PT_RACE_LEN >> PAGE_SHIFT;

	kthread_use_mm(race->mm);
	while (!kthread_should_stop()) {
		unsigned long pg = get_random_u32_below(npages);
		unsigned long nr = 1 + get_random_u32_below(16);
		unsigned long addr = race->base + P(pg);

		nr = min(nr, npages - pg);
		switch (get_random_u32_below(8)) {
		case 0:
		case 1:
		case 2:
			pt_race_fault(addr, P(nr), true);
			break;
		case 3:
			pt_race_fault(addr, 1, false);
			break;
		case 4:
		case 5:
			do_madvise(race->mm, addr, P(nr), MADV_DONTNEED);
			break;
		case 6:
			/* The first PMD range is MADV_HUGEPAGE: a new THP. */
			do_madvise(race->mm, race->base, PMD_SIZE,
				   MADV_DONTNEED);
			pt_race_fault(race->base, 1, true);
			break;
		default:
			do_madvise(race->mm, race->base, PT_RACE_LEN,
				   MADV_DONTNEED);
			break;
		}
		race->ops++;
		cond_resched();
	}
	kthread_unuse_mm(race->mm);
	return 0;
}

/* Walk, sometimes pausing and sleeping every few entries. */
static void pt_race_walk(struct pt_walk *w, struct vm_area_struct *vma,
			 unsigned long start, unsigned long end,
			 unsigned int flags, bool pause)
{
	struct pt_iter it;

	/* What a record holds: a 4K PMD table's pages, 512 of a 64K one's. */
	end = min(end, start + P(PT_TEST_MAX_REC - 8));
	pt_walk_begin(w, vma, start, end, flags);
	for_each_pt_entry(&it, vma, start, end, flags) {
		pt_record(w, &it);
		if (pause && !(w->nr % 7)) {
			pt_iter_pause(&it, it.end);
			cond_resched();
		}
	}
	pt_walk_finish(w);
}

/*
 * 16b. A VMA of no mm: /proc hands the gate VMA of x86's vsyscall page to
 * its walkers with the task's own VMAs.  Its walk is empty, even over
 * addresses where the task has pages, and takes no lock.
 */
static void pt_iter_test_no_mm(struct kunit *test)
{
	unsigned long a = pt_test_anon(test, PMD_SIZE, PMD_SIZE, 0);
	struct vm_area_struct gate = { .vm_start = a, .vm_end = a + P(4) };
	int base = pt_test_lock_depth(), n = 0;
	struct pt_iter it;

	pt_test_write(test, a, P(4));
	for_each_pt_entry(&it, &gate, a, a + P(4), PT_ITER_HOLES)
		n++;
	KUNIT_EXPECT_EQ(test, n, 0);
	if (pt_test_depth_valid())
		KUNIT_EXPECT_EQ(test, pt_test_lock_depth(), base);
}

/*
 * 17. Walks racing with faults and zaps of another thread of the mm: every
 * entry stays sane, and nothing crashes or trips lockdep.
 */
static void pt_iter_test_race(struct kunit *test)
{
	struct pt_race race = {};
	struct task_struct *task;
	struct pt_walk *w = pt_walk_alloc(test);
	unsigned long deadline, walks = 0, entries = 0;
	struct vm_area_struct *vma;
	bool ok = true;

	race.base = pt_test_anon(test, PT_RACE_LEN, PMD_SIZE, 0);
	pt_test_madvise(test, race.base, PMD_SIZE, MADV_HUGEPAGE);
	race.mm = current->mm;
	mmget(race.mm);
	task = kthread_run(pt_race_thread, &race, "pt_iter_race");
	if (IS_ERR(task)) {
		mmput(race.mm);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	}

	deadline = jiffies + msecs_to_jiffies(1500);
	while (ok && time_before(jiffies, deadline)) {
		unsigned int flags = walks & 3;
		bool pause = walks & 4;

		mmap_read_lock(race.mm);
		/* Walk both VMAs (the MADV_HUGEPAGE one and the other). */
		vma = vma_lookup(race.mm, race.base);
		if (vma) {
			w->loose = true;
			pt_race_walk(w, vma, race.base,
				     min(vma->vm_end, race.base + PT_RACE_LEN),
				     flags, pause);
		}
		mmap_read_unlock(race.mm);
		if (vma)
			ok = pt_walk_check(test, w);
		entries += w->nr;

		mmap_read_lock(race.mm);
		vma = vma_lookup(race.mm, race.base + PMD_SIZE);
		if (vma) {
			w->loose = true;
			pt_race_walk(w, vma, race.base + PMD_SIZE,
				     race.base + PT_RACE_LEN, flags, pause);
		}
		mmap_read_unlock(race.mm);
		if (vma && ok)
			ok = pt_walk_check(test, w);
		entries += w->nr;
		walks++;
		/* Leave the other thread some CPU time on a busy host. */
		usleep_range(200, 400);
	}
	kthread_stop(task);
	mmput(race.mm);
	kunit_info(test, "%lu walks (%lu entries) against %lu faults/zaps",
		   walks, entries, race.ops);
	KUNIT_EXPECT_GT(test, walks, 10UL);
	KUNIT_EXPECT_GT(test, race.ops, 10UL);
}

/*
 * Reference check: the same ranges walked by the kernel's own page walker
 * and by pt_iter, compared page by page.
 *
 * The reference side is walk_page_range() with mm_walk_ops callbacks
 * written from the generic helpers only (pmd_trans_huge_lock(),
 * pte_offset_map_lock(), vm_normal_page(), vm_normal_page_pmd(),
 * huge_ptep_get(), pte_to_swp_entry(), ...).  It records, for each base
 * page of the range, what maps it: the type of the entry, its level where
 * the walker knows it (a PTE, a PMD leaf found by pmd_trans_huge_lock(),
 * the size of a hugetlb page, the table whose absence pte_hole() reports),
 * the pfn or swap entry, the folio and the attributes.  Then each pt_iter
 * entry must cover pages whose records agree with it, nothing mapped may be
 * left out, holes come only with PT_ITER_HOLES, a PMD or hugetlb leaf is
 * one entry clipped to the range only, and a PTE entry is one page, or with
 * PT_ITER_BATCH a batch: pages of one folio at consecutive pfns with the
 * same attributes, in one PTE table, ending only where the next PTE is not
 * the same value for the next page.  Each range is walked with flags 0,
 * PT_ITER_BATCH, PT_ITER_HOLES and both.  The mmap lock is held for write
 * throughout, so nothing changes between the walks.
 */

#define PT_REF_MAX_ERR		16

/* The attributes compared; PT_ATTR_CONT as well for hugetlb. */
#define PT_REF_ATTRS	(PT_ATTR_WRITE | PT_ATTR_YOUNG | PT_ATTR_DIRTY |	\
			 PT_ATTR_SOFT_DIRTY | PT_ATTR_UFFD_WP | PT_ATTR_HUGETLB)

/* What the reference walk found at one base page. */
struct pt_ref_page {
	struct folio *folio;
	unsigned long pfn;		/* 0 if the entry carries none */
	swp_entry_t swp;		/* of the whole leaf, as stored */
	pte_t pte;			/* a PTE, for the end of a batch */
	unsigned long leaf_start;	/* a PMD or hugetlb leaf: its extent */
	unsigned long leaf_size;	/* 0 for a PTE or a hole */
	unsigned int attrs;
	s8 type;			/* enum pt_iter_type; -1: not visited */
	s8 level;			/* enum pt_iter_level; -1: unknown */
};

/* A disagreement, found with the locks of the walk held. */
struct pt_ref_err {
	unsigned int flags;
	unsigned long addr;	/* the pt_iter entry */
	unsigned long end;
	unsigned long at;	/* the page that disagrees */
	const char *what;
	unsigned long got;
	unsigned long want;
};

struct pt_ref {
	struct vm_area_struct *vma;
	unsigned long start;
	unsigned long end;
	struct pt_ref_page *pg;
	bool hugetlb;
	int walk_ret;		/* of walk_page_range() */
	unsigned long unseen;	/* pages the reference walk did not visit */
	/* The pt_iter walk being checked. */
	unsigned int flags;
	unsigned long next;	/* the first page no entry covered yet */
	unsigned long entries[20];
	int nr_err;
	struct pt_ref_err err[PT_REF_MAX_ERR];
};

static struct pt_ref_page *pt_ref_at(const struct pt_ref *ref,
				     unsigned long addr)
{
	return &ref->pg[(addr - ref->start) >> PAGE_SHIFT];
}

/* Record @rp for the pages of [addr, end); a pfn advances by one a page. */
static void pt_ref_fill(struct pt_ref *ref, unsigned long addr,
			unsigned long end, const struct pt_ref_page *rp)
{
	unsigned long i;

	for (i = 0; addr + P(i) < end; i++) {
		struct pt_ref_page *p = pt_ref_at(ref, addr + P(i));

		*p = *rp;
		if (rp->pfn)
			p->pfn = rp->pfn + i;
	}
}

/* A swap-format entry; @idx is the page's index in the leaf. */
static void pt_ref_swp(struct pt_ref_page *rp, swp_entry_t swp,
		       unsigned long idx)
{
	rp->swp = swp;
	if (is_pte_marker_entry(swp))
		rp->type = PT_ITER_MARKER;
	else if (is_migration_entry(swp))
		rp->type = PT_ITER_MIGRATION;
	else if (is_device_private_entry(swp) ||
		 is_device_exclusive_entry(swp))
		rp->type = PT_ITER_DEVICE;
	else if (is_hwpoison_entry(swp))
		rp->type = PT_ITER_HWPOISON;
	else if (!non_swap_entry(swp))
		rp->type = PT_ITER_SWAP;
	else	/* a kind this check does not know: matches nothing */
		rp->type = PT_ITER_NR_TYPES;
	if (rp->type == PT_ITER_MIGRATION || rp->type == PT_ITER_DEVICE ||
	    rp->type == PT_ITER_HWPOISON) {
		rp->pfn = swp_offset_pfn(swp) + idx;
		if (rp->type != PT_ITER_HWPOISON)
			rp->folio = page_folio(pfn_to_page(rp->pfn));
	}
}

static void pt_ref_pte(struct pt_ref *ref, unsigned long addr, pte_t pte)
{
	struct pt_ref_page rp = { .level = PT_ITER_PTE, .pte = pte };
	struct page *page;

	if (pte_none(pte)) {
		rp.type = PT_ITER_NONE;
	} else if (pte_present(pte)) {
		page = vm_normal_page(ref->vma, addr, pte);
		rp.type = page ? PT_ITER_FOLIO : PT_ITER_PFN;
		rp.folio = page ? page_folio(page) : NULL;
		rp.pfn = pte_pfn(pte);
		rp.attrs = pt_test_pte_bits(pte);
	} else {
		pt_ref_swp(&rp, pte_to_swp_entry(pte), 0);
		if (pte_swp_soft_dirty(pte))
			rp.attrs |= PT_ATTR_SOFT_DIRTY;
		if (pte_swp_uffd_wp(pte) || pte_marker_uffd_wp(pte))
			rp.attrs |= PT_ATTR_UFFD_WP;
	}
	pt_ref_fill(ref, addr, addr + PAGE_SIZE, &rp);
}

#ifdef CONFIG_TRANSPARENT_HUGEPAGE
/* A PMD leaf (THP, huge zero page) or PMD migration entry. */
static void pt_ref_pmd(struct pt_ref *ref, unsigned long addr,
		       unsigned long end, pmd_t pmd)
{
	unsigned long start = addr & PMD_MASK;
	unsigned long idx = (addr - start) >> PAGE_SHIFT;
	struct pt_ref_page rp = {
		.level = PT_ITER_PMD,
		.leaf_start = start,
		.leaf_size = PMD_SIZE,
	};
	struct page *page;

	if (pmd_present(pmd)) {
		page = vm_normal_page_pmd(ref->vma, start, pmd);
		rp.type = page ? PT_ITER_FOLIO : PT_ITER_PFN;
		rp.folio = page ? page_folio(page) : NULL;
		rp.pfn = pmd_pfn(pmd) + idx;
		rp.attrs = (pmd_write(pmd) ? PT_ATTR_WRITE : 0) |
			   (pmd_young(pmd) ? PT_ATTR_YOUNG : 0) |
			   (pmd_dirty(pmd) ? PT_ATTR_DIRTY : 0) |
			   (pmd_soft_dirty(pmd) ? PT_ATTR_SOFT_DIRTY : 0) |
			   (pmd_uffd_wp(pmd) ? PT_ATTR_UFFD_WP : 0);
	} else {
		pt_ref_swp(&rp, pmd_to_swp_entry(pmd), idx);
		if (pmd_swp_soft_dirty(pmd))
			rp.attrs |= PT_ATTR_SOFT_DIRTY;
		if (pmd_swp_uffd_wp(pmd))
			rp.attrs |= PT_ATTR_UFFD_WP;
	}
	pt_ref_fill(ref, addr, end, &rp);
}
#endif

static int pt_ref_pmd_entry(pmd_t *pmdp, unsigned long addr,
			    unsigned long end, struct mm_walk *walk)
{
	struct pt_ref *ref = walk->private;
	pte_t *start_pte, *ptep;
	spinlock_t *ptl;	/* the PMD or PTE table lock */

#ifdef CONFIG_TRANSPARENT_HUGEPAGE
	ptl = pmd_trans_huge_lock(pmdp, ref->vma);
	if (ptl) {
		/* For sparse: taken by pmd_trans_huge_lock(). */
		__acquire(ptl);
		pt_ref_pmd(ref, addr, end, pmdp_get(pmdp));
		spin_unlock(ptl);
		return 0;
	}
#endif
	start_pte = pte_offset_map_lock(walk->mm, pmdp, addr, &ptl);
	if (!start_pte) {
		walk->action = ACTION_AGAIN;
		return 0;
	}
	/* For sparse: the RCU read lock pte_unmap_unlock() drops. */
	__acquire(RCU);
	for (ptep = start_pte; addr < end; addr += PAGE_SIZE, ptep++)
		pt_ref_pte(ref, addr, ptep_get(ptep));
	pte_unmap_unlock(start_pte, ptl);
	return 0;
}

/* The level of a hugetlb page of @sz: cont-PTE and cont-PMD are blocks. */
static s8 pt_ref_hugetlb_level(unsigned long sz)
{
	if (sz == PMD_SIZE)
		return PT_ITER_PMD;
	return sz < PMD_SIZE ? PT_ITER_PTE :
	       sz < PUD_SIZE ? PT_ITER_PMD : PT_ITER_PUD;
}

/*
 * A missing table: the walker's depth is the level of its entry.  In a
 * hugetlb VMA (depth -1: no table to hold the entry), the hole is one level
 * above that of its pages.
 */
static int pt_ref_hole(unsigned long addr, unsigned long end, int depth,
		       struct mm_walk *walk)
{
	static const s8 level[] = {
		PT_ITER_PGD, PT_ITER_P4D, PT_ITER_PUD, PT_ITER_PMD, PT_ITER_PTE,
	};
	struct pt_ref *ref = walk->private;
	struct pt_ref_page rp = { .type = PT_ITER_NONE, .level = -1 };

	/*
	 * Where PTRS_PER_* says a level is folded, walk_page_range() reports
	 * a missing entry at the highest of the levels (real_depth()), pt_iter
	 * at the lowest, as it reports leaves: with 4-level page tables, a
	 * missing top-level entry is a P4D hole.
	 */
	if (depth == 0 && PTRS_PER_P4D == 1)
		depth = 1;
	if (depth == 1 && PTRS_PER_PUD == 1)
		depth = 2;
	if (depth == 2 && PTRS_PER_PMD == 1)
		depth = 3;
	if (depth >= 0 && depth < ARRAY_SIZE(level))
		rp.level = level[depth];
#ifdef CONFIG_HUGETLB_PAGE
	if (depth < 0 && is_vm_hugetlb_page(ref->vma))
		rp.level = pt_ref_hugetlb_level(vma_kernel_pagesize(ref->vma)) +
			   1;
#endif
	pt_ref_fill(ref, addr, end, &rp);
	return 0;
}

#ifdef CONFIG_HUGETLB_PAGE
static int pt_ref_hugetlb_entry(pte_t *ptep, unsigned long hmask,
				unsigned long addr, unsigned long end,
				struct mm_walk *walk)
{
	struct pt_ref *ref = walk->private;
	struct hstate *h = hstate_vma(ref->vma);
	unsigned long sz = huge_page_size(h), start = addr & hmask;
	unsigned long idx = (addr - start) >> PAGE_SHIFT;
	struct pt_ref_page rp = {
		.leaf_start = start,
		.leaf_size = sz,
		.attrs = PT_ATTR_HUGETLB,
		.level = pt_ref_hugetlb_level(sz),
	};
	spinlock_t *ptl;	/* the hugetlb entry's lock */
	pte_t pte;

	ptl = huge_pte_lock(h, walk->mm, ptep);
	pte = huge_ptep_get(walk->mm, start, ptep);
	spin_unlock(ptl);

	if (sz != PMD_SIZE && sz != PUD_SIZE)
		rp.attrs |= PT_ATTR_CONT;
	if (huge_pte_none(pte)) {
		/* An empty entry of a table: a hole of the pages' level. */
		rp = (struct pt_ref_page) {
			.type = PT_ITER_NONE,
			.level = rp.level,
			.attrs = PT_ATTR_HUGETLB,
		};
	} else if (pte_present(pte)) {
		rp.type = PT_ITER_FOLIO;
		rp.folio = page_folio(pte_page(pte));
		rp.pfn = pte_pfn(pte) + idx;
		rp.attrs |= (huge_pte_write(pte) ? PT_ATTR_WRITE : 0) |
			    (pte_young(pte) ? PT_ATTR_YOUNG : 0) |
			    (huge_pte_dirty(pte) ? PT_ATTR_DIRTY : 0) |
			    (pte_soft_dirty(pte) ? PT_ATTR_SOFT_DIRTY : 0) |
			    (huge_pte_uffd_wp(pte) ? PT_ATTR_UFFD_WP : 0);
	} else {
		pt_ref_swp(&rp, pte_to_swp_entry(pte), idx);
		if (pte_swp_soft_dirty(pte))
			rp.attrs |= PT_ATTR_SOFT_DIRTY;
		if (pte_swp_uffd_wp(pte) || pte_marker_uffd_wp(pte))
			rp.attrs |= PT_ATTR_UFFD_WP;
	}
	pt_ref_fill(ref, addr, end, &rp);
	return 0;
}
#endif

/*
 * Walk VM_PFNMAP VMAs too: the callbacks decode their special PTEs.  A
 * hugetlb VMA is walked here, by its hugetlb entries, and then skipped.
 */
static int pt_ref_test_walk(unsigned long addr, unsigned long end,
			    struct mm_walk *walk)
{
	return pt_stock_walk_hugetlb(addr, end, walk);
}

static const struct pt_stock_walk_ops pt_ref_ops = {
	.ops = {
		.pmd_entry = pt_ref_pmd_entry,
		.pte_hole = pt_ref_hole,
		.test_walk = pt_ref_test_walk,
		.walk_lock = PGWALK_RDLOCK,
	},
#ifdef CONFIG_HUGETLB_PAGE
	.hugetlb = pt_ref_hugetlb_entry,
#endif
};

static void pt_ref_bad(struct pt_ref *ref, unsigned long addr,
		       unsigned long end, unsigned long at, const char *what,
		       unsigned long got, unsigned long want)
{
	if (ref->nr_err < PT_REF_MAX_ERR)
		ref->err[ref->nr_err] = (struct pt_ref_err) {
			.flags = ref->flags, .addr = addr, .end = end,
			.at = at, .what = what, .got = got, .want = want,
		};
	ref->nr_err++;
}

/* Pages [ref->next, to) were covered by no entry: they must be holes. */
/* Whether the walk asks for entries of @type (holes are asked for apart). */
static bool pt_ref_wanted(const struct pt_ref *ref, int type)
{
	unsigned int want = ref->flags & PT_ITER_WANT_ALL;

	return !want || type == PT_ITER_NONE || (want & PT_ITER_WANT(type));
}

static void pt_ref_skipped(struct pt_ref *ref, unsigned long to)
{
	unsigned long addr;

	for (addr = ref->next; addr < to; addr += PAGE_SIZE) {
		/* An entry of a type the walk does not want is skipped. */
		if (pt_ref_at(ref, addr)->type >= 0 &&
		    !pt_ref_wanted(ref, pt_ref_at(ref, addr)->type))
			continue;
		if (ref->flags & PT_ITER_HOLES) {
			pt_ref_bad(ref, ref->next, to, addr,
				   "not covered with PT_ITER_HOLES", 0, 0);
			return;
		}
		if (pt_ref_at(ref, addr)->type != PT_ITER_NONE) {
			pt_ref_bad(ref, ref->next, to, addr, "mapped page skipped",
				   PT_ITER_NONE, pt_ref_at(ref, addr)->type);
			return;
		}
	}
}

static bool pt_ref_has_pfn(enum pt_iter_type type)
{
	return type == PT_ITER_FOLIO || type == PT_ITER_PFN ||
	       type == PT_ITER_MIGRATION || type == PT_ITER_DEVICE ||
	       type == PT_ITER_HWPOISON;
}

/* @pte without the bits the walk's PT_ITER_IGNORE_* flags let differ. */
static pte_t pt_ref_norm(const struct pt_ref *ref, pte_t pte)
{
	if (ref->flags & PT_ITER_IGNORE_WRITE)
		pte = pte_wrprotect(pte);
	if (ref->flags & PT_ITER_IGNORE_YOUNG)
		pte = pte_mkold(pte);
	if (ref->flags & PT_ITER_IGNORE_DIRTY)
		pte = pte_mkclean(pte);
	if (ref->flags & PT_ITER_IGNORE_SOFT_DIRTY)
		pte = pte_clear_soft_dirty(pte);
	if (ref->flags & PT_ITER_IGNORE_UFFD_WP)
		pte = pte_clear_uffd_wp(pte);
	return pte;
}

/*
 * Whether the PTE of @p continues a batch whose last PTE is that of @last:
 * the next page of the same folio with the same bits or, in a walk that
 * does not look at pages (PT_ITER_NO_PAGE), any normal page with the same
 * bits but the pfn.  The latter is told by pte_pgprot(), which leaves the
 * pfn out, not by moving a PTE to another pfn as the iterator does; but
 * riscv has no pte_pgprot() (the generic one is 0 for every PTE), so there
 * the PTEs are compared once moved to pfn 0.
 */
static bool pt_ref_continues(const struct pt_ref *ref,
			     const struct pt_ref_page *last,
			     const struct pt_ref_page *p)
{
	pte_t a, b;

	if (p->type != PT_ITER_FOLIO || p->level != PT_ITER_PTE)
		return false;
	a = pt_ref_norm(ref, last->pte);
	b = pt_ref_norm(ref, p->pte);
	if ((ref->flags & PT_ITER_NO_PAGE) && IS_ENABLED(CONFIG_RISCV))
		return pte_same(pte_advance_pfn(a, -pte_pfn(a)),
				pte_advance_pfn(b, -pte_pfn(b)));
	if (ref->flags & PT_ITER_NO_PAGE)
		return pgprot_val(pte_pgprot(a)) == pgprot_val(pte_pgprot(b));
	return p->folio == last->folio && pte_same(b, pte_advance_pfn(a, 1));
}

/* A PTE batch must not end before a PTE that would continue it. */
static void pt_ref_batch_end(struct pt_ref *ref, const struct pt_iter *it)
{
	const struct pt_ref_page *last, *p;

	if ((it->addr & PMD_MASK) != ((it->end - 1) & PMD_MASK))
		pt_ref_bad(ref, it->addr, it->end, it->end - PAGE_SIZE,
			   "batch crosses a PTE table", 0, 0);
	if (it->end >= ref->end || !(it->end & ~PMD_MASK))
		return;
	last = pt_ref_at(ref, it->end - PAGE_SIZE);
	p = pt_ref_at(ref, it->end);
	if (pt_ref_continues(ref, last, p))
		pt_ref_bad(ref, it->addr, it->end, it->end,
			   "batch ends before a PTE that continues it", 0, 0);
}

/* Check one pt_iter entry against the reference; its lock is held. */
static void pt_ref_entry(struct pt_ref *ref, const struct pt_iter *it)
{
	unsigned int full = PT_REF_ATTRS | (ref->hugetlb ? PT_ATTR_CONT : 0);
	/*
	 * Each page of an entry has its attributes but the ignored ones,
	 * which the entry has if any of its pages has them.
	 */
	unsigned int ignored = full & pt_test_ignored(ref->flags);
	unsigned int mask = full & ~ignored, any = 0;
	unsigned long nr = pt_iter_nr_pages(it), pfn = pt_iter_pfn(it);
	unsigned int attrs = pt_iter_attrs(it);
	swp_entry_t swp = pt_iter_swp(it);
	const struct pt_ref_page *first, *p;
	unsigned long i, at, lend;
	struct page *page = NULL;
	bool nopage, run;

	if (it->addr < ref->next || it->addr >= it->end ||
	    it->end > ref->end) {
		pt_ref_bad(ref, it->addr, it->end, it->addr,
			   "entry out of order or out of the range", it->addr,
			   ref->next);
		ref->next = clamp(it->end, ref->next, ref->end);
		return;
	}
	pt_ref_skipped(ref, it->addr);
	ref->next = it->end;
	if (!pt_ref_wanted(ref, it->type))
		pt_ref_bad(ref, it->addr, it->end, it->addr,
			   "a type the walk does not want", it->type, 0);

	first = pt_ref_at(ref, it->addr);
	if (first->level >= 0 && it->level != first->level)
		pt_ref_bad(ref, it->addr, it->end, it->addr, "level", it->level,
			   first->level);
	if (!pt_ref_has_pfn(it->type) &&
	    (pfn || (it->type == PT_ITER_NONE && swp.val)))
		pt_ref_bad(ref, it->addr, it->end, it->addr,
			   "pfn or swap entry of an entry with none", pfn,
			   swp.val);
	/* pt_iter_has() of each bit says what pt_iter_attrs() says. */
	for (i = 0; BIT(i) <= PT_ATTR_CLIPPED; i++)
		if (pt_iter_has(it, BIT(i)) != !!(attrs & BIT(i)))
			pt_ref_bad(ref, it->addr, it->end, it->addr,
				   "pt_iter_has() against pt_iter_attrs()",
				   BIT(i), attrs);
	if (it->type == PT_ITER_NONE) {
		if (!(ref->flags & PT_ITER_HOLES))
			pt_ref_bad(ref, it->addr, it->end, it->addr,
				   "hole without PT_ITER_HOLES", 0, 0);
		/*
		 * A hole is made of empty entries of one level; in a hugetlb
		 * VMA, empty entries of the pages' level (in a table) have
		 * PT_ATTR_HUGETLB, missing tables do not.
		 */
		for (i = 0; i < nr; i++) {
			p = pt_ref_at(ref, it->addr + P(i));
			if (p->type != PT_ITER_NONE) {
				pt_ref_bad(ref, it->addr, it->end,
					   it->addr + P(i), "hole over an entry",
					   PT_ITER_NONE, p->type);
				break;
			}
			if (p->level >= 0 && p->level != it->level) {
				pt_ref_bad(ref, it->addr, it->end,
					   it->addr + P(i),
					   "hole of entries of two levels",
					   it->level, p->level);
				break;
			}
			if ((attrs ^ p->attrs) & PT_ATTR_HUGETLB) {
				pt_ref_bad(ref, it->addr, it->end,
					   it->addr + P(i), "hole attributes",
					   attrs, p->attrs);
				break;
			}
		}
		/* A hole of a PTE table comes with its lock. */
		if (!ref->hugetlb && it->level == PT_ITER_PTE && !it->ptl)
			pt_ref_bad(ref, it->addr, it->end, it->addr,
				   "hole of a PTE table without its lock", 0, 0);
		return;
	}

	/*
	 * PT_ITER_NO_PAGE: no folio or page for a present entry, and the
	 * pfns of the pages of a run of PTEs are any.
	 */
	nopage = (ref->flags & PT_ITER_NO_PAGE) && it->type == PT_ITER_FOLIO;
	run = nopage && !first->leaf_size;
	for (i = 0; i < nr; i++) {
		at = it->addr + P(i);
		p = pt_ref_at(ref, at);
		any |= p->attrs & ignored;
		if (p->type != it->type)
			pt_ref_bad(ref, it->addr, it->end, at, "type", it->type,
				   p->type);
		else if ((attrs & mask) != (p->attrs & mask))
			pt_ref_bad(ref, it->addr, it->end, at, "attributes",
				   attrs & full, p->attrs);
		else if ((run && i) ? !pt_ref_continues(ref, p - 1, p) :
			 p->pfn != (pt_ref_has_pfn(it->type) ? pfn + i : 0))
			pt_ref_bad(ref, it->addr, it->end, at,
				   (run && i) ? "PTE does not continue the run" :
				   "pfn", pfn + i, p->pfn);
		else if (p->swp.val != swp.val)
			pt_ref_bad(ref, it->addr, it->end, at, "swap entry",
				   swp.val, p->swp.val);
		else if (it->folio != (nopage ? NULL : p->folio))
			pt_ref_bad(ref, it->addr, it->end, at, "folio",
				   (unsigned long)it->folio,
				   nopage ? 0 : (unsigned long)p->folio);
		else if (p->level != first->level)
			pt_ref_bad(ref, it->addr, it->end, at, "level in entry",
				   first->level, p->level);
		else
			continue;
		break;
	}
	if (i == nr && (attrs & ignored) != any)
		pt_ref_bad(ref, it->addr, it->end, it->addr,
			   "ignored attributes, not those of any page",
			   attrs & ignored, any);
	if (pt_ref_has_pfn(it->type) && it->type != PT_ITER_PFN && !nopage)
		page = pfn_to_page(first->pfn);
	if (it->page != page)
		pt_ref_bad(ref, it->addr, it->end, it->addr, "page",
			   (unsigned long)it->page, (unsigned long)page);

	if (first->leaf_size) {
		/* A PMD or hugetlb leaf: one entry, clipped to the range. */
		lend = first->leaf_start + first->leaf_size;
		if (it->addr != max(first->leaf_start, ref->start) ||
		    it->end != min(lend, ref->end))
			pt_ref_bad(ref, it->addr, it->end, it->addr,
				   "leaf extent", it->end, min(lend, ref->end));
		if (!!(attrs & PT_ATTR_CLIPPED) !=
		    (first->leaf_start < ref->start || lend > ref->end))
			pt_ref_bad(ref, it->addr, it->end, it->addr,
				   "PT_ATTR_CLIPPED", attrs & PT_ATTR_CLIPPED,
				   0);
	} else if (it->type != PT_ITER_FOLIO ||
		   !(ref->flags & PT_ITER_BATCH)) {
		if (nr != 1)
			pt_ref_bad(ref, it->addr, it->end, it->addr,
				   "PTE entry of several pages", nr, 1);
	} else {
		pt_ref_batch_end(ref, it);
	}
}

#define PT_REF_LOOSE	(PT_ITER_IGNORE_WRITE | PT_ITER_IGNORE_YOUNG |	\
			 PT_ITER_IGNORE_DIRTY)

static const unsigned int pt_ref_flags[] = {
	0, PT_ITER_BATCH, PT_ITER_HOLES, PT_ITER_HOLES | PT_ITER_BATCH,
	PT_ITER_NO_PAGE, PT_ITER_NO_PAGE | PT_ITER_BATCH | PT_ITER_HOLES,
	PT_ITER_NO_PAGE | PT_ITER_BATCH,
	/* What a read-only PAGEMAP_SCAN asks. */
	PT_ITER_NO_PAGE | PT_ITER_BATCH | PT_REF_LOOSE,
	PT_ITER_NO_PAGE | PT_ITER_BATCH | PT_ITER_HOLES | PT_REF_LOOSE,
	/* What the walks of fs/proc/task_mmu.c ask. */
	PT_ITER_BATCH | PT_ITER_IGNORE_WRITE | PT_ITER_IGNORE_SOFT_DIRTY |
	PT_ITER_IGNORE_UFFD_WP | PT_ITER_WANT(PT_ITER_FOLIO) |
	PT_ITER_WANT(PT_ITER_SWAP) | PT_ITER_WANT(PT_ITER_MIGRATION) |
	PT_ITER_WANT(PT_ITER_DEVICE) | PT_ITER_WANT(PT_ITER_HWPOISON),
	PT_ITER_HOLES | PT_ITER_BATCH | PT_ITER_IGNORE_WRITE |
	PT_ITER_IGNORE_SOFT_DIRTY | PT_ITER_IGNORE_UFFD_WP |
	PT_ITER_WANT(PT_ITER_FOLIO) | PT_ITER_WANT(PT_ITER_SWAP) |
	PT_ITER_WANT(PT_ITER_MIGRATION) | PT_ITER_WANT(PT_ITER_DEVICE) |
	PT_ITER_WANT(PT_ITER_HWPOISON),
	PT_ITER_BATCH | PT_ITER_IGNORE_WRITE | PT_ITER_IGNORE_YOUNG |
	PT_ITER_IGNORE_SOFT_DIRTY | PT_ITER_IGNORE_UFFD_WP |
	PT_ITER_WANT(PT_ITER_FOLIO),
	PT_ITER_BATCH | PT_REF_LOOSE | PT_ITER_IGNORE_SOFT_DIRTY |
	PT_ITER_IGNORE_UFFD_WP | PT_ITER_WANT_PRESENT,
	PT_ITER_BATCH | PT_ITER_NO_PAGE | PT_REF_LOOSE |
	PT_ITER_IGNORE_SOFT_DIRTY | PT_ITER_IGNORE_UFFD_WP,
	PT_ITER_HOLES | PT_ITER_BATCH | PT_REF_LOOSE,
	/*
	 * Some types only: no folios (the inline step, which decodes only
	 * folios, must not run), and folios and swap entries with holes.
	 */
	PT_ITER_WANT(PT_ITER_PFN),
	PT_ITER_HOLES | PT_ITER_BATCH | PT_ITER_WANT(PT_ITER_FOLIO) |
	PT_ITER_WANT(PT_ITER_SWAP),
};

KUNIT_DEFINE_ACTION_WRAPPER(pt_ref_kvfree, kvfree, const void *);

/* A reference for [start, end): allocate it before taking any lock. */
static struct pt_ref *pt_ref_new(struct kunit *test, unsigned long start,
				 unsigned long end)
{
	struct pt_ref *ref = kunit_kzalloc(test, sizeof(*ref), GFP_KERNEL);
	unsigned long i, nr = (end - start) >> PAGE_SHIFT;

	KUNIT_ASSERT_NOT_NULL(test, ref);
	ref->pg = kvcalloc(nr, sizeof(*ref->pg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ref->pg);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pt_ref_kvfree,
							ref->pg), 0);
	for (i = 0; i < nr; i++)
		ref->pg[i].type = -1;
	ref->start = start;
	ref->end = end;
	return ref;
}

/*
 * Walk [ref->start, ref->end) of @vma with the reference walker, then with
 * pt_iter under each set of flags, checking each entry.  The mmap lock is
 * held for write; nothing here reports to KUnit (see pt_ref_report()).
 */
static void pt_ref_compare(struct pt_ref *ref, struct vm_area_struct *vma)
{
	unsigned long addr;
	struct pt_iter it;
	int f;

	ref->vma = vma;
	ref->hugetlb = is_vm_hugetlb_page(vma);
	ref->walk_ret = walk_page_range(vma->vm_mm, ref->start, ref->end,
					&pt_ref_ops.ops, ref);
	for (addr = ref->start; addr < ref->end; addr += PAGE_SIZE)
		if (pt_ref_at(ref, addr)->type < 0)
			ref->unseen++;

	BUILD_BUG_ON(ARRAY_SIZE(pt_ref_flags) > ARRAY_SIZE(ref->entries));
	for (f = 0; f < ARRAY_SIZE(pt_ref_flags); f++) {
		ref->flags = pt_ref_flags[f];
		ref->next = ref->start;
		for_each_pt_entry(&it, vma, ref->start, ref->end, ref->flags) {
			pt_ref_entry(ref, &it);
			ref->entries[f]++;
		}
		pt_ref_skipped(ref, ref->end);
	}
}

static void pt_ref_report(struct kunit *test, const struct pt_ref *ref)
{
	char counts[20 * 8] = "";
	int i, n = 0;

	KUNIT_EXPECT_EQ(test, ref->walk_ret, 0);
	KUNIT_EXPECT_EQ_MSG(test, ref->unseen, 0UL,
			    "pages the reference walk did not visit");
	for (i = 0; i < ARRAY_SIZE(pt_ref_flags); i++)
		n += scnprintf(counts + n, sizeof(counts) - n, "%s%lu",
			       i ? "/" : "", ref->entries[i]);
	kunit_info(test, "[%#lx, %#lx): %lu pages; entries %s", ref->start,
		   ref->end, (ref->end - ref->start) >> PAGE_SHIFT, counts);
	for (i = 0; i < min(ref->nr_err, PT_REF_MAX_ERR); i++) {
		const struct pt_ref_err *e = &ref->err[i];

		KUNIT_FAIL(test,
			   "flags %#x: entry [+%#lx, +%#lx), page +%#lx: %s: pt_iter %#lx, reference %#lx",
			   e->flags, e->addr - ref->start, e->end - ref->start,
			   e->at - ref->start, e->what, e->got, e->want);
	}
	KUNIT_EXPECT_LE_MSG(test, ref->nr_err, PT_REF_MAX_ERR,
			    "more disagreements");
}

/* Compare [start, end) of the VMA at @start, under the mmap write lock. */
static struct pt_ref *pt_ref_check(struct kunit *test, unsigned long start,
				   unsigned long end)
{
	struct pt_ref *ref = pt_ref_new(test, start, end);
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;

	mmap_write_lock(mm);
	vma = vma_lookup(mm, start);
	if (vma && end <= vma->vm_end)
		pt_ref_compare(ref, vma);
	mmap_write_unlock(mm);
	KUNIT_ASSERT_TRUE_MSG(test, vma && end <= vma->vm_end,
			      "[%#lx, %#lx) not in one VMA", start, end);
	pt_ref_report(test, ref);
	return ref;
}

/* Pages of the reference of type @type (and level @level if >= 0). */
static unsigned long pt_ref_count(const struct pt_ref *ref,
				  enum pt_iter_type type, int level)
{
	unsigned long addr, n = 0;

	for (addr = ref->start; addr < ref->end; addr += PAGE_SIZE) {
		const struct pt_ref_page *p = pt_ref_at(ref, addr);

		if (p->type == type && (level < 0 || p->level == level))
			n++;
	}
	return n;
}

static pte_t pt_ref_pte_numa(pte_t pte)
{
	return pte_modify(pte, vm_get_page_prot(VM_NONE));
}

/*
 * Small anonymous pages: written, read (the shared zero page), holes, and
 * single PTEs made old, clean, write-protected, not soft-dirty, uffd-wp,
 * and PROT_NONE as NUMA hinting makes them (pte_modify() to PAGE_NONE, what
 * change_prot_numa() writes; the KUnit kernel has no NUMA_BALANCING).
 * Then swap-format PTEs of every kind installed under the PTE lock: swap
 * (soft-dirty, uffd-wp), migration, hwpoison, device-exclusive, uffd-wp
 * and poisoned markers; the original PTEs are put back after the walks.
 */
static void pt_ref_anon(struct kunit *test, unsigned int unused)
{
	unsigned long a = pt_test_anon(test, PMD_SIZE, PMD_SIZE, 0);
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct folio *mig = NULL;
	swp_entry_t swp[7] = {};
	pte_t old[7], new[7];
	struct pt_ref *ref;
	int i;

	pt_test_write(test, a, P(8));
	pt_test_read(test, a + P(9));
	pt_test_write(test, a + P(16), P(6));
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a + P(1),
						   pt_test_mkold));
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a + P(2),
						   pte_mkclean));
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a + P(3),
						   pte_wrprotect));
#ifdef CONFIG_MEM_SOFT_DIRTY
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a + P(4),
						   pt_test_clear_sd));
#endif
#ifdef CONFIG_HAVE_ARCH_USERFAULTFD_WP
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a + P(5),
						   pt_test_mkuffd_wp));
#endif
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a + P(6),
						   pt_ref_pte_numa));
	/* Six PROT_NONE PTEs in a row (x86 inverts their pfn). */
	pt_test_write(test, a + P(24), P(6));
	for (i = 24; i < 30; i++)
		KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a + P(i),
							   pt_ref_pte_numa));
	ref = pt_ref_check(test, a, a + P(32));
	KUNIT_EXPECT_EQ(test, pt_ref_count(ref, PT_ITER_FOLIO, PT_ITER_PTE),
			20UL);
	KUNIT_EXPECT_EQ(test, pt_ref_count(ref, PT_ITER_PFN, PT_ITER_PTE), 1UL);
	/*
	 * Pages 16-21 and 24-29 are small folios whose PTEs differ only in
	 * their pfn: a walk with PT_ITER_NO_PAGE | PT_ITER_BATCH takes each
	 * six as one run, where a batch stops at each folio.  Pages 4 and 5
	 * are such a pair too where neither soft-dirty nor uffd-wp exists to
	 * tell them apart (riscv).
	 */
	KUNIT_EXPECT_EQ(test, ref->entries[3] - ref->entries[5],
			IS_ENABLED(CONFIG_MEM_SOFT_DIRTY) ||
			IS_ENABLED(CONFIG_HAVE_ARCH_USERFAULTFD_WP) ? 10UL : 11UL);

	/* Swap-format PTEs at a + P(15 + i); the first one in a hole. */
	swp[0] = swp_entry(0, 0x2000);
	swp[1] = swp_entry(0, 0x1234);
	mig = ref->pg[17].folio;
	KUNIT_ASSERT_NOT_NULL(test, mig);
	swp[2] = make_readable_migration_entry(folio_pfn(mig));
#ifdef CONFIG_MEMORY_FAILURE
	swp[3] = swp_entry(SWP_HWPOISON, ref->pg[18].pfn);
#endif
#ifdef CONFIG_DEVICE_PRIVATE
	swp[4] = make_readable_device_exclusive_entry(ref->pg[19].pfn);
#endif
#ifdef CONFIG_PTE_MARKER_UFFD_WP
	swp[5] = make_pte_marker_entry(PTE_MARKER_UFFD_WP);
#endif
	swp[6] = make_poisoned_swp_entry();
	for (i = 0; i < ARRAY_SIZE(swp); i++)
		new[i] = swp[i].val ? swp_entry_to_pte(swp[i]) : __pte(0);
#ifdef CONFIG_HAVE_ARCH_USERFAULTFD_WP
	new[0] = pte_swp_mkuffd_wp(new[0]);
#endif
	new[1] = pte_swp_mksoft_dirty(new[1]);

	ref = pt_ref_new(test, a, a + P(32));
	mmap_write_lock(mm);
	vma = vma_lookup(mm, a);
	folio_lock(mig);
	for (i = 0; i < ARRAY_SIZE(swp); i++)
		if (swp[i].val)
			pt_test_install(test, vma, a + P(15 + i), new[i],
					&old[i]);
	pt_ref_compare(ref, vma);
	for (i = 0; i < ARRAY_SIZE(swp); i++)
		if (swp[i].val)
			pt_test_install(test, vma, a + P(15 + i), old[i],
					&new[i]);
	folio_unlock(mig);
	mmap_write_unlock(mm);
	pt_ref_report(test, ref);
	KUNIT_EXPECT_EQ(test, pt_ref_count(ref, PT_ITER_SWAP, -1), 2UL);
	KUNIT_EXPECT_EQ(test, pt_ref_count(ref, PT_ITER_MIGRATION, -1), 1UL);
	KUNIT_EXPECT_EQ(test, pt_ref_count(ref, PT_ITER_MARKER, -1),
			IS_ENABLED(CONFIG_PTE_MARKER_UFFD_WP) ? 2UL : 1UL);
}

/*
 * Runs of 1 to 9 empty PTEs between small pages, pages at and near the
 * ends of a PTE table, and walks that begin or end inside each run, with
 * and without holes: the bounds of a run of empty PTEs (the walk's end,
 * the table's end, the next present PTE) are all covered.
 */
static void pt_ref_empty_runs(struct kunit *test, unsigned int unused)
{
	unsigned long a = pt_test_anon(test, 2 * PMD_SIZE, PMD_SIZE,
				       MADV_NOHUGEPAGE);
	unsigned long i, off = 0;
	struct pt_ref *ref;

	/* Pages 0, 2, 5, 9, 14, 20, 27, 35, 44 and 54. */
	for (i = 1; i <= 10; i++) {
		pt_test_write(test, a + P(off), 1);
		off += i + 1;
	}
	pt_test_write(test, a + PMD_SIZE - P(6), 1);
	pt_test_write(test, a + PMD_SIZE - P(1), 1);
	pt_test_write(test, a + PMD_SIZE + P(4), 1);
	ref = pt_ref_check(test, a, a + 2 * PMD_SIZE);
	KUNIT_EXPECT_EQ(test, pt_ref_count(ref, PT_ITER_FOLIO, PT_ITER_PTE),
			13UL);
	for (i = 1; i < 60; i++) {
		pt_ref_check(test, a, a + P(i));
		pt_ref_check(test, a + P(i), a + P(62));
	}
	for (i = 1; i < 12; i++) {
		pt_ref_check(test, a + PMD_SIZE - P(i), a + PMD_SIZE + P(i));
		pt_ref_check(test, a + PMD_SIZE - P(12), a + PMD_SIZE - P(i));
	}
}

/*
 * Walks that start where the rest of their PTE table is empty and go on
 * into the next table: a walk that skips holes passes the empty PTEs up to
 * the end of the first table, then must go down to the next table, not
 * read the first one again from its start (whose pages 0 and 1, present,
 * are outside the range).
 */
static void pt_ref_empty_tail(struct kunit *test, unsigned int unused)
{
	unsigned long a = pt_test_anon(test, 2 * PMD_SIZE, PMD_SIZE,
				       MADV_NOHUGEPAGE);
	struct pt_ref *ref;
	unsigned long i;

	pt_test_write(test, a, 1);
	pt_test_write(test, a + P(1), 1);
	pt_test_write(test, a + PMD_SIZE + P(1), 1);
	for (i = 2; i < 6; i++) {
		ref = pt_ref_check(test, a + P(i), a + PMD_SIZE + P(i));
		KUNIT_EXPECT_EQ(test,
				pt_ref_count(ref, PT_ITER_FOLIO, PT_ITER_PTE),
				1UL);
		pt_ref_check(test, a + PMD_SIZE - P(i), a + 2 * PMD_SIZE);
	}
}

/*
 * Page cache of a shmem file: in a MAP_SHARED mapping, pages written (dirty,
 * writable) and pages only read (clean, read-only, some mapped by fault
 * around); in a MAP_PRIVATE mapping of the same file, page cache pages
 * read-faulted (read-only) next to anonymous copies made by write faults.
 * Swapped-out shmem pages are not covered: shmem keeps their swap entries
 * in the page cache, not in the page table (which has holes there), and
 * the KUnit kernel has no swap device to swap to.
 */
static void pt_ref_file(struct kunit *test, unsigned int unused)
{
	unsigned long len = P(64), s, v;
	struct pt_ref *ref;
	struct file *file;

	file = shmem_file_setup("pt_iter_ref", len, VM_NORESERVE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	s = kunit_vm_mmap(test, file, 0, len, PROT_READ | PROT_WRITE,
			  MAP_SHARED, 0);
	v = kunit_vm_mmap(test, file, 0, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE, 0);
	fput(file);
	KUNIT_ASSERT_TRUE(test, s && !IS_ERR_VALUE(s));
	KUNIT_ASSERT_TRUE(test, v && !IS_ERR_VALUE(v));

	pt_test_write(test, s, P(4));
	pt_test_read(test, s + P(8));
	pt_test_read(test, s + P(40));
	pt_test_write(test, s + P(42), P(1));
	pt_test_read(test, v);
	pt_test_read(test, v + P(2));
	pt_test_write(test, v + P(2), P(2));
	pt_test_write(test, v + P(20), P(1));

	ref = pt_ref_check(test, s, s + len);
	KUNIT_EXPECT_TRUE(test, ref->pg[0].attrs & PT_ATTR_DIRTY);
	KUNIT_EXPECT_FALSE(test, ref->pg[8].attrs & PT_ATTR_DIRTY);
	ref = pt_ref_check(test, v, v + len);
	KUNIT_EXPECT_TRUE(test, ref->pg[0].folio &&
			  !folio_test_anon(ref->pg[0].folio));
	KUNIT_EXPECT_TRUE(test, ref->pg[2].folio &&
			  folio_test_anon(ref->pg[2].folio));
}

static void pt_ref_umount(void *mnt)
{
	kern_unmount(mnt);
}

KUNIT_DEFINE_ACTION_WRAPPER(pt_ref_fput, fput, struct file *);

/* A tmpfs mounted with huge=always: its files get PMD-sized folios. */
static struct vfsmount *pt_ref_huge_tmpfs(struct kunit *test)
{
	struct file_system_type *type = get_fs_type("tmpfs");
	char opts[] = "huge=always";
	struct vfsmount *mnt;

	if (!type)
		kunit_skip(test, "no tmpfs");
	mnt = vfs_kern_mount(type, SB_KERNMOUNT, type->name, opts);
	put_filesystem(type);
	if (IS_ERR(mnt))
		kunit_skip(test, "tmpfs with huge=always: %ld", PTR_ERR(mnt));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pt_ref_umount,
							mnt), 0);
	return mnt;
}

/* Map @len bytes of @file at @addr, MAP_SHARED. */
static void pt_ref_map_shmem(struct kunit *test, struct file *file,
			     unsigned long addr, unsigned long len)
{
	unsigned long ret;

	ret = kunit_vm_mmap(test, file, addr, len, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_FIXED, 0);
	KUNIT_ASSERT_EQ(test, ret, addr);
}

/* A file of @mnt, closed when the test ends. */
static struct file *pt_ref_shmem_file(struct kunit *test,
				      struct vfsmount *mnt)
{
	struct file *file;

	file = shmem_file_setup_with_mnt(mnt, "pt_iter_ref", 2 * PMD_SIZE,
					 VM_NORESERVE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pt_ref_fput,
							file), 0);
	return file;
}

/*
 * shmem THPs mapped by PMDs: one written (dirty, writable), one only read
 * (clean, read-only).
 */
static void pt_ref_shmem_thp(struct kunit *test, unsigned int unused)
{
	struct vfsmount *mnt = pt_ref_huge_tmpfs(test);
	unsigned long a = pt_test_anon(test, 2 * PMD_SIZE, PMD_SIZE, 0);
	struct pt_ref *ref;

	pt_ref_map_shmem(test, pt_ref_shmem_file(test, mnt), a, 2 * PMD_SIZE);
	pt_test_write(test, a, 1);
	pt_test_read(test, a + PMD_SIZE);
	ref = pt_ref_check(test, a, a + 2 * PMD_SIZE);
	/* The reference walker tells whether the kernel gave a THP. */
	if (!pt_ref_count(ref, PT_ITER_FOLIO, PT_ITER_PMD))
		kunit_skip(test, "no PMD-mapped shmem THP of %luK here",
			   PMD_SIZE >> 10);
	KUNIT_EXPECT_EQ(test, pt_ref_count(ref, PT_ITER_FOLIO, PT_ITER_PMD),
			2UL * HPAGE_PMD_NR);
	pt_ref_check(test, a + P(3), a + PMD_SIZE + P(5));
}

/*
 * A large folio that straddles a PTE table boundary: a shmem THP, put in
 * the page cache by a fault in an aligned mapping, then mapped again at an
 * address 8 pages below a PMD boundary (the kernel has no in-kernel
 * mremap(); a misaligned file mapping gives the same page tables), its
 * first 16 pages written, each fault mapping one PTE.  A batch must end at
 * the table boundary, and only there.
 */
static void pt_ref_straddle(struct kunit *test, unsigned int unused)
{
	struct vfsmount *mnt = pt_ref_huge_tmpfs(test);
	unsigned long a = pt_test_anon(test, 4 * PMD_SIZE, PMD_SIZE, 0);
	unsigned long s = a + 2 * PMD_SIZE - P(8);
	struct file *file = pt_ref_shmem_file(test, mnt);
	struct pt_ref *ref;

	pt_ref_map_shmem(test, file, a, PMD_SIZE);
	pt_test_write(test, a, 1);
	pt_ref_map_shmem(test, file, s, P(32));
	pt_test_write(test, s, P(16));
	ref = pt_ref_check(test, s, s + P(32));
	if (!ref->pg[7].folio || !folio_test_large(ref->pg[7].folio))
		kunit_skip(test, "no shmem THP of %luK here", PMD_SIZE >> 10);
	KUNIT_EXPECT_PTR_EQ(test, ref->pg[7].folio, ref->pg[8].folio);
	pt_ref_check(test, s + P(2), s + P(12));
}

/* A device whose mmap() makes VM_PFNMAP or VM_MIXEDMAP mappings. */
struct pt_ref_dev {
	struct page *page[2];
	bool mixed;
};

static int pt_ref_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct pt_ref_dev *dev = file->private_data;
	int ret;

	if (!dev->mixed)
		/* Special PTEs for pages 1 and 2, holes around. */
		return remap_pfn_range(vma, vma->vm_start + P(1),
				       page_to_pfn(dev->page[0]), P(2),
				       vma->vm_page_prot);
	/* Normal pages inserted at pages 0 and 2. */
	ret = vm_insert_page(vma, vma->vm_start, dev->page[0]);
	if (!ret)
		ret = vm_insert_page(vma, vma->vm_start + P(2), dev->page[1]);
	return ret;
}

static const struct file_operations pt_ref_dev_fops = {
	.owner = THIS_MODULE,
	.mmap = pt_ref_dev_mmap,
};

/*
 * Map the device, compare, and unmap before the caller frees the pages;
 * returns the number of pages of type @type the reference saw.
 */
static unsigned long pt_ref_dev_check(struct kunit *test,
				      struct pt_ref_dev *dev,
				      enum pt_iter_type type)
{
	struct vm_area_struct *vma;
	struct pt_ref *ref;
	struct file *file;
	unsigned long a;

	file = anon_inode_getfile("[pt_iter_ref]", &pt_ref_dev_fops, dev,
				  O_RDWR);
	if (IS_ERR(file)) {
		KUNIT_FAIL(test, "anon_inode_getfile: %ld", PTR_ERR(file));
		return 0;
	}
	a = vm_mmap(file, 0, P(4), PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	fput(file);
	if (IS_ERR_VALUE(a)) {
		KUNIT_FAIL(test, "vm_mmap: %ld", (long)a);
		return 0;
	}
	ref = pt_ref_new(test, a, a + P(4));
	mmap_write_lock(current->mm);
	vma = vma_lookup(current->mm, a);
	if (vma)
		pt_ref_compare(ref, vma);
	mmap_write_unlock(current->mm);
	KUNIT_EXPECT_EQ(test, vm_munmap(a, P(4)), 0);
	KUNIT_EXPECT_NOT_NULL(test, vma);
	pt_ref_report(test, ref);
	if (type == PT_ITER_PFN)
		KUNIT_EXPECT_EQ(test, ref->pg[1].pfn,
				page_to_pfn(dev->page[0]));
	return pt_ref_count(ref, type, PT_ITER_PTE);
}

/*
 * VM_PFNMAP (remap_pfn_range(): special PTEs, no page) and VM_MIXEDMAP
 * (vm_insert_page(): normal pages) mappings of kernel pages, made by the
 * mmap() of a file of our own.  walk_page_range() skips VM_PFNMAP VMAs
 * unless ->test_walk says otherwise, which pt_ref_test_walk() does.  The
 * pages are freed only once unmapped: if a check stops the test earlier,
 * they are left allocated.
 */
static void pt_ref_pfnmap(struct kunit *test, unsigned int unused)
{
	struct pt_ref_dev *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	struct page *pages;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	/* kunit_vm_mmap() attaches the mm the device is mapped into. */
	pt_test_anon(test, PAGE_SIZE, PAGE_SIZE, 0);

	pages = alloc_pages(GFP_KERNEL, 1);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	dev->page[0] = pages;
	KUNIT_EXPECT_EQ(test, pt_ref_dev_check(test, dev, PT_ITER_PFN), 2UL);
	__free_pages(pages, 1);

	dev->page[0] = alloc_page(GFP_KERNEL);
	dev->page[1] = alloc_page(GFP_KERNEL);
	dev->mixed = true;
	if (dev->page[0] && dev->page[1])
		KUNIT_EXPECT_EQ(test, pt_ref_dev_check(test, dev, PT_ITER_FOLIO),
				2UL);
	if (dev->page[0])
		__free_page(dev->page[0]);
	if (dev->page[1])
		__free_page(dev->page[1]);
}

#ifdef CONFIG_TRANSPARENT_HUGEPAGE
/* Replace the PMD leaf mapping @addr by @fn of it, under its lock. */
static bool pt_ref_modify_pmd(unsigned long addr, pmd_t (*fn)(pmd_t pmd))
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	spinlock_t *ptl;	/* the PMD lock */
	bool ok = false;
	pmd_t *pmdp;
	pmd_t old;

	mmap_write_lock(mm);
	vma = vma_lookup(mm, addr);
	pmdp = pt_test_pmdp(mm, addr);
	if (vma && pmdp) {
		ptl = pmd_lock(mm, pmdp);
		if (pmd_trans_huge(pmdp_get(pmdp))) {
			old = pmdp_huge_clear_flush(vma, addr, pmdp);
			set_pmd_at(mm, addr, pmdp, fn(old));
			ok = true;
		}
		spin_unlock(ptl);
	}
	mmap_write_unlock(mm);
	return ok;
}

static pmd_t pt_ref_pmd_mkclean(pmd_t pmd)
{
	return pmd_mkclean(pmd);
}

static pmd_t pt_ref_pmd_mkold(pmd_t pmd)
{
	return pmd_mkold(pmd);
}

static pmd_t pt_ref_pmd_wrprotect(pmd_t pmd)
{
	return pmd_wrprotect(pmd);
}

#ifdef CONFIG_HAVE_ARCH_USERFAULTFD_WP
static pmd_t pt_ref_pmd_mkuffd_wp(pmd_t pmd)
{
	return pmd_mkuffd_wp(pmd_wrprotect(pmd));
}
#endif

static pmd_t pt_ref_pmd_numa(pmd_t pmd)
{
	return pmd_modify(pmd, vm_get_page_prot(VM_NONE));
}

/*
 * The THP at @a (@folio) replaced by a soft-dirty PMD migration entry, and
 * compared in that state with the THP after it.
 */
static void pt_ref_thp_migration(struct kunit *test, unsigned long a,
				 struct folio *folio)
{
#ifdef CONFIG_ARCH_ENABLE_THP_MIGRATION
	struct pt_ref *ref = pt_ref_new(test, a, a + 2 * PMD_SIZE);
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	spinlock_t *ptl;	/* the PMD lock */
	pmd_t *pmdp, orig, swpmd;

	swpmd = swp_entry_to_pmd(make_writable_migration_entry(folio_pfn(folio)));
	mmap_write_lock(mm);
	vma = vma_lookup(mm, a);
	pmdp = pt_test_pmdp(mm, a);
	if (vma && pmdp) {
		folio_lock(folio);
		ptl = pmd_lock(mm, pmdp);
		orig = pmdp_huge_clear_flush(vma, a, pmdp);
		set_pmd_at(mm, a, pmdp, pmd_swp_mksoft_dirty(swpmd));
		spin_unlock(ptl);
		pt_ref_compare(ref, vma);
		ptl = pmd_lock(mm, pmdp);
		pmdp_huge_get_and_clear(mm, a, pmdp);
		set_pmd_at(mm, a, pmdp, orig);
		spin_unlock(ptl);
		folio_unlock(folio);
	}
	mmap_write_unlock(mm);
	KUNIT_ASSERT_TRUE(test, vma && pmdp);
	pt_ref_report(test, ref);
	KUNIT_EXPECT_EQ(test, pt_ref_count(ref, PT_ITER_MIGRATION, PT_ITER_PMD),
			(unsigned long)HPAGE_PMD_NR);
#endif
}

/*
 * PMD-mapped THPs: as written (dirty, writable), made clean, old,
 * write-protected (as mprotect(PROT_READ) leaves them), uffd-wp, PROT_NONE
 * as NUMA hinting makes them (pmd_modify() to PAGE_NONE), and the huge
 * zero page; walked whole and from inside the first leaf to inside the
 * last.  Then the first THP replaced by a PMD migration entry.
 */
static void pt_ref_thp(struct kunit *test, unsigned int unused)
{
	static pmd_t (*const fn[])(pmd_t pmd) = {
		NULL, pt_ref_pmd_mkclean, pt_ref_pmd_mkold,
		pt_ref_pmd_wrprotect,
#ifdef CONFIG_HAVE_ARCH_USERFAULTFD_WP
		pt_ref_pmd_mkuffd_wp,
#endif
		pt_ref_pmd_numa,
	};
	const unsigned long n = ARRAY_SIZE(fn) + 1, len = n * PMD_SIZE;
	unsigned long a = pt_test_anon(test, len, PMD_SIZE, MADV_HUGEPAGE);
	struct pt_ref *ref;
	int i;

	for (i = 0; i < ARRAY_SIZE(fn); i++)
		pt_test_thp(test, a + i * PMD_SIZE);
	pt_test_read(test, a + len - PMD_SIZE);
	pt_test_madvise(test, a, len, MADV_NOHUGEPAGE);
	for (i = 1; i < ARRAY_SIZE(fn); i++)
		KUNIT_ASSERT_TRUE(test, pt_ref_modify_pmd(a + i * PMD_SIZE,
							  fn[i]));
	ref = pt_ref_check(test, a, a + len);
	KUNIT_EXPECT_EQ(test, pt_ref_count(ref, PT_ITER_FOLIO, PT_ITER_PMD),
			ARRAY_SIZE(fn) * HPAGE_PMD_NR);
	KUNIT_EXPECT_EQ(test, pt_ref_count(ref, PT_ITER_PFN, PT_ITER_PMD),
			(unsigned long)HPAGE_PMD_NR);
	pt_ref_check(test, a + P(3), a + len - PMD_SIZE + P(5));

	pt_ref_thp_migration(test, a, ref->pg[0].folio);
}

/*
 * 64K mTHPs whose PTEs differ in one bit only: one left as written, one
 * with a PTE made clean, one with a PTE not soft-dirty, and one with two
 * write-protected PTEs of which one is uffd-wp.  A batch may not span a
 * difference, and must span everything else.
 */
static void pt_ref_mthp_bits(struct kunit *test, unsigned int unused)
{
	unsigned long a, nr = 1UL << PT_TEST_MTHP_ORDER;
	struct pt_ref *ref;
	int ret;

	pt_test_mthp_was_set = test_and_set_bit(PT_TEST_MTHP_ORDER,
						&huge_anon_orders_madvise);
	ret = kunit_add_action_or_reset(test, pt_test_mthp_restore, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);

	/* Smaller than a PMD: no PMD THP can be placed in it. */
	a = pt_test_anon(test, PMD_SIZE / 2, P(nr), MADV_HUGEPAGE);
	pt_test_write(test, a, P(4 * nr));
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a + P(nr + 5),
						   pte_mkclean));
#ifdef CONFIG_MEM_SOFT_DIRTY
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a + P(2 * nr + 5),
						   pt_test_clear_sd));
#endif
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a + P(3 * nr + 4),
						   pte_wrprotect));
#ifdef CONFIG_HAVE_ARCH_USERFAULTFD_WP
	KUNIT_ASSERT_TRUE(test, pt_test_modify_pte(test, a + P(3 * nr + 5),
						   pt_test_mkuffd_wp));
#endif
	ref = pt_ref_check(test, a, a + P(5 * nr));
	KUNIT_ASSERT_NOT_NULL(test, ref->pg[0].folio);
	KUNIT_EXPECT_EQ(test, folio_nr_pages(ref->pg[0].folio), nr);
	KUNIT_EXPECT_PTR_EQ(test, ref->pg[3 * nr + 4].folio,
			    ref->pg[3 * nr + 5].folio);
	pt_ref_check(test, a + P(3), a + P(3 * nr + 7));
}
#else
static void pt_ref_thp(struct kunit *test, unsigned int unused)
{
	kunit_skip(test, "no THP");
}

static void pt_ref_mthp_bits(struct kunit *test, unsigned int unused)
{
	kunit_skip(test, "no THP");
}
#endif

#ifdef CONFIG_HUGETLB_PAGE
/*
 * Replace the hugetlb entry at @addr by @new (none to clear it), the old
 * one in @old.  The mmap lock and the hugetlb VMA lock are held for write.
 */
static bool pt_ref_huge_xchg(struct vm_area_struct *vma, unsigned long addr,
			     pte_t new, pte_t *old)
{
	struct hstate *h = hstate_vma(vma);
	unsigned long sz = huge_page_size(h);
	struct mm_struct *mm = vma->vm_mm;
	spinlock_t *ptl;	/* the hugetlb entry's lock */
	pte_t *ptep;

	ptep = huge_pte_alloc(mm, vma, addr, sz);
	if (!ptep)
		return false;
	ptl = huge_pte_lock(h, mm, ptep);
	*old = huge_ptep_get(mm, addr, ptep);
	if (pte_present(*old))
		huge_ptep_clear_flush(vma, addr, ptep);
	else if (!huge_pte_none(*old))
		huge_ptep_get_and_clear(mm, addr, ptep, sz);
	if (!huge_pte_none(new))
		set_huge_pte_at(mm, addr, ptep, new, sz);
	spin_unlock(ptl);
	return true;
}

/* The hugetlb entry at @addr; the hugetlb VMA lock is held. */
static pte_t pt_ref_huge_get(struct vm_area_struct *vma, unsigned long addr)
{
	struct hstate *h = hstate_vma(vma);
	spinlock_t *ptl;	/* the hugetlb entry's lock */
	pte_t *ptep, pte;

	ptep = hugetlb_walk(vma, addr, huge_page_size(h));
	if (!ptep)
		return __pte(0);
	ptl = huge_pte_lock(h, vma->vm_mm, ptep);
	pte = huge_ptep_get(vma->vm_mm, addr, ptep);
	spin_unlock(ptl);
	return pte;
}

/*
 * hugetlb pages of 1 << @shift bytes: one written, one only read, holes.
 * Then, in their place and in the holes, a migration entry, a uffd-wp
 * present entry, a uffd-wp marker, a soft-dirty hwpoison entry and a
 * poisoned marker.  PUD-sized pages are left out: faulting one clears 1G,
 * too slow under TCG for this case (the hugetlb_pud tests cover them).
 */
static void pt_ref_hugetlb(struct kunit *test, unsigned int shift)
{
	unsigned long sz = 1UL << shift, a, i;
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	struct folio *folio[2];
	pte_t new[5], old[5];
	struct pt_ref *ref;
	swp_entry_t swp;
	bool ok = true;
	bool third;

	a = pt_test_hugetlb_map(test, shift, 6, 2, 0, 0);
	mm = current->mm;
	pt_test_write(test, a, 1);
	pt_test_read(test, a + sz);
	/*
	 * A third page where the pool has one: three present pages in a row,
	 * the step from one to the next within a PMD table.
	 */
	third = READ_ONCE(size_to_hstate(sz)->free_huge_pages) > 0;
	if (third)
		pt_test_read(test, a + 2 * sz);
	ref = pt_ref_check(test, a, a + 6 * sz);
	KUNIT_EXPECT_EQ(test, pt_ref_count(ref, PT_ITER_FOLIO, -1),
			(2 + third) * (sz >> PAGE_SHIFT));
	pt_ref_check(test, a + P(1), a + sz + sz / 2);

	folio[0] = ref->pg[0].folio;
	folio[1] = ref->pg[sz >> PAGE_SHIFT].folio;
	KUNIT_ASSERT_TRUE(test, folio[0] && folio[1]);
	swp = make_readable_migration_entry(folio_pfn(folio[0]));
	new[0] = swp_entry_to_pte(swp);
	new[2] = __pte(0);
	new[3] = __pte(0);
	new[4] = swp_entry_to_pte(make_poisoned_swp_entry());
#ifdef CONFIG_PTE_MARKER_UFFD_WP
	new[2] = swp_entry_to_pte(make_pte_marker_entry(PTE_MARKER_UFFD_WP));
#endif
#ifdef CONFIG_MEMORY_FAILURE
	swp = swp_entry(SWP_HWPOISON, folio_pfn(folio[1]));
	new[3] = pte_swp_mksoft_dirty(swp_entry_to_pte(swp));
#endif

	ref = pt_ref_new(test, a, a + 6 * sz);
	mmap_write_lock(mm);
	vma = vma_lookup(mm, a);
	folio_lock(folio[0]);
	hugetlb_vma_lock_write(vma);
	/* The read-only page, made uffd-wp. */
	new[1] = huge_pte_wrprotect(pt_ref_huge_get(vma, a + sz));
#ifdef CONFIG_HAVE_ARCH_USERFAULTFD_WP
	new[1] = huge_pte_mkuffd_wp(new[1]);
#endif
	for (i = 0; i < ARRAY_SIZE(new); i++) {
		if (!pt_ref_huge_xchg(vma, a + i * sz, new[i], &old[i])) {
			ok = false;
			break;
		}
	}
	hugetlb_vma_unlock_write(vma);
	if (ok)
		pt_ref_compare(ref, vma);
	hugetlb_vma_lock_write(vma);
	while (i--)
		pt_ref_huge_xchg(vma, a + i * sz, old[i], &new[i]);
	hugetlb_vma_unlock_write(vma);
	folio_unlock(folio[0]);
	mmap_write_unlock(mm);
	KUNIT_ASSERT_TRUE(test, ok);
	pt_ref_report(test, ref);
	KUNIT_EXPECT_EQ(test, pt_ref_count(ref, PT_ITER_MIGRATION, -1),
			sz >> PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, pt_ref_count(ref, PT_ITER_MARKER, -1),
			(IS_ENABLED(CONFIG_PTE_MARKER_UFFD_WP) ? 2 : 1) *
			(sz >> PAGE_SHIFT));
}
#endif

/*
 * A user address that is a multiple of P4D_SIZE (512G with 4K pages, 1G
 * where the P4D and PUD levels are folded into the PGD), with room for
 * two PUDs above it: 64T where the address space has it, else the highest
 * such multiple below half of TASK_SIZE; 0 if there is none.
 */
static unsigned long pt_test_p4d_boundary(void)
{
	u64 b = 1ULL << 46;

	if (b + 2 * PUD_SIZE > TASK_SIZE)
		b = ALIGN_DOWN((u64)TASK_SIZE / 2, P4D_SIZE);
	return !b || b + 2 * PUD_SIZE > TASK_SIZE ? 0 : (unsigned long)b;
}

#ifdef CONFIG_HUGETLB_PAGE
/*
 * Present hugetlb pages of PMD level on both sides of a PUD boundary: the
 * step from one page to the next of the same PMD table must not run off
 * the end of the table.
 */
static void pt_ref_hugetlb_pud_edge(struct kunit *test, unsigned int shift)
{
	unsigned long sz = 1UL << shift, b = pt_test_p4d_boundary(), a, i;
	struct pt_ref *ref;

	if (sz < PMD_SIZE || sz >= PUD_SIZE)
		kunit_skip(test, "%luK hugetlb pages are not PMD leaves",
			   sz >> 10);
	if (!b)
		kunit_skip(test, "no P4D boundary below %#lx", TASK_SIZE);
	b += PUD_SIZE;
	a = pt_test_hugetlb_map(test, shift, 4, 4, b - 2 * sz,
				MAP_FIXED_NOREPLACE);
	KUNIT_ASSERT_EQ(test, a, b - 2 * sz);
	for (i = 0; i < 4; i++)
		pt_test_read(test, a + i * sz);
	ref = pt_ref_check(test, a, a + 4 * sz);
	KUNIT_EXPECT_EQ(test, pt_ref_count(ref, PT_ITER_FOLIO, -1),
			4 * (sz >> PAGE_SHIFT));
	pt_ref_check(test, a + P(1), b + sz + P(1));
}
#endif

/*
 * A walk across a P4D boundary (with 4K pages: 512G, a PGD entry with
 * 4-level page tables, a P4D entry with 5 levels, a P4D hole either way;
 * with 3 levels a 1G PGD entry, a PUD hole: see pt_ref_hole()): first
 * with nothing mapped above it, so that the walk meets a missing entry of
 * the top level, then with pages on both sides.
 */
static void pt_ref_512g(struct kunit *test, unsigned int unused)
{
	unsigned long a, b = pt_test_p4d_boundary();
	struct pt_ref *ref;

	if (!b)
		kunit_skip(test, "no P4D boundary below %#lx", TASK_SIZE);
	a = kunit_vm_mmap(test, NULL, b - PMD_SIZE, 2 * PMD_SIZE,
			  PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
			  MAP_NORESERVE | MAP_FIXED_NOREPLACE, 0);
	if (a != b - PMD_SIZE)
		kunit_skip(test, "cannot map at %#lx: %ld", b - PMD_SIZE,
			   (long)a);
	pt_test_write(test, b - P(1), 1);
	ref = pt_ref_check(test, a, b + PMD_SIZE);
	KUNIT_EXPECT_EQ(test, pt_ref_at(ref, b)->level,
			PTRS_PER_PUD > 1 ? PT_ITER_P4D : PT_ITER_PUD);
	pt_test_write(test, b, 1);
	pt_test_write(test, b + P(3), 1);
	pt_ref_check(test, a, b + PMD_SIZE);
	pt_ref_check(test, b - P(2), b + P(4));
}

struct pt_ref_layout {
	const char *name;
	void (*fn)(struct kunit *test, unsigned int shift);
	unsigned int shift;
};

static const struct pt_ref_layout pt_ref_layouts[] = {
	{ "anon", pt_ref_anon },
	{ "empty-runs", pt_ref_empty_runs },
	{ "empty-tail", pt_ref_empty_tail },
	{ "file", pt_ref_file },
	{ "shmem-thp", pt_ref_shmem_thp },
	{ "straddle", pt_ref_straddle },
	{ "pfnmap", pt_ref_pfnmap },
	{ "thp", pt_ref_thp },
	{ "mthp-bits", pt_ref_mthp_bits },
#ifdef CONFIG_HUGETLB_PAGE
	{ "hugetlb-64K", pt_ref_hugetlb, 16 },
	{ "hugetlb-2M", pt_ref_hugetlb, 21 },
	{ "hugetlb-32M", pt_ref_hugetlb, 25 },
	{ "hugetlb-2M-pud-edge", pt_ref_hugetlb_pud_edge, 21 },
#endif
	{ "512G", pt_ref_512g },
};

static void pt_ref_desc(const struct pt_ref_layout *l, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", l->name);
}

KUNIT_ARRAY_PARAM(pt_ref, pt_ref_layouts, pt_ref_desc);

/* 18. Each layout, walked by pt_iter and by the reference walker. */
static void pt_iter_test_reference(struct kunit *test)
{
	const struct pt_ref_layout *l = test->param_value;

	l->fn(test, l->shift);
}

/*
 * 19-21.  Races a review names as the riskiest for a walker, each forced at
 * one point rather than left to chance.
 *
 * 19. The PMD that the walk read as a PTE table stops being one before
 * pte_offset_map_lock(): khugepaged's collapse of a PTE-mapped shmem THP
 * retracts the table (the PMD becomes none) and, for MADV_COLLAPSE, maps
 * the THP by the PMD.  The walk calls pt_iter_test_race_window() in that
 * window, where the test collapses the THP; the walk must then report
 * what the PMD has become, one entry for the whole PMD, not a hole of a
 * THP nor the PTEs of a table that is gone.
 */
struct pt_race_collapse {
	struct task_struct *task;	/* the walker */
	unsigned long addr;
	bool install;		/* map the THP by the PMD, or leave it none */
	int calls;
};

static struct pt_race_collapse pt_race_collapse;

void pt_iter_test_race_window(struct mm_struct *mm, unsigned long addr)
{
	struct pt_race_collapse *c = &pt_race_collapse;

	/* Only in the walk of the test, and once. */
	if (READ_ONCE(c->task) != current || c->calls++)
		return;
	collapse_pte_mapped_thp(mm, c->addr, c->install);
}

static void pt_race_collapse_case(struct kunit *test, bool install)
{
	struct vfsmount *mnt = pt_ref_huge_tmpfs(test);
	unsigned long a = pt_test_anon(test, PMD_SIZE, PMD_SIZE, 0);
	struct pt_walk *w, *w2;
	const struct pt_rec *r;

	pt_ref_map_shmem(test, pt_ref_shmem_file(test, mnt), a, PMD_SIZE);
	pt_test_write(test, a, PMD_SIZE);
	w = pt_test_walk(test, a, a + PMD_SIZE, 0);
	if (w->nr != 1 || w->rec[0].level != PT_ITER_PMD)
		kunit_skip(test, "no PMD-mapped shmem THP of %luK here",
			   PMD_SIZE >> 10);
	/*
	 * Map the THP by PTEs: unmapped by a zap of one page, faulted in
	 * again where the VMA may not map it by a PMD.
	 */
	pt_test_madvise(test, a, PMD_SIZE, MADV_NOHUGEPAGE);
	pt_test_madvise(test, a, PAGE_SIZE, MADV_DONTNEED);
	pt_test_write(test, a, PMD_SIZE);
	pt_test_madvise(test, a, PMD_SIZE, MADV_HUGEPAGE);
	w = pt_test_walk(test, a, a + PMD_SIZE, PT_ITER_BATCH);
	KUNIT_ASSERT_GE(test, w->nr, 1);
	KUNIT_ASSERT_EQ_MSG(test, w->rec[0].level, PT_ITER_PTE,
			    "the shmem THP is still mapped by its PMD");

	pt_race_collapse = (struct pt_race_collapse) {
		.addr = a, .install = install,
	};
	WRITE_ONCE(pt_race_collapse.task, current);
	w = pt_test_walk(test, a, a + PMD_SIZE, PT_ITER_HOLES | PT_ITER_BATCH);
	WRITE_ONCE(pt_race_collapse.task, NULL);

	KUNIT_ASSERT_EQ(test, pt_race_collapse.calls, 1);
	/* What the walk saw is what is there now, if the collapse was done. */
	w2 = pt_test_walk(test, a, a + PMD_SIZE, PT_ITER_HOLES | PT_ITER_BATCH);
	if (w2->nr && w2->rec[0].level == PT_ITER_PTE)
		kunit_skip(test, "collapse_pte_mapped_thp() left the table");
	pt_exp_count(test, w2, 1);
	pt_exp(test, w2, 0, install ? PT_ITER_FOLIO : PT_ITER_NONE,
	       PT_ITER_PMD, a, a + PMD_SIZE);
	pt_exp_count(test, w, 1);
	if (install) {
		r = pt_exp(test, w, 0, PT_ITER_FOLIO, PT_ITER_PMD, a,
			   a + PMD_SIZE);
		KUNIT_EXPECT_TRUE(test, r->folio &&
				  folio_test_pmd_mappable(r->folio));
	} else {
		pt_exp(test, w, 0, PT_ITER_NONE, PT_ITER_PMD, a, a + PMD_SIZE);
	}
}

static void pt_iter_test_race_table_to_thp(struct kunit *test)
{
	pt_race_collapse_case(test, true);
}

static void pt_iter_test_race_table_to_none(struct kunit *test)
{
	pt_race_collapse_case(test, false);
}

/*
 * 20. A THP split while the walk returns a batch of it.  The split unmaps
 * the folio first, which takes the PTE table's lock: it cannot go on while
 * a loop body holds a batch of the folio, nor from one batch of the table
 * to the next, and the walk after it sees small folios.  A thread on
 * another CPU splits the folio while the first batch's body waits.
 */
struct pt_race_split {
	struct folio *folio;
	struct completion done;
	int ret;
};

static int pt_race_split_fn(void *data)
{
	struct pt_race_split *s = data;

	folio_lock(s->folio);
	s->ret = split_folio(s->folio);
	folio_unlock(s->folio);
	folio_put(s->folio);
	complete(&s->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void pt_iter_test_race_split(struct kunit *test)
{
	unsigned long a = pt_test_anon(test, PMD_SIZE, PMD_SIZE,
				       MADV_HUGEPAGE);
	bool large = true, mapped = true, done = false, contended = false;
	struct mm_struct *mm = current->mm;
	struct pt_race_split s = {};
	struct vm_area_struct *vma;
	struct task_struct *t;
	struct pt_iter it;
	struct pt_walk *w;
	int n = 0;

	if (!pt_test_can_contend(test))
		return;
	s.folio = pt_test_thp(test, a);
	pt_test_madvise(test, a, PMD_SIZE, MADV_NOHUGEPAGE);
	/* A PTE-mapped THP: two batches, around the page zapped. */
	pt_test_madvise(test, a + P(100), P(1), MADV_DONTNEED);
	/* Only its mappings hold it (no LRU batch), so that it can split. */
	lru_add_drain_all();
	init_completion(&s.done);

	t = pt_test_thread(test, pt_race_split_fn, &s, "pt_iter_split");
	if (!t)
		return;
	folio_get(s.folio);	/* the thread's */

	mmap_read_lock(mm);
	vma = vma_lookup(mm, a);
	for_each_pt_entry(&it, vma, a, a + PMD_SIZE, PT_ITER_BATCH) {
		/* Until the split waits for the table's lock. */
		if (n++ == 0) {
			wake_up_process(t);
			contended = pt_test_wait_contended(it.ptl);
		}
		/* Not a migration entry or the zero page, as after a split. */
		large &= it.type == PT_ITER_FOLIO && folio_test_large(it.folio);
		mapped &= pte_same(ptep_get(it.ptep), it.pte);
		done |= completion_done(&s.done);
	}
	mmap_read_unlock(mm);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&s.done,
							    10 * HZ));
	pt_test_thread_stop(t);

	/* A split that failed at once never waited for the lock. */
	if (s.ret)
		kunit_skip(test, "split_folio(): %d", s.ret);
	KUNIT_EXPECT_TRUE_MSG(test, contended, "the split never waited");
	/* Two batches, or more on arm64: see pt_exp_batch(). */
	KUNIT_EXPECT_GE(test, n, 2);
	KUNIT_EXPECT_TRUE_MSG(test, large, "split under the body of a batch");
	KUNIT_EXPECT_TRUE_MSG(test, mapped, "a batch unmapped under its body");
	KUNIT_EXPECT_FALSE_MSG(test, done, "split done under a batch");
	/*
	 * After the split, one entry per page: a small folio, or the zero
	 * page where the split found a page of zeroes (as clear_user() left
	 * them all).
	 */
	w = pt_test_walk(test, a, a + PMD_SIZE, PT_ITER_BATCH);
	pt_exp_count(test, w, HPAGE_PMD_NR - 1);
	for (n = 0; n < w->nr; n++)
		KUNIT_EXPECT_TRUE_MSG(test, w->rec[n].nr_pages == 1 &&
				      (w->rec[n].type == PT_ITER_PFN ||
				       !folio_test_large(w->rec[n].folio)),
				      "entry %d: %lu pages of type %d", n,
				      w->rec[n].nr_pages, w->rec[n].type);
}

#ifdef CONFIG_HUGETLB_PAGE
/*
 * 21. A hugetlb PMD table shared by two VMAs is unshared during a walk of
 * the first one: a zap of the second VMA unshares it there (its PUD entry
 * is cleared), under the table's lock, so not while the walk holds an
 * entry of the table.  After a pause (no lock held), the walk goes on in a
 * table that is no longer shared, and says so.
 */
struct pt_race_unshare {
	struct mm_struct *mm;
	unsigned long addr;
	struct completion done;
	int ret;
};

static int pt_race_unshare_fn(void *data)
{
	struct pt_race_unshare *u = data;

	u->ret = do_madvise(u->mm, u->addr, PUD_SIZE, MADV_DONTNEED);
	complete(&u->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void pt_iter_test_race_unshare(struct kunit *test)
{
	struct pt_race_unshare u = {};
	unsigned int attrs[2] = {};
	bool waited = false, done = true, contended = false;
	struct vm_area_struct *vma;
	struct task_struct *t;
	unsigned long b, b2;
	struct pt_iter it;
	int n = 0;

	if (!pt_test_can_contend(test))
		return;
	b = pt_test_hugetlb_sharing(test, 2);
	b2 = b + PUD_SIZE;
	pt_test_write(test, b, 1);
	pt_test_write(test, b + PMD_SIZE, 1);
	/* The second VMA's fault finds the first one's PMD table. */
	pt_test_read(test, b2);

	u.mm = current->mm;
	u.addr = b2;
	init_completion(&u.done);
	/* This task on one CPU, the zap on another. */
	t = pt_test_thread(test, pt_race_unshare_fn, &u, "pt_iter_unshare");
	if (!t)
		return;

	mmap_read_lock(u.mm);
	vma = vma_lookup(u.mm, b);
	for_each_pt_entry(&it, vma, b, b + 2 * PMD_SIZE, 0) {
		if (n < ARRAY_SIZE(attrs))
			attrs[n] = pt_iter_attrs(&it);
		if (n++)
			continue;
		/* The zap waits for the lock of this entry... */
		wake_up_process(t);
		contended = pt_test_wait_contended(it.ptl);
		done = completion_done(&u.done);
		/* ...and unshares the table once no lock is held. */
		pt_iter_pause(&it, it.end);
		waited = wait_for_completion_timeout(&u.done, 10 * HZ);
	}
	mmap_read_unlock(u.mm);
	pt_test_thread_stop(t);

	KUNIT_ASSERT_EQ(test, n, 2);
	KUNIT_EXPECT_TRUE_MSG(test, contended, "the zap never waited");
	KUNIT_EXPECT_FALSE_MSG(test, done, "the table unshared under an entry");
	KUNIT_ASSERT_TRUE(test, waited);
	KUNIT_EXPECT_EQ(test, u.ret, 0);
	KUNIT_EXPECT_TRUE(test, attrs[0] & PT_ATTR_SHARED_TABLE);
	KUNIT_EXPECT_FALSE_MSG(test, attrs[1] & PT_ATTR_SHARED_TABLE,
			       "still shared after the unshare");
	KUNIT_EXPECT_TRUE(test, attrs[1] & PT_ATTR_HUGETLB);
}
#endif /* CONFIG_HUGETLB_PAGE */

static struct kunit_case pt_iter_test_cases[] = {
	KUNIT_CASE(pt_iter_test_small_pages),
	KUNIT_CASE(pt_iter_test_pte_attrs),
	KUNIT_CASE(pt_iter_test_thp_pmd),
	KUNIT_CASE(pt_iter_test_thp_run),
	KUNIT_CASE(pt_iter_test_thp_contended),
	KUNIT_CASE(pt_iter_test_thp_pte_mapped),
	KUNIT_CASE(pt_iter_test_thp_vma_split),
	KUNIT_CASE(pt_iter_test_mthp),
	KUNIT_CASE(pt_iter_test_holes),
	KUNIT_CASE(pt_iter_test_swap_ptes),
	KUNIT_CASE(pt_iter_test_pmd_migration),
#ifdef CONFIG_HUGETLB_PAGE
	KUNIT_CASE_PARAM(pt_iter_test_hugetlb, pt_hugetlb_gen_params),
	KUNIT_CASE_PARAM(pt_iter_test_hugetlb_run, pt_hugetlb_gen_params),
	KUNIT_CASE(pt_iter_test_pud_boundary),
	KUNIT_CASE_SLOW(pt_iter_test_hugetlb_pud),
	KUNIT_CASE_SLOW(pt_iter_test_pud_helpers),
	KUNIT_CASE(pt_iter_test_vm_normal_page_pud),
	KUNIT_CASE(pt_iter_test_hugetlb_shared_table),
	KUNIT_CASE(pt_iter_test_hugetlb_locking),
#endif
	KUNIT_CASE(pt_iter_test_break),
	KUNIT_CASE(pt_iter_test_pause),
	KUNIT_CASE(pt_iter_test_pause_holes),
	KUNIT_CASE(pt_iter_test_vma_lock),
	KUNIT_CASE(pt_iter_test_no_mm),
	KUNIT_CASE_SLOW(pt_iter_test_race),
	KUNIT_CASE(pt_iter_test_race_table_to_thp),
	KUNIT_CASE(pt_iter_test_race_table_to_none),
	KUNIT_CASE(pt_iter_test_race_split),
#ifdef CONFIG_HUGETLB_PAGE
	KUNIT_CASE(pt_iter_test_race_unshare),
#endif
	KUNIT_CASE_PARAM(pt_iter_test_reference, pt_ref_gen_params),
	{}
};

static struct kunit_suite pt_iter_test_suite = {
	.name = "pt_iter",
	.test_cases = pt_iter_test_cases,
};

kunit_test_suite(pt_iter_test_suite);

MODULE_DESCRIPTION("KUnit tests for the pt_iter page table iterator");
MODULE_LICENSE("GPL");

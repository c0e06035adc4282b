// SPDX-License-Identifier: GPL-2.0
/*
 * pt_iter: walk the page table entries of one VMA as a plain loop.
 *
 * The walk keeps a cursor (it->_next) and, between steps, the lock of the
 * entry it returned last: the lock of a PMD or PUD leaf or of a hugetlb
 * entry, or a PTE table mapped and locked, whose next PTEs the inline step
 * in <linux/pt_iter.h> decodes.  Everything else is __pt_iter_find(): it
 * lets go of what the last entry held, descends from the PGD (or from the
 * PMD table it was in) to the entry at the cursor, and describes it.  A
 * hugetlb VMA is walked one huge page at a time with hugetlb_walk(), and
 * its entries are decoded as the leaves they are.  Holes are gathered
 * while the walk moves over them and reported when it reaches the first
 * entry that is not empty or not of their level.
 *
 * See Documentation/mm/pt_iter.rst.
 */

#include <linux/hugetlb.h>
#include <linux/huge_mm.h>
#include <linux/mm.h>
#include <linux/pt_iter.h>
#include <linux/sched.h>
#include <linux/swap.h>
#include <linux/swapops.h>

#include "internal.h"

/* it->_hole_start when no hole is pending: never a page-aligned address. */
#define PT_ITER_NO_HOLE		1UL

#define PT_ITER_IGNORE_MASK	(PT_ITER_IGNORE_WRITE | PT_ITER_IGNORE_YOUNG | \
				 PT_ITER_IGNORE_DIRTY |			\
				 PT_ITER_IGNORE_SOFT_DIRTY |		\
				 PT_ITER_IGNORE_UFFD_WP)
/* PT_ITER_IGNORE_X >> 2 is PT_ATTR_X. */
static_assert(PT_ITER_IGNORE_WRITE >> 2 == PT_ATTR_WRITE &&
	      PT_ITER_IGNORE_YOUNG >> 2 == PT_ATTR_YOUNG &&
	      PT_ITER_IGNORE_DIRTY >> 2 == PT_ATTR_DIRTY &&
	      PT_ITER_IGNORE_SOFT_DIRTY >> 2 == PT_ATTR_SOFT_DIRTY &&
	      PT_ITER_IGNORE_UFFD_WP >> 2 == PT_ATTR_UFFD_WP);

/*
 * The walk holds the lock of its current entry, and keeps a PTE table
 * mapped, from one call to the next, which sparse's per-function lock
 * contexts cannot follow: pt_iter_keep() marks where a lock is handed over
 * to the iterator, pt_iter_unkeep() where it is taken back to be released.
 */
#define pt_iter_keep(lock)	__release(lock)
#define pt_iter_unkeep(lock)	__acquire(lock)

static inline bool pt_iter_wants(const struct pt_iter *it,
				 enum pt_iter_type type)
{
	return it->_flags & PT_ITER_WANT(type);
}

static inline bool pt_iter_hole_pending(const struct pt_iter *it)
{
	return it->_hole_start != PT_ITER_NO_HOLE;
}

/* Drop the lock of a leaf (PMD, PUD or hugetlb entry) returned last. */
static void pt_iter_unlock_leaf(struct pt_iter *it)
{
	if (it->ptl && it->ptl != it->_table_ptl) {
		pt_iter_unkeep(it->ptl);
		spin_unlock(it->ptl);
	}
	it->ptl = NULL;
}

/* Unlock and unmap the PTE table, if one is mapped. */
static void pt_iter_unmap_table(struct pt_iter *it)
{
	if (!it->_table)
		return;
	if (it->ptl == it->_table_ptl)
		it->ptl = NULL;
	/* The table's lock, and the RCU read lock that keeps it mapped. */
	pt_iter_unkeep(it->_table_ptl);
	pt_iter_unkeep(RCU);
	pte_unmap_unlock(it->_table, it->_table_ptl);
	it->_table = NULL;
	it->_table_ptl = NULL;
	it->_table_end = 0;
	/* A hole that goes on past this table is reported unlocked. */
	it->_hole_locked = false;
}

/* Let go of every lock the walk holds. */
static void pt_iter_release(struct pt_iter *it)
{
	pt_iter_unlock_leaf(it);
	pt_iter_unmap_table(it);
	if (it->_vma_locked) {
		hugetlb_vma_unlock_read(it->_vma);
		it->_vma_locked = false;
	}
}

/* Describe an entry: the fields every entry sets. */
static void pt_iter_set(struct pt_iter *it, enum pt_iter_type type,
			enum pt_iter_level level, unsigned long addr,
			unsigned long end)
{
	it->type = type;
	it->level = level;
	it->addr = addr;
	it->end = end;
	it->_attrs = 0;
	it->folio = NULL;
	it->page = NULL;
	it->_pfn = 0;
	it->_next = end;
}

/*
 * A leaf of @size at @leaf_start, found at the cursor: describe it as an
 * entry of @level clipped to the walk.
 */
static void pt_iter_set_leaf(struct pt_iter *it, enum pt_iter_type type,
			     enum pt_iter_level level,
			     unsigned long leaf_start, unsigned long size)
{
	unsigned long end = min(leaf_start + size, it->_end);

	pt_iter_set(it, type, level, it->_next, end);
	if (it->addr != leaf_start || end != leaf_start + size)
		it->_attrs |= PT_ATTR_CLIPPED;
}

/* The type of swap-format entry @swp (none for a kind unknown here). */
static enum pt_iter_type pt_iter_swp_type(swp_entry_t swp)
{
	if (!non_swap_entry(swp))
		return PT_ITER_SWAP;
	if (is_pte_marker_entry(swp))
		return PT_ITER_MARKER;
	if (is_migration_entry(swp))
		return PT_ITER_MIGRATION;
	if (is_device_private_entry(swp) || is_device_exclusive_entry(swp))
		return PT_ITER_DEVICE;
	if (is_hwpoison_entry(swp))
		return PT_ITER_HWPOISON;
	WARN_ON_ONCE(1);
	return PT_ITER_NONE;
}

/*
 * Describe the swap-format leaf @swp of @size at @start, found at the
 * cursor, if the walk wants its type.  @soft_dirty and @uffd_wp are its
 * bits.
 */
static bool pt_iter_set_swp(struct pt_iter *it, enum pt_iter_level level,
			    unsigned long start, unsigned long size,
			    swp_entry_t swp, bool soft_dirty, bool uffd_wp)
{
	enum pt_iter_type type = pt_iter_swp_type(swp);

	if (type == PT_ITER_NONE || !pt_iter_wants(it, type))
		return false;
	pt_iter_set_leaf(it, type, level, start, size);
	it->_swp = swp;
	if (soft_dirty)
		it->_attrs |= PT_ATTR_SOFT_DIRTY;
	if (uffd_wp || (type == PT_ITER_MARKER && pte_marker_entry_uffd_wp(swp)))
		it->_attrs |= PT_ATTR_UFFD_WP;
	if (is_pfn_swap_entry(swp)) {
		it->_pfn = swp_offset_pfn(swp) + ((it->addr - start) >> PAGE_SHIFT);
		it->page = pfn_to_page(it->_pfn);
		if (type != PT_ITER_HWPOISON)
			it->folio = page_folio(it->page);
	}
	return true;
}

/* The level of a hugetlb page of @size (a folded level's is the lowest). */
static enum pt_iter_level pt_iter_size_level(unsigned long size)
{
	if (size == PMD_SIZE)
		return PT_ITER_PMD;
	if (size >= PUD_SIZE)
		return PT_ITER_PUD;
	return size > PMD_SIZE ? PT_ITER_PMD : PT_ITER_PTE;
}

/* Whether a hugetlb entry of @size is read as a PUD (the others as PTEs). */
static bool pt_iter_hugetlb_pud(unsigned long size)
{
	return size == PUD_SIZE && PUD_SIZE != PMD_SIZE;
}

/*
 * The end of what the PUD entry of @addr covers, clamped to @end.  A folded
 * level's *_addr_end() returns @end: the bound is that of the first level
 * above that is not folded.
 */
static unsigned long pt_iter_pud_end(unsigned long addr, unsigned long end)
{
	return pud_addr_end(addr, p4d_addr_end(addr, pgd_addr_end(addr, end)));
}

/*
 * Report the pending hole, which ends at @end.  A hole that began in the
 * PTE table that is still locked comes with that lock held, any other one
 * with no lock held.
 */
static bool pt_iter_report_hole(struct pt_iter *it, unsigned long end)
{
	unsigned long start = it->_hole_start;

	pt_iter_set(it, PT_ITER_NONE, it->_hole_level, start, end);
	/* Empty hugetlb entries, not missing tables: see pt_iter_hugetlb(). */
	if (it->_hsize && it->_hole_level == pt_iter_size_level(it->_hsize))
		it->_attrs |= PT_ATTR_HUGETLB;
	it->pte = __pte(0);
	it->ptep = it->_hole_locked ? it->_table + pte_index(start) : NULL;
	it->ptl = it->_hole_locked ? it->_table_ptl : NULL;
	it->_hole_start = PT_ITER_NO_HOLE;
	it->_hole_locked = false;
	return true;
}

/*
 * [it->_next, @next) holds nothing at @level: add it to the pending hole if
 * the walk wants holes, and move on.  A hole is of one level: a pending
 * hole of another level is reported instead (ending at the cursor), and
 * the next step comes back here.  Returns true with a hole reported.
 */
static bool pt_iter_hole(struct pt_iter *it, unsigned long next,
			 enum pt_iter_level level)
{
	if (it->_flags & PT_ITER_HOLES) {
		if (!pt_iter_hole_pending(it)) {
			it->_hole_start = it->_next;
			it->_hole_level = level;
			it->_hole_locked = level == PT_ITER_PTE && it->_table;
		} else if (it->_hole_level != level) {
			return pt_iter_report_hole(it, it->_next);
		}
	}
	it->_next = next;
	return false;
}

/* @pte with the bits of @ignore (PT_ITER_IGNORE_*) cleared. */
static __always_inline pte_t pt_iter_pte_norm(pte_t pte, unsigned int ignore)
{
	if (ignore & PT_ITER_IGNORE_WRITE)
		pte = pte_wrprotect(pte);
	if (ignore & PT_ITER_IGNORE_YOUNG)
		pte = pte_mkold(pte);
	if (ignore & PT_ITER_IGNORE_DIRTY)
		pte = pte_mkclean(pte);
	if (ignore & PT_ITER_IGNORE_SOFT_DIRTY)
		pte = pte_clear_soft_dirty(pte);
	if (ignore & PT_ITER_IGNORE_UFFD_WP)
		pte = pte_clear_uffd_wp(pte);
	return pte;
}

/*
 * Whether the normalised PTEs @a, of pfn @pa, and @b, of pfn @pb, are alike
 * but for their pfn: the one of the lower pfn is moved to the other's.
 */
static bool pt_iter_pte_alike(pte_t a, unsigned long pa, pte_t b,
			      unsigned long pb)
{
	if (pa <= pb)
		return pte_same(pte_advance_pfn(a, pb - pa), b);
	return pte_same(pte_advance_pfn(b, pa - pb), a);
}

/*
 * The PTEs from @it->ptep on, at most @max_nr, that go on the present entry
 * whose first PTE is @it->pte: those that map the next pages with the same
 * bits but those of @ignore or, for a @run of a walk that does not look at
 * pages, those alike in the same way that map any normal pages.  Returns
 * their number.
 */
static __always_inline unsigned long pt_iter_batch(struct pt_iter *it,
						   unsigned long max_nr,
						   unsigned int ignore,
						   bool run)
{
	pte_t norm = pt_iter_pte_norm(it->pte, ignore);
	unsigned long first = pte_pfn(norm);
	unsigned int hint, attrs = 0;
	pte_t *ptep = it->ptep;
	pte_t expected, raw, cur;
	unsigned long nr;

	/*
	 * Where the architecture marks the PTEs that map no normal page in
	 * their special bit, a run is of PTEs that are not special: for
	 * those, alike as they are, vm_normal_page() would return their pages
	 * unless a pfn were beyond highest_memmap_pfn, a corrupt PTE that it
	 * reports and that the run takes in silently (the walk does not read
	 * its page).  A special PTE that maps a normal page
	 * (->find_special_page()) is a run of its own.  Elsewhere
	 * vm_normal_page() is asked for each PTE.
	 */
	if (run && IS_ENABLED(CONFIG_ARCH_HAS_PTE_SPECIAL) && pte_special(norm))
		max_nr = 1;
	nr = pte_batch_hint(ptep, it->pte);
	expected = pte_advance_pfn(norm, nr);
	while (nr < max_nr) {
		raw = ptep_get(ptep + nr);
		cur = ignore ? pt_iter_pte_norm(raw, ignore) : raw;
		/* The next pfn, or for a run any pfn. */
		if (!pte_same(cur, expected) &&
		    (!run || !pt_iter_pte_alike(norm, first, cur, pte_pfn(raw))))
			break;
		if (run && !IS_ENABLED(CONFIG_ARCH_HAS_PTE_SPECIAL) &&
		    !vm_normal_page(it->_vma, it->addr + nr * PAGE_SIZE, raw))
			break;
		if (ignore)
			attrs |= __pt_iter_pte_attrs(raw, ignore >> 2);
		hint = pte_batch_hint(ptep + nr, raw);
		expected = pte_advance_pfn(cur, hint);
		nr += hint;
	}
	it->_attrs |= attrs;
	return min(nr, max_nr);
}

/**
 * __pt_iter_pte_batch - how many PTEs the present entry of @it covers
 * @it: the iterator, at the first PTE of the entry (its type, addr, pte,
 *	ptep, pfn, folio and page set), its table locked.
 *
 * For a walk with %PT_ITER_BATCH, counts the PTEs from @it->ptep on that
 * map the next pages of @it->folio with the same bits but those the walk
 * ignores or, in a walk with %PT_ITER_NO_PAGE, the PTEs alike in the same
 * way that map any normal pages.  The ignored bits are gathered in @it: a
 * batch has one if any of its PTEs has it.  Within the PTE table and the
 * walk; pte_batch_hint() skips a contpte block at once.  Marks a contpte
 * block's entry %PT_ATTR_CONT (and %PT_ATTR_CLIPPED if the block extends
 * beyond the walk).  Not for direct use.
 *
 * Return: the number of PTEs, at least 1.
 */
unsigned int __pt_iter_pte_batch(struct pt_iter *it)
{
	unsigned int ignore = it->_flags & PT_ITER_IGNORE_MASK;
	unsigned long max_nr = (it->_table_end - it->addr) >> PAGE_SHIFT;
	unsigned long size = pte_leaf_size(it->pte);
	unsigned int nr = 1;

	if (it->_flags & PT_ITER_BATCH && it->type == PT_ITER_FOLIO) {
		if (it->folio) {
			max_nr = min_t(unsigned long, max_nr,
				       folio_nr_pages(it->folio) -
				       folio_page_idx(it->folio, it->page));
			nr = pt_iter_batch(it, max_nr, ignore, false);
		} else if (ignore) {
			nr = pt_iter_batch(it, max_nr, ignore, true);
		} else {
			/* A run that ignores no bit (mincore()). */
			nr = pt_iter_batch(it, max_nr, 0, true);
		}
	}
	if (size > PAGE_SIZE) {
		it->_attrs |= PT_ATTR_CONT;
		if (ALIGN_DOWN(it->addr, size) < it->_start ||
		    ALIGN(it->addr + nr * PAGE_SIZE, size) > it->_end)
			it->_attrs |= PT_ATTR_CLIPPED;
	}
	return nr;
}

/*
 * Return the entry at the cursor in the locked PTE table, or the pending
 * hole that ends there.  Returns false, with the cursor at the end of the
 * table, if the rest of the table holds nothing to report.
 */
static bool pt_iter_scan_table(struct pt_iter *it)
{
	unsigned long addr = it->_next, end = it->_table_end;
	pte_t *ptep = it->_table + pte_index(addr);
	struct page *page;
	swp_entry_t swp;
	pte_t pte;

	for (; addr < end; addr += PAGE_SIZE, ptep++) {
		pte = ptep_get(ptep);
		/*
		 * An empty PTE starts or continues a hole of this table, or
		 * ends a pending hole of a higher level, below.
		 */
		if (pte_none(pte) &&
		    (!pt_iter_hole_pending(it) || it->_hole_locked)) {
			if ((it->_flags & PT_ITER_HOLES) &&
			    !pt_iter_hole_pending(it)) {
				it->_hole_start = addr;
				it->_hole_level = PT_ITER_PTE;
				it->_hole_locked = true;
			}
			/* And the empty PTEs after it. */
			while (addr + PAGE_SIZE < end &&
			       pte_none(ptep_get(ptep + 1))) {
				addr += PAGE_SIZE;
				ptep++;
			}
			continue;
		}
		it->_next = addr;
		if (pt_iter_hole_pending(it)) {
			/* One that began outside this table is unlocked. */
			if (!it->_hole_locked)
				pt_iter_unmap_table(it);
			return pt_iter_report_hole(it, addr);
		}
		if (pte_present(pte)) {
			page = vm_normal_page(it->_vma, addr, pte);
			if (page && pt_iter_wants(it, PT_ITER_FOLIO)) {
				__pt_iter_pte(it, it->_flags, addr, ptep, pte,
					      page);
				it->ptl = it->_table_ptl;
				return true;
			}
			if (page || !pt_iter_wants(it, PT_ITER_PFN))
				continue;
			pt_iter_set(it, PT_ITER_PFN, PT_ITER_PTE, addr,
				    addr + PAGE_SIZE);
			it->pte = pte;
			it->ptep = ptep;
			it->_attrs = __PT_ATTR_PTE;
			__pt_iter_pte_batch(it);
		} else {
			swp = pte_to_swp_entry(pte);
			/*
			 * The uffd-wp bit itself: pte_swp_uffd_wp_any() is
			 * false for every entry without
			 * CONFIG_PTE_MARKER_UFFD_WP, where anonymous memory
			 * has uffd-wp all the same.
			 */
			if (!pt_iter_set_swp(it, PT_ITER_PTE, addr, PAGE_SIZE,
					     swp, pte_swp_soft_dirty(pte),
					     pte_swp_uffd_wp(pte)))
				continue;
			it->pte = pte;
			it->ptep = ptep;
		}
		it->ptl = it->_table_ptl;
		return true;
	}
	it->_next = end;
	/* A hole of the table ends with it, and is reported with its lock. */
	if (pt_iter_hole_pending(it) && it->_hole_locked)
		return pt_iter_report_hole(it, end);
	return false;
}

#ifdef CONFIG_PGTABLE_HAS_HUGE_LEAVES
/* The attribute bits of the present PMD or PUD leaf of @it. */
static unsigned int pt_iter_leaf_bits(const struct pt_iter *it)
{
	if (it->level == PT_ITER_PMD)
		return (pmd_write(it->pmd) ? PT_ATTR_WRITE : 0) |
		       (pmd_young(it->pmd) ? PT_ATTR_YOUNG : 0) |
		       (pmd_dirty(it->pmd) ? PT_ATTR_DIRTY : 0) |
		       (pmd_soft_dirty(it->pmd) ? PT_ATTR_SOFT_DIRTY : 0) |
		       (pmd_uffd_wp(it->pmd) ? PT_ATTR_UFFD_WP : 0);
	return (pud_write(it->pud) ? PT_ATTR_WRITE : 0) |
	       (pud_young(it->pud) ? PT_ATTR_YOUNG : 0) |
	       (pud_dirty(it->pud) ? PT_ATTR_DIRTY : 0) |
	       (pud_soft_dirty(it->pud) ? PT_ATTR_SOFT_DIRTY : 0) |
	       (pud_uffd_wp(it->pud) ? PT_ATTR_UFFD_WP : 0);
}

/*
 * Describe the present leaf of @size at @start, of first page @page (NULL
 * if it maps none) and pfn @pfn, found at the cursor, if the walk wants it.
 */
static bool pt_iter_set_present(struct pt_iter *it, enum pt_iter_level level,
				unsigned long start, unsigned long size,
				struct page *page, unsigned long pfn)
{
	unsigned long idx = (it->_next - start) >> PAGE_SHIFT;

	if (!pt_iter_wants(it, page ? PT_ITER_FOLIO : PT_ITER_PFN))
		return false;
	pt_iter_set_leaf(it, page ? PT_ITER_FOLIO : PT_ITER_PFN, level, start,
			 size);
	/* Its bits are read from its value when asked: pt_iter_attrs(). */
	it->_attrs |= __PT_ATTR_LEAF;
	it->_pfn = pfn + idx;
	if (page && !(it->_flags & PT_ITER_NO_PAGE)) {
		it->page = nth_page(page, idx);
		it->folio = page_folio(it->page);
	}
	return true;
}

/*
 * Describe the PUD leaf (@present) or swap-format PUD @pud at @start,
 * found at the cursor: a PUD-mapped THP or pfn mapping, or a PUD-sized
 * hugetlb page.
 */
static bool pt_iter_set_pud(struct pt_iter *it, pud_t pud,
			    unsigned long start, bool present)
{
	unsigned long pfn;
	struct page *page;

	if (!present) {
		if (!pt_iter_set_swp(it, PT_ITER_PUD, start, PUD_SIZE,
				     pud_to_swp_entry(pud),
				     pud_swp_soft_dirty(pud),
				     pud_swp_uffd_wp(pud)))
			return false;
		it->pud = pud;
		return true;
	}
	pfn = pud_pfn(pud);
	/* A hugetlb page is a normal page, mapped from its first page. */
	if (it->_hsize)
		page = pfn_to_page(pfn);
	else
		page = vm_normal_page_pud(it->_vma, start, pud);
	if (!pt_iter_set_present(it, PT_ITER_PUD, start, PUD_SIZE, page, pfn))
		return false;
	it->pud = pud;
	return true;
}

/*
 * Describe the PMD leaf @pmd found at the cursor.  A non-present PMD is a
 * swap-format entry where the architecture has THP migration; elsewhere
 * it is a PROT_NONE leaf (32-bit ARM with LPAE clears the valid bit of a
 * PROT_NONE section), decoded as the present leaf it stands for.
 */
static bool pt_iter_set_pmd(struct pt_iter *it, pmd_t pmd)
{
	unsigned long start = it->_next & PMD_MASK;
	bool present = pmd_present(pmd);
	struct page *page;

	if (!present && thp_migration_supported()) {
		if (!pt_iter_set_swp(it, PT_ITER_PMD, start, PMD_SIZE,
				     pmd_to_swp_entry(pmd),
				     pmd_swp_soft_dirty(pmd),
				     pmd_swp_uffd_wp(pmd)))
			return false;
		it->pmd = pmd;
		return true;
	}
	page = vm_normal_page_pmd(it->_vma, start, pmd);
	/*
	 * is_huge_zero_pmd(), which vm_normal_page_pmd() asks, is false for
	 * a leaf that is not pmd_present(): identify the huge zero page by
	 * its folio there.
	 */
	if (unlikely(!present) && page && is_huge_zero_folio(page_folio(page)))
		page = NULL;
	if (!pt_iter_set_present(it, PT_ITER_PMD, start, PMD_SIZE, page,
				 pmd_pfn(pmd)))
		return false;
	it->pmd = pmd;
	return true;
}
#else
/* Without huge leaves (neither THP nor hugetlb) there are none. */
static unsigned int pt_iter_leaf_bits(const struct pt_iter *it)
{
	return 0;
}

static bool pt_iter_set_pud(struct pt_iter *it, pud_t pud,
			    unsigned long start, bool present)
{
	VM_WARN_ON_ONCE(1);
	return false;
}

static bool pt_iter_set_pmd(struct pt_iter *it, pmd_t pmd)
{
	VM_WARN_ON_ONCE(1);
	return false;
}
#endif

#ifdef CONFIG_HUGETLB_PAGE
/*
 * Describe the hugetlb entry @pte at @ptep, of the page at @start, found at
 * the cursor: a PUD-sized one as the PUD it is, the others from @pte, whose
 * bits huge_pte_*() read with the PTE helpers.  The hstate size, not any
 * arch bit, tells the level and whether the leaf is a cont-PTE/PMD block.
 */
static bool pt_iter_set_hugetlb(struct pt_iter *it, unsigned long start,
				pte_t *ptep, pte_t pte)
{
	unsigned long size = it->_hsize;
	enum pt_iter_level level = pt_iter_size_level(size);
	pud_t pud;

	if (pt_iter_hugetlb_pud(size)) {
		pud = pudp_get((pud_t *)ptep);
		/*
		 * Whether it is present is hugetlb's call: x86's pud_present()
		 * does not know PROT_NONE.  Only an architecture that stores
		 * no swap entries in PUDs (see is_swap_pud()) has non-present
		 * ones that need hugetlb's own decoding, below.
		 */
		if (pte_present(pte) || is_swap_pud(pud)) {
			if (!pt_iter_set_pud(it, pud, start, pte_present(pte)))
				return false;
			goto found;
		}
	}
	if (pte_present(pte)) {
		if (!pt_iter_set_present(it, level, start, size,
					 pfn_to_page(pte_pfn(pte)),
					 pte_pfn(pte)))
			return false;
	} else if (!pt_iter_set_swp(it, level, start, size,
				    pte_to_swp_entry(pte),
				    pte_swp_soft_dirty(pte),
				    pte_swp_uffd_wp_any(pte))) {
		return false;
	}
	it->pte = pte;
	if (size != PAGE_SIZE && size != PMD_SIZE && size != PUD_SIZE)
		it->_attrs |= PT_ATTR_CONT;
	if (size == PMD_SIZE && hugetlb_pmd_shared(ptep))
		it->_attrs |= PT_ATTR_SHARED_TABLE;
found:
	it->_attrs |= PT_ATTR_HUGETLB;
	it->ptep = ptep;
	return true;
}

/*
 * The hugetlb entry at the cursor, found with hugetlb_walk() and read with
 * huge_ptep_get() under the lock that hugetlb uses for it.
 */
static bool pt_iter_hugetlb(struct pt_iter *it)
{
	struct hstate *h = hstate_vma(it->_vma);
	unsigned long size = it->_hsize;
	unsigned long start = it->_next & ~(size - 1);
	unsigned long next = min(start + size, it->_end);
	enum pt_iter_level level = pt_iter_size_level(size);
	struct mm_struct *mm = it->_vma->vm_mm;
	spinlock_t *ptl;	/* the entry's lock */
	pte_t *ptep;
	pte_t pte;

	ptep = hugetlb_walk(it->_vma, start, size);
	/*
	 * No table to hold the entry: a hole of the level above, not one of
	 * empty hugetlb entries, which only exist in a table.
	 */
	if (!ptep)
		return pt_iter_hole(it, next, level + 1);
	ptl = huge_pte_lock(h, mm, ptep);
	pte = huge_ptep_get(mm, start, ptep);
	if (huge_pte_none(pte)) {
		spin_unlock(ptl);
		return pt_iter_hole(it, next, level);
	}
	if (pt_iter_hole_pending(it)) {
		spin_unlock(ptl);
		return pt_iter_report_hole(it, it->_next);
	}
	if (!pt_iter_set_hugetlb(it, start, ptep, pte)) {
		spin_unlock(ptl);
		it->_next = next;
		return false;
	}
	it->ptl = ptl;
	pt_iter_keep(ptl);
	return true;
}
#else
static bool pt_iter_hugetlb(struct pt_iter *it)
{
	BUILD_BUG();
	return false;
}

static bool pt_iter_set_hugetlb(struct pt_iter *it, unsigned long start,
				pte_t *ptep, pte_t pte)
{
	return false;
}
#endif

/*
 * A PUD that is a leaf or not present.  Returns 1 with the entry reported,
 * 0 if the walk moved on past it, -EAGAIN if it turned out to be a table.
 */
static int pt_iter_pud_leaf(struct pt_iter *it, pud_t *pudp)
{
	unsigned long next = pt_iter_pud_end(it->_next, it->_end);
	spinlock_t *ptl = pud_lock(it->_vma->vm_mm, pudp);
	pud_t pud = pudp_get(pudp);

	if (pud_none(pud)) {
		spin_unlock(ptl);
		return pt_iter_hole(it, next, PT_ITER_PUD);
	}
	if (pud_present(pud) && !pud_leaf(pud)) {
		spin_unlock(ptl);
		return -EAGAIN;
	}
	if (pt_iter_hole_pending(it)) {
		spin_unlock(ptl);
		return pt_iter_report_hole(it, it->_next);
	}
	/*
	 * Only hugetlb, which does not come here, has swap-format PUDs.  But
	 * x86's pud_present() is false for a PROT_NONE leaf (mprotect() of a
	 * device-dax PUD), which keeps its devmap or huge bit.
	 */
	if (WARN_ON_ONCE(!pud_present(pud) && !pud_devmap(pud) &&
			 !pud_trans_huge(pud)) ||
	    !pt_iter_set_pud(it, pud, it->_next & PUD_MASK, true)) {
		spin_unlock(ptl);
		it->_next = next;
		return 0;
	}
	it->pudp = pudp;
	it->ptl = ptl;
	pt_iter_keep(ptl);
	return 1;
}

/* A PMD that is a leaf or not present: as pt_iter_pud_leaf(). */
static int pt_iter_pmd_leaf(struct pt_iter *it, pmd_t *pmdp)
{
	unsigned long next = pmd_addr_end(it->_next, it->_pud_end);
	spinlock_t *ptl = pmd_lock(it->_vma->vm_mm, pmdp);
	pmd_t pmd = pmdp_get(pmdp);

	if (pmd_none(pmd)) {
		spin_unlock(ptl);
		return pt_iter_hole(it, next, PT_ITER_PMD);
	}
	if (pmd_present(pmd) && !pmd_leaf(pmd)) {
		spin_unlock(ptl);
		return -EAGAIN;
	}
	if (pt_iter_hole_pending(it)) {
		spin_unlock(ptl);
		return pt_iter_report_hole(it, it->_next);
	}
	if (!pt_iter_set_pmd(it, pmd)) {
		spin_unlock(ptl);
		it->_next = next;
		return 0;
	}
	it->pmdp = pmdp;
	it->ptl = ptl;
	pt_iter_keep(ptl);
	return 1;
}

/*
 * The entry at the cursor, whose PMD entry is @pmdp: a PMD leaf (or a hole)
 * is reported, a PTE table is mapped and locked for pt_iter_scan_table().
 * Returns true with an entry reported.
 */
static bool pt_iter_pmd(struct pt_iter *it, pmd_t *pmdp)
{
	unsigned long addr = it->_next;
	spinlock_t *ptl;	/* the PTE table's lock */
	pte_t *ptep;
	pmd_t pmd;
	int ret;

again:
	pmd = pmdp_get_lockless(pmdp);
	if (pmd_none(pmd))
		return pt_iter_hole(it, pmd_addr_end(addr, it->_pud_end),
				    PT_ITER_PMD);
	if (!pmd_present(pmd) || pmd_leaf(pmd)) {
		ret = pt_iter_pmd_leaf(it, pmdp);
		if (ret != -EAGAIN)
			return ret;
	}
	/* The KUnit tests change the PMD here, after the lockless read. */
	if (IS_ENABLED(CONFIG_PT_ITER_KUNIT_TEST))
		pt_iter_test_race_window(it->_vma->vm_mm, addr);
	ptep = pte_offset_map_lock(it->_vma->vm_mm, pmdp, addr, &ptl);
	if (!ptep) {
		/*
		 * The PMD changed under us: look again, unless it is a leaf
		 * that pmd_leaf() does not know, which pte_offset_map()
		 * refuses as a table: report it as a hole rather than loop.
		 */
		pmd = pmdp_get_lockless(pmdp);
		if (WARN_ON_ONCE(pmd_present(pmd) && !pmd_leaf(pmd) &&
				 (pmd_trans_huge(pmd) || pmd_devmap(pmd))))
			return pt_iter_hole(it, pmd_addr_end(addr, it->_pud_end),
					    PT_ITER_PMD);
		goto again;
	}
	pt_iter_keep(ptl);
	it->_table = ptep - pte_index(addr);
	it->_table_ptl = ptl;
	it->_table_end = pmd_addr_end(addr, it->_pud_end);
	return false;
}

/*
 * Descend to the entry at the cursor: from the PUD entry kept from the last
 * step if the cursor is still below it, else from the PGD.  Returns true
 * with an entry reported; false when the walk moved on (over a hole or an
 * unwanted leaf), or mapped a PTE table for pt_iter_scan_table().
 */
static bool pt_iter_descend(struct pt_iter *it)
{
	unsigned long addr = it->_next, end = it->_end;
	pgd_t *pgdp;
	p4d_t *p4dp;
	pud_t *pudp;
	pud_t pud;
	int ret;

	if (addr < it->_pud_end)
		return pt_iter_pmd(it, pmd_offset(it->_pudp, addr));

	pgdp = pgd_offset(it->_vma->vm_mm, addr);
	if (pgd_none_or_clear_bad(pgdp))
		return pt_iter_hole(it, pgd_addr_end(addr, end), PT_ITER_PGD);
	p4dp = p4d_offset(pgdp, addr);
	if (p4d_none_or_clear_bad(p4dp))
		return pt_iter_hole(it, p4d_addr_end(addr, end), PT_ITER_P4D);
	pudp = pud_offset(p4dp, addr);
	pud = pudp_get(pudp);
	if (pud_none(pud))
		return pt_iter_hole(it, pt_iter_pud_end(addr, end),
				    PT_ITER_PUD);
	if (!pud_present(pud) || pud_leaf(pud)) {
		ret = pt_iter_pud_leaf(it, pudp);
		if (ret != -EAGAIN)
			return ret;
	}
	/* A PMD table: it stays one while the mmap or VMA lock is held. */
	it->_pudp = pudp;
	it->_pud_end = pt_iter_pud_end(addr, end);
	return pt_iter_pmd(it, pmd_offset(pudp, addr));
}

/*
 * After a present PMD-level leaf (a THP or a hugetlb page of PMD size or a
 * cont-PMD block) whose lock is held: the next entry, if it is a present
 * leaf of the same PMD table that the walk wants, under the same lock.
 * The entries of a PMD table share their lock (pmd_lockptr() of the
 * table, which huge_pte_lockptr() is for hugetlb pages of these sizes),
 * which is kept as a PTE table's is, unless this CPU should reschedule or
 * another one waits for it.  The PMD table stays while the mmap or VMA
 * lock is held, and for hugetlb the hugetlb VMA lock.
 */
static bool pt_iter_next_leaf(struct pt_iter *it)
{
	unsigned long next = it->_next, size = it->_hsize ?: PMD_SIZE;
	struct mm_struct *mm = it->_vma->vm_mm;
	pmd_t *pmdp;
	pte_t *ptep;
	pte_t pte;
	pmd_t pmd;

	if (it->level != PT_ITER_PMD || it->type > PT_ITER_PFN ||
	    next != it->end || next >= it->_end || PMD_SIZE == PUD_SIZE ||
	    (next & (size - 1)) || !(next & ~PUD_MASK) ||
	    need_resched() || spin_is_contended(it->ptl))
		return false;
	if (!IS_ENABLED(CONFIG_HUGETLB_PAGE) || !it->_hsize) {
		pmdp = it->pmdp + 1;
		pmd = pmdp_get(pmdp);
		VM_WARN_ON_ONCE(it->ptl != pmd_lockptr(mm, pmdp));
		if (!pmd_present(pmd) || !pmd_leaf(pmd) ||
		    !pt_iter_set_pmd(it, pmd))
			return false;
		it->pmdp = pmdp;
		return true;
	}
	ptep = (pte_t *)((pmd_t *)it->ptep + (size >> PMD_SHIFT));
	VM_WARN_ON_ONCE(it->ptl != huge_pte_lockptr(hstate_vma(it->_vma), mm,
						    ptep));
	pte = huge_ptep_get(mm, next, ptep);
	if (!pte_present(pte))
		return false;
	return pt_iter_set_hugetlb(it, next, ptep, pte);
}

/**
 * __pt_iter_find - find and describe the entry at the cursor
 * @it: the iterator.
 *
 * The step of pt_iter_next() for all but the next present PTE of the
 * locked table: lets go of what the current entry held (but a PTE table
 * whose entries follow, or a PMD table's lock from leaf to leaf), finds
 * the entry at the cursor and describes it.  Not for direct use.
 *
 * Return: true with an entry, false at the end of the walk.
 */
bool __pt_iter_find(struct pt_iter *it)
{
	if (it->ptl && it->ptl != it->_table_ptl) {
		if (pt_iter_next_leaf(it))
			return true;
		/* What walk_page_range()'s callers did after a leaf. */
		pt_iter_unlock_leaf(it);
		if (!it->_hsize || need_resched())
			cond_resched();
	}
	/* What vma_pgtable_walk_begin() takes, for the whole walk. */
	if (it->_hsize && !it->_vma_locked && it->_next < it->_end) {
		hugetlb_vma_lock_read(it->_vma);
		it->_vma_locked = true;
	}
	while (it->_next < it->_end) {
		if (it->_table) {
			if (pt_iter_scan_table(it))
				return true;
			pt_iter_unmap_table(it);
			cond_resched();
		} else if (!IS_ENABLED(CONFIG_HUGETLB_PAGE) || !it->_hsize) {
			if (pt_iter_descend(it))
				return true;
		} else {
			if (pt_iter_hugetlb(it))
				return true;
			/* A sparse VMA of small huge pages is many steps. */
			cond_resched();
		}
	}
	if (pt_iter_hole_pending(it)) {
		if (!it->_hole_locked)
			pt_iter_unmap_table(it);
		return pt_iter_report_hole(it, it->_end);
	}
	pt_iter_release(it);
	return false;
}

/* The caller must hold the mmap lock or the VMA lock: this task, not any. */
static void pt_iter_assert_locked(struct vm_area_struct *vma)
{
#ifdef CONFIG_PER_VMA_LOCK
	lockdep_assert(lockdep_is_held(&vma->vm_mm->mmap_lock) ||
		       lockdep_is_held(&vma->vm_lock->lock));
	VM_WARN_ON_ONCE(!IS_ENABLED(CONFIG_LOCKDEP) &&
			!rwsem_is_locked(&vma->vm_mm->mmap_lock) &&
			!rwsem_is_locked(&vma->vm_lock->lock));
#else
	mmap_assert_locked(vma->vm_mm);
#endif
}

/**
 * __pt_iter_start - set a walk up
 * @it: the iterator.
 * @vma: the VMA to walk.
 * @start: first address.
 * @end: end of the walk.
 * @flags: the walk's flags.
 *
 * The out-of-line half of pt_iter_start(); not for direct use.
 */
void __pt_iter_start(struct pt_iter *it, struct vm_area_struct *vma,
		     unsigned long start, unsigned long end, unsigned int flags)
{
	VM_WARN_ON_ONCE(!PAGE_ALIGNED(start) || !PAGE_ALIGNED(end));
	VM_WARN_ON_ONCE(start < vma->vm_start || end > vma->vm_end);
	start = max(start, vma->vm_start);
	end = min(end, vma->vm_end);
	if (unlikely(!vma->vm_mm))
		end = start;
	else
		pt_iter_assert_locked(vma);

	*it = (struct pt_iter) {
		._flags = flags & PT_ITER_WANT_ALL ? flags :
			  flags | PT_ITER_WANT_ALL,
		._vma = vma,
		._start = start,
		._end = end,
		._next = start,
		._hole_start = PT_ITER_NO_HOLE,
	};
#ifdef CONFIG_HUGETLB_PAGE
	if (is_vm_hugetlb_page(vma))
		it->_hsize = huge_page_size(hstate_vma(vma));
#endif
}

/**
 * pt_iter_end - end a walk
 * @it: the iterator.
 *
 * Drops every lock the walk holds; pt_iter_next() then returns false.
 * for_each_pt_entry() calls it however its loop is left; a caller that
 * drives pt_iter_next() by hand calls it when it stops early.  Calling it
 * again is harmless.
 */
void pt_iter_end(struct pt_iter *it)
{
	pt_iter_release(it);
	it->_hole_start = PT_ITER_NO_HOLE;
	it->_next = it->_end;
}

/**
 * pt_iter_pause - drop every lock, to resume the walk later
 * @it: the iterator, positioned on an entry.
 * @resume: where the walk goes on: @it->end after the current entry,
 *	@it->addr to look at it again (e.g. after splitting a THP).  Page
 *	aligned, within the walk.
 *
 * Drops the page-table lock and, for hugetlb, the hugetlb VMA lock: the
 * caller may then sleep or take other locks.  The current entry's @ptep
 * must not be used afterwards (a PTE table can go once its lock is
 * dropped), nor its folio and page without a reference of the caller's
 * own.  @pudp, and @pmdp outside hugetlb, stay valid: those tables go only
 * when their range is unmapped, and the mmap or VMA lock stays held (a
 * hugetlb PMD table can be unshared once the hugetlb VMA lock is dropped).
 */
void pt_iter_pause(struct pt_iter *it, unsigned long resume)
{
	pt_iter_release(it);
	VM_WARN_ON_ONCE(!PAGE_ALIGNED(resume) || resume < it->_start ||
			resume > it->_end);
	it->_next = clamp(resume, it->_start, it->_end);
	it->_pud_end = 0;
}

/**
 * pt_iter_table_last - whether the walk leaves a PTE table after this entry
 * @it: the iterator of a walk with %PT_ITER_HOLES that wants every type,
 *	positioned on an entry.
 *
 * Such a walk reports every PTE of a table in its range, present or not,
 * with the table's lock held from the first to the last; the step after
 * the last drops the lock.  A loop body that changes PTEs flushes them from
 * the TLB at the last entry of their table, under the lock.  (A walk that
 * skips holes or types may leave a table after another entry.)
 *
 * Return: true if @it is a PTE entry or a hole of empty PTEs whose table
 * the next step leaves; false for any other entry.
 */
bool pt_iter_table_last(const struct pt_iter *it)
{
	unsigned int want = it->_flags & PT_ITER_WANT_ALL;

	VM_WARN_ON_ONCE(!(it->_flags & PT_ITER_HOLES) ||
			(want && want != PT_ITER_WANT_ALL));
	return it->level == PT_ITER_PTE && it->ptl &&
	       it->end == it->_table_end;
}

/**
 * __pt_iter_leaf_attrs - the present bits of a leaf
 * @it: the iterator, positioned on a present leaf (of hugetlb too).
 * @mask: %PT_ATTR_* bits.
 *
 * Reads the write, young, dirty, soft-dirty and uffd-wp bits from the
 * leaf's value: a hugetlb entry not read as a PUD (pt_iter_hugetlb_pud())
 * with the PTE helpers (huge_pte_*() are those on huge_ptep_get()'s
 * value), a PMD or PUD leaf with the PMD or PUD helpers.  Not for direct
 * use: see pt_iter_has().
 *
 * Return: those bits of @mask that the leaf has.
 */
unsigned int __pt_iter_leaf_attrs(const struct pt_iter *it, unsigned int mask)
{
	if (it->_hsize && !pt_iter_hugetlb_pud(it->_hsize))
		return __pt_iter_pte_attrs(it->pte, mask);
	return pt_iter_leaf_bits(it) & mask;
}

/**
 * pt_iter_attrs - the attributes of the current entry
 * @it: the iterator, positioned on an entry.
 *
 * The write, young, dirty, soft-dirty and uffd-wp bits of a present entry
 * (of a batch: a bit the walk ignores if any of its PTEs has it); the
 * soft-dirty and uffd-wp bits of a swap-format entry (uffd-wp also of a
 * uffd-wp marker); and %PT_ATTR_CONT, %PT_ATTR_HUGETLB,
 * %PT_ATTR_SHARED_TABLE, %PT_ATTR_CLIPPED.
 *
 * Return: a mask of %PT_ATTR_* bits.
 */
unsigned int pt_iter_attrs(const struct pt_iter *it)
{
	unsigned int attrs = it->_attrs & ~(__PT_ATTR_PTE | __PT_ATTR_LEAF);
	unsigned int bits = PT_ATTR_WRITE | PT_ATTR_YOUNG | PT_ATTR_DIRTY |
			    PT_ATTR_SOFT_DIRTY | PT_ATTR_UFFD_WP;

	if (it->_attrs & __PT_ATTR_PTE)
		return attrs | __pt_iter_pte_attrs(it->pte, bits);
	if (it->_attrs & __PT_ATTR_LEAF)
		return attrs | __pt_iter_leaf_attrs(it, bits);
	return attrs;
}

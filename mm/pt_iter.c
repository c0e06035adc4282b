// SPDX-License-Identifier: GPL-2.0
/*
 * pt_iter: walk the page table entries of one VMA as a plain loop.
 *
 * The iterator descends pgd -> p4d -> pud -> pmd -> pte for ordinary VMAs
 * and steps by the hstate size for hugetlb VMAs; in both cases it hands the
 * caller one decoded entry at a time with the page-table lock of that entry
 * held.  A PTE table stays mapped and locked while the caller consumes its
 * entries; the inline pt_iter_next() only leaves this file's fast path when
 * the walk moves to another table.
 *
 * See Documentation/mm/pt_iter.rst.
 */

#include <linux/hugetlb.h>
#include <linux/huge_mm.h>
#include <linux/mm.h>
#include <linux/pt_iter.h>
#include <linux/sched.h>
#include <linux/swapops.h>
#include <linux/userfaultfd_k.h>

#include "internal.h"

/* _hole_start when no hole is pending: never a page-aligned address. */
#define PT_ITER_NO_HOLE		1UL

static void pt_iter_assert_locked(struct vm_area_struct *vma)
{
#ifdef CONFIG_PER_VMA_LOCK
	if (!rwsem_is_locked(&vma->vm_mm->mmap_lock)) {
		vma_assert_locked(vma);
		return;
	}
#endif
	mmap_assert_locked(vma->vm_mm);
}

/*
 * The iterator holds the lock of the current entry, and keeps a PTE table
 * mapped, from one call to the next, which sparse's per-function lock
 * contexts cannot follow.  pt_iter_keep() marks where a lock the walk took
 * is handed over to the iterator, pt_iter_unkeep() where the iterator hands
 * one back to be released.
 */
#define pt_iter_keep(lock)	__release(lock)
#define pt_iter_unkeep(lock)	__acquire(lock)

/* Drop the lock of a PMD, PUD or hugetlb leaf returned by the last step. */
static inline void pt_iter_drop_leaf(struct pt_iter *it)
{
	if (it->ptl && it->ptl != it->_pte_ptl) {
		pt_iter_unkeep(it->ptl);
		spin_unlock(it->ptl);
	}
	it->ptl = NULL;
}

/* Unlock and unmap the current PTE table. */
static inline void pt_iter_drop_table(struct pt_iter *it)
{
	if (!it->_pte_table)
		return;
	if (it->ptl == it->_pte_ptl)
		it->ptl = NULL;
	/* The table lock, and the RCU read lock that keeps it mapped. */
	pt_iter_unkeep(it->_pte_ptl);
	pt_iter_unkeep(RCU);
	pte_unmap_unlock(it->_pte_table, it->_pte_ptl);
	it->_pte_table = NULL;
	it->_pte_ptl = NULL;
}

/* Reset the per-entry fields and describe an entry of the given range. */
static inline void pt_iter_set(struct pt_iter *it, enum pt_iter_type type,
			       enum pt_iter_level level, unsigned long addr,
			       unsigned long end)
{
	it->type = type;
	it->level = level;
	it->addr = addr;
	it->end = end;
	it->attrs = 0;
	it->folio = NULL;
	it->page = NULL;
	it->pfn = 0;
	it->swp.val = 0;
	it->_next = end;
}

/*
 * Describe the swap-format entry @swp.  @idx is the index of it->addr's page
 * within the leaf, for entries that carry a pfn.
 */
static void pt_iter_set_swp(struct pt_iter *it, swp_entry_t swp,
			    unsigned long idx)
{
	it->swp = swp;
	if (!non_swap_entry(swp)) {
		it->type = PT_ITER_SWAP;
		return;
	}
	if (is_pte_marker_entry(swp)) {
		it->type = PT_ITER_MARKER;
		if (pte_marker_entry_uffd_wp(swp))
			it->attrs |= PT_ATTR_UFFD_WP;
		return;
	}
	if (is_migration_entry(swp))
		it->type = PT_ITER_MIGRATION;
	else if (is_device_private_entry(swp) ||
		 is_device_exclusive_entry(swp))
		it->type = PT_ITER_DEVICE;
	else if (is_hwpoison_entry(swp))
		it->type = PT_ITER_HWPOISON;
	else
		/* Nothing else exists; a new kind must be taught here. */
		WARN_ON_ONCE(1);

	if (is_pfn_swap_entry(swp)) {
		it->pfn = swp_offset_pfn(swp) + idx;
		it->page = pfn_to_page(it->pfn);
		if (it->type != PT_ITER_HWPOISON)
			it->folio = page_folio(it->page);
	}
}

/*
 * A leaf covering [leaf_start, leaf_start + size) was found at it->_next:
 * clip it to the walk and say so.
 */
static inline void pt_iter_set_leaf(struct pt_iter *it,
				    enum pt_iter_level level,
				    unsigned long leaf_start, unsigned long size)
{
	unsigned long end = min(leaf_start + size, it->_range_end);

	pt_iter_set(it, PT_ITER_NONE, level, it->_next, end);
	if (it->addr != leaf_start || end != leaf_start + size)
		it->attrs |= PT_ATTR_CLIPPED;
}

/*
 * [it->_next, next) holds nothing.  Remember it as (part of) the pending
 * hole if the caller wants holes, and move on.
 */
static inline void pt_iter_hole(struct pt_iter *it, unsigned long next,
				enum pt_iter_level level)
{
	if ((it->_flags & PT_ITER_HOLES) &&
	    it->_hole_start == PT_ITER_NO_HOLE) {
		it->_hole_start = it->_next;
		it->_hole_level = level;
	}
	it->_next = next;
}

/*
 * Report the pending hole, which ends at @end.  The caller has dropped the
 * locks it took to find the end: a hole that is not within one locked PTE
 * table is returned with no lock held.
 */
static bool pt_iter_report_hole(struct pt_iter *it, unsigned long end)
{
	unsigned long start = it->_hole_start;

	it->_hole_start = PT_ITER_NO_HOLE;
	pt_iter_set(it, PT_ITER_NONE, it->_hole_level, start, end);
	it->ptep = NULL;
	it->pte = __pte(0);
	it->ptl = NULL;
	return true;
}

static unsigned int pt_iter_pte_attrs(pte_t pte)
{
	unsigned int attrs = 0;

	if (pte_present(pte)) {
		if (pte_write(pte))
			attrs |= PT_ATTR_WRITE;
		if (pte_young(pte))
			attrs |= PT_ATTR_YOUNG;
		if (pte_dirty(pte))
			attrs |= PT_ATTR_DIRTY;
		if (pte_soft_dirty(pte))
			attrs |= PT_ATTR_SOFT_DIRTY;
		if (pte_uffd_wp(pte))
			attrs |= PT_ATTR_UFFD_WP;
	} else {
		if (pte_swp_soft_dirty(pte))
			attrs |= PT_ATTR_SOFT_DIRTY;
		if (pte_swp_uffd_wp_any(pte))
			attrs |= PT_ATTR_UFFD_WP;
	}
	return attrs;
}

/*
 * How many PTEs from @ptep on map consecutive pages of @folio, starting at
 * @page, with the same bits as @pte; at most @max_nr.  Unlike
 * folio_pte_batch(), no bit is ignored: every PTE of a batch has the same
 * write, young, dirty, soft-dirty and uffd-wp bits.  pte_batch_hint() lets an
 * architecture skip the PTEs it knows to be alike (a contpte block).
 */
static unsigned int pt_iter_pte_batch(struct folio *folio, struct page *page,
				      pte_t *ptep, pte_t pte,
				      unsigned int max_nr)
{
	unsigned int nr, left;
	pte_t expected;

	left = folio_nr_pages(folio) - folio_page_idx(folio, page);
	max_nr = min(max_nr, left);

	nr = pte_batch_hint(ptep, pte);
	expected = pte_advance_pfn(pte, nr);
	while (nr < max_nr) {
		pte = ptep_get(ptep + nr);
		if (!pte_same(pte, expected))
			break;
		left = pte_batch_hint(ptep + nr, pte);
		expected = pte_advance_pfn(expected, left);
		nr += left;
	}
	return min(nr, max_nr);
}

/*
 * Whether the present PTE @pte is part of a block of PTEs the architecture
 * maps as one larger leaf (a contpte block on arm64, a NAPOT range on
 * riscv), as pte_leaf_size() tells on every architecture.  A batch never
 * mixes such PTEs with others: the bit that marks them is in pte_same().
 */
static inline bool pt_iter_pte_cont(pte_t pte)
{
	return pte_leaf_size(pte) > PAGE_SIZE;
}

/*
 * Report [it->_next, end) of the locked PTE table, which holds nothing, as a
 * hole with the table's lock held.
 */
static bool pt_iter_table_hole(struct pt_iter *it, unsigned long end)
{
	pt_iter_set(it, PT_ITER_NONE, PT_ITER_PTE, it->_next, end);
	it->ptep = it->_pte_table + pte_index(it->addr);
	it->pte = __pte(0);
	it->ptl = it->_pte_ptl;
	return true;
}

/*
 * Return the entry at it->_next from the mapped and locked PTE table, or the
 * pending hole that ends there.  Returns false, with it->_next at the end of
 * the table, when the rest of the table held nothing to report.
 */
static bool pt_iter_scan_table(struct pt_iter *it)
{
	struct vm_area_struct *vma = it->_vma;
	unsigned long addr = it->_next;
	unsigned long end = it->_table_end;
	pte_t *ptep = it->_pte_table + pte_index(addr);
	unsigned int nr = 1;
	struct page *page;
	pte_t pte;

	for (;;) {
		pte = ptep_get(ptep);
		if (!pte_none(pte))
			break;
		addr += PAGE_SIZE;
		ptep++;
		if (addr >= end) {
			/* The walk ends in this table, and so does the hole. */
			if ((it->_flags & PT_ITER_HOLES) &&
			    it->_hole_start == PT_ITER_NO_HOLE &&
			    end == it->_range_end)
				return pt_iter_table_hole(it, end);
			pt_iter_hole(it, end, PT_ITER_PTE);
			return false;
		}
	}

	if (it->_flags & PT_ITER_HOLES) {
		if (it->_hole_start != PT_ITER_NO_HOLE) {
			/* The pending hole began outside this table. */
			pt_iter_drop_table(it);
			return pt_iter_report_hole(it, addr);
		}
		if (addr != it->_next)
			/* A hole inside this table: keep the table locked. */
			return pt_iter_table_hole(it, addr);
	}

	if (pte_present(pte)) {
		page = vm_normal_page(vma, addr, pte);
		if (page) {
			struct folio *folio = page_folio(page);

			if ((it->_flags & PT_ITER_BATCH) &&
			    folio_test_large(folio))
				nr = pt_iter_pte_batch(folio, page, ptep, pte,
						       (end - addr) >> PAGE_SHIFT);
			pt_iter_set(it, PT_ITER_FOLIO, PT_ITER_PTE, addr,
				    addr + nr * PAGE_SIZE);
			it->folio = folio;
			it->page = page;
		} else {
			pt_iter_set(it, PT_ITER_PFN, PT_ITER_PTE, addr,
				    addr + PAGE_SIZE);
		}
		it->pfn = pte_pfn(pte);
		if (pt_iter_pte_cont(pte))
			it->attrs |= PT_ATTR_CONT;
	} else {
		pt_iter_set(it, PT_ITER_NONE, PT_ITER_PTE, addr,
			    addr + PAGE_SIZE);
		pt_iter_set_swp(it, pte_to_swp_entry(pte), 0);
	}
	it->attrs |= pt_iter_pte_attrs(pte);
	it->pte = pte;
	it->ptep = ptep;
	it->ptl = it->_pte_ptl;
	return true;
}

/*
 * Describe the PUD leaf (@present) or swap-format PUD @pud, found at
 * it->_next, of the PUD-sized range that begins at @start.  The same code
 * decodes a PUD-mapped THP or pfn mapping and a PUD-sized hugetlb page.
 */
static void pt_iter_set_pud(struct pt_iter *it, pud_t pud, unsigned long start,
			    bool present)
{
	unsigned long idx = (it->_next - start) >> PAGE_SHIFT;

	pt_iter_set_leaf(it, PT_ITER_PUD, start, PUD_SIZE);
	if (present) {
		struct page *page = vm_normal_page_pud(it->_vma, start, pud);

		it->pfn = pud_pfn(pud) + idx;
		if (page) {
			it->type = PT_ITER_FOLIO;
			it->page = nth_page(page, idx);
			it->folio = page_folio(it->page);
		} else {
			it->type = PT_ITER_PFN;
		}
		if (pud_write(pud))
			it->attrs |= PT_ATTR_WRITE;
		if (pud_young(pud))
			it->attrs |= PT_ATTR_YOUNG;
		if (pud_dirty(pud))
			it->attrs |= PT_ATTR_DIRTY;
		if (pud_soft_dirty(pud))
			it->attrs |= PT_ATTR_SOFT_DIRTY;
		if (pud_uffd_wp(pud))
			it->attrs |= PT_ATTR_UFFD_WP;
	} else {
		pt_iter_set_swp(it, pud_to_swp_entry(pud), idx);
		if (pud_swp_soft_dirty(pud))
			it->attrs |= PT_ATTR_SOFT_DIRTY;
		if (pud_swp_uffd_wp(pud))
			it->attrs |= PT_ATTR_UFFD_WP;
	}
	it->pud = pud;
}

#ifdef CONFIG_HUGETLB_PAGE
static enum pt_iter_level pt_iter_size_level(unsigned long size)
{
	if (size >= PUD_SIZE)
		return PT_ITER_PUD;
	if (size >= PMD_SIZE)
		return PT_ITER_PMD;
	return PT_ITER_PTE;
}

/*
 * One logical hugetlb entry, read with huge_ptep_get() under the lock that
 * hugetlb itself uses for it.  The hstate size, not any arch bit, tells the
 * level and whether the leaf is a cont-PTE/cont-PMD block.
 */
static bool pt_iter_hugetlb(struct pt_iter *it)
{
	struct vm_area_struct *vma = it->_vma;
	struct hstate *h = hstate_vma(vma);
	unsigned long size = huge_page_size(h);
	unsigned long start = it->_next & huge_page_mask(h);
	enum pt_iter_level level = pt_iter_size_level(size);
	unsigned long idx;
	spinlock_t *ptl;	/* the lock of the entry */
	pte_t *ptep;
	pte_t pte;

	ptep = hugetlb_walk(vma, start, size);
	if (!ptep) {
		pt_iter_hole(it, min(start + size, it->_range_end), level);
		return false;
	}
	ptl = huge_pte_lock(h, vma->vm_mm, ptep);
	pte = huge_ptep_get(vma->vm_mm, start, ptep);
	if (huge_pte_none(pte)) {
		spin_unlock(ptl);
		pt_iter_hole(it, min(start + size, it->_range_end), level);
		return false;
	}
	if (it->_hole_start != PT_ITER_NO_HOLE) {
		spin_unlock(ptl);
		return pt_iter_report_hole(it, it->_next);
	}

	if (size == PUD_SIZE) {
		pud_t pud = pudp_get((pud_t *)ptep);

		/*
		 * A PUD-sized page is decoded as the PUD it is, like a
		 * PUD-mapped THP.  Whether it is present is hugetlb's call:
		 * x86's pud_present() does not know PROT_NONE.  Only an
		 * architecture that stores no swap entries in PUDs (see
		 * is_swap_pud()) has non-present ones that need hugetlb's own
		 * decoding, below.
		 */
		if (pte_present(pte) || is_swap_pud(pud)) {
			pt_iter_set_pud(it, pud, start, pte_present(pte));
			it->pudp = (pud_t *)ptep;
			goto found;
		}
	}

	idx = (it->_next - start) >> PAGE_SHIFT;
	pt_iter_set_leaf(it, level, start, size);
	if (pte_present(pte)) {
		it->type = PT_ITER_FOLIO;
		it->pfn = pte_pfn(pte) + idx;
		it->page = nth_page(pte_page(pte), idx);
		it->folio = page_folio(it->page);
		if (huge_pte_write(pte))
			it->attrs |= PT_ATTR_WRITE;
		if (pte_young(pte))
			it->attrs |= PT_ATTR_YOUNG;
		if (huge_pte_dirty(pte))
			it->attrs |= PT_ATTR_DIRTY;
		if (pte_soft_dirty(pte))
			it->attrs |= PT_ATTR_SOFT_DIRTY;
		if (huge_pte_uffd_wp(pte))
			it->attrs |= PT_ATTR_UFFD_WP;
	} else {
		pt_iter_set_swp(it, pte_to_swp_entry(pte), idx);
		if (pte_swp_soft_dirty(pte))
			it->attrs |= PT_ATTR_SOFT_DIRTY;
		if (pte_swp_uffd_wp_any(pte))
			it->attrs |= PT_ATTR_UFFD_WP;
	}
	if (size != PAGE_SIZE && size != PMD_SIZE && size != PUD_SIZE)
		it->attrs |= PT_ATTR_CONT;
	if (size == PMD_SIZE && hugetlb_pmd_shared(ptep))
		it->attrs |= PT_ATTR_SHARED_TABLE;
	it->pte = pte;
	it->ptep = ptep;
found:
	it->attrs |= PT_ATTR_HUGETLB;
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
#endif

/*
 * A PUD that is a leaf or not present.  Returns 1 with the entry reported,
 * 0 if the walk moved on past it, -EAGAIN if it turned out to be a table.
 */
static int pt_iter_pud_leaf(struct pt_iter *it, pud_t *pudp)
{
	unsigned long start = it->_next & PUD_MASK;
	spinlock_t *ptl;	/* the lock of the entry */
	pud_t pud;

	ptl = pud_lock(it->_vma->vm_mm, pudp);
	pud = pudp_get(pudp);
	if (pud_none(pud)) {
		spin_unlock(ptl);
		pt_iter_hole(it, pud_addr_end(it->_next, it->_range_end),
			     PT_ITER_PUD);
		return 0;
	}
	if (pud_present(pud) && !pud_leaf(pud)) {
		spin_unlock(ptl);
		return -EAGAIN;
	}
	if (it->_hole_start != PT_ITER_NO_HOLE) {
		spin_unlock(ptl);
		return pt_iter_report_hole(it, it->_next);
	}
	/*
	 * Only hugetlb, which does not come here, has swap-format PUDs.  But
	 * x86's pud_present() is false for a PROT_NONE leaf (mprotect() of a
	 * device-dax PUD), which keeps its devmap or huge bit.
	 */
	if (!pud_present(pud) && !pud_devmap(pud) && !pud_trans_huge(pud)) {
		VM_WARN_ON_ONCE(1);
		spin_unlock(ptl);
		it->_next = pud_addr_end(it->_next, it->_range_end);
		return 0;
	}

	pt_iter_set_pud(it, pud, start, true);
	it->pudp = pudp;
	it->ptl = ptl;
	pt_iter_keep(ptl);
	return 1;
}

/*
 * A PMD that is a leaf or not present: same return values as
 * pt_iter_pud_leaf().
 */
static int pt_iter_pmd_leaf(struct pt_iter *it, pmd_t *pmdp)
{
	struct vm_area_struct *vma = it->_vma;
	unsigned long start = it->_next & PMD_MASK;
	unsigned long idx;
	spinlock_t *ptl;	/* the lock of the entry */
	pmd_t pmd;

	ptl = pmd_lock(vma->vm_mm, pmdp);
	pmd = pmdp_get(pmdp);
	if (pmd_none(pmd)) {
		spin_unlock(ptl);
		pt_iter_hole(it, pmd_addr_end(it->_next, it->_range_end),
			     PT_ITER_PMD);
		return 0;
	}
	if (pmd_present(pmd) && !pmd_leaf(pmd)) {
		spin_unlock(ptl);
		return -EAGAIN;
	}
	if (it->_hole_start != PT_ITER_NO_HOLE) {
		spin_unlock(ptl);
		return pt_iter_report_hole(it, it->_next);
	}

	idx = (it->_next - start) >> PAGE_SHIFT;
	pt_iter_set_leaf(it, PT_ITER_PMD, start, PMD_SIZE);
	if (pmd_present(pmd)) {
		struct page *page = vm_normal_page_pmd(vma, start, pmd);

		it->pfn = pmd_pfn(pmd) + idx;
		if (page) {
			it->type = PT_ITER_FOLIO;
			it->page = nth_page(page, idx);
			it->folio = page_folio(page);
		} else {
			it->type = PT_ITER_PFN;
		}
		if (pmd_write(pmd))
			it->attrs |= PT_ATTR_WRITE;
		if (pmd_young(pmd))
			it->attrs |= PT_ATTR_YOUNG;
		if (pmd_dirty(pmd))
			it->attrs |= PT_ATTR_DIRTY;
		if (pmd_soft_dirty(pmd))
			it->attrs |= PT_ATTR_SOFT_DIRTY;
		if (pmd_uffd_wp(pmd))
			it->attrs |= PT_ATTR_UFFD_WP;
	} else {
#ifdef CONFIG_ARCH_ENABLE_THP_MIGRATION
		pt_iter_set_swp(it, pmd_to_swp_entry(pmd), idx);
		if (pmd_swp_soft_dirty(pmd))
			it->attrs |= PT_ATTR_SOFT_DIRTY;
		if (pmd_swp_uffd_wp(pmd))
			it->attrs |= PT_ATTR_UFFD_WP;
#else
		/* No swap-format PMDs without THP migration. */
		VM_WARN_ON_ONCE(1);
		spin_unlock(ptl);
		it->_next = it->end;
		return 0;
#endif
	}
	it->pmd = pmd;
	it->pmdp = pmdp;
	it->ptl = ptl;
	pt_iter_keep(ptl);
	return 1;
}

/*
 * Descend from the top level to the entry at it->_next.  Returns true with
 * an entry reported; false when the walk moved on (over a hole), or when a
 * PTE table was mapped and locked for pt_iter_scan_table().
 */
static bool pt_iter_descend(struct pt_iter *it)
{
	struct mm_struct *mm = it->_vma->vm_mm;
	unsigned long addr = it->_next;
	unsigned long end = it->_range_end;
	spinlock_t *ptl;	/* the lock of the entry */
	pgd_t *pgdp;
	p4d_t *p4dp;
	pud_t *pudp;
	pmd_t *pmdp;
	pte_t *ptep;
	pud_t pud;
	pmd_t pmd;
	int ret;

	pgdp = pgd_offset(mm, addr);
	if (pgd_none_or_clear_bad(pgdp)) {
		pt_iter_hole(it, pgd_addr_end(addr, end), PT_ITER_PUD);
		return false;
	}
	p4dp = p4d_offset(pgdp, addr);
	if (p4d_none_or_clear_bad(p4dp)) {
		pt_iter_hole(it, p4d_addr_end(addr, end), PT_ITER_PUD);
		return false;
	}
	pudp = pud_offset(p4dp, addr);
	pud = pudp_get(pudp);
	if (pud_none(pud)) {
		pt_iter_hole(it, pud_addr_end(addr, end), PT_ITER_PUD);
		return false;
	}
	if (!pud_present(pud) || pud_leaf(pud)) {
		ret = pt_iter_pud_leaf(it, pudp);
		if (ret != -EAGAIN)
			return ret;
	}

	pmdp = pmd_offset(pudp, addr);
again:
	pmd = pmdp_get_lockless(pmdp);
	if (pmd_none(pmd)) {
		pt_iter_hole(it, pmd_addr_end(addr, end), PT_ITER_PMD);
		return false;
	}
	if (!pmd_present(pmd) || pmd_leaf(pmd)) {
		ret = pt_iter_pmd_leaf(it, pmdp);
		if (ret != -EAGAIN)
			return ret;
	}

	ptep = pte_offset_map_lock(mm, pmdp, addr, &ptl);
	if (!ptep)
		/* The table went away or was never one: look again. */
		goto again;
	pt_iter_keep(ptl);
	it->_pte_table = ptep - pte_index(addr);
	it->_pte_ptl = ptl;
	it->_table_end = pmd_addr_end(addr, end);
	return false;
}

/**
 * pt_iter_start - prepare a walk of a VMA range
 * @it: the iterator, on the caller's stack.
 * @vma: the VMA to walk.
 * @start: first address to walk, page aligned, within @vma.
 * @end: end of the walk, page aligned, at most @vma->vm_end.
 * @flags: %PT_ITER_HOLES to be told about holes, %PT_ITER_BATCH to get
 *	consecutive PTEs of one folio as one entry.
 *
 * Takes no lock: the first pt_iter_next() does.  Usually called through
 * for_each_pt_entry().
 *
 * Context: the mmap lock (read or write) or the VMA lock of @vma held for
 * the whole walk; may sleep (between tables, the walk calls cond_resched()).
 * The caller holds no spinlock.
 * Return: @it.
 */
struct pt_iter *pt_iter_start(struct pt_iter *it, struct vm_area_struct *vma,
			      unsigned long start, unsigned long end,
			      unsigned int flags)
{
	pt_iter_assert_locked(vma);
	VM_WARN_ON_ONCE(!PAGE_ALIGNED(start) || !PAGE_ALIGNED(end));
	VM_WARN_ON_ONCE(start < vma->vm_start || end > vma->vm_end);

	*it = (struct pt_iter) {
		._vma = vma,
		._next = max(start, vma->vm_start),
		._range_end = min(end, vma->vm_end),
		._flags = flags,
		._hole_start = PT_ITER_NO_HOLE,
	};
	return it;
}
EXPORT_SYMBOL_GPL(pt_iter_start);

/**
 * pt_iter_end - end a walk early
 * @it: the iterator.
 *
 * Drops every lock the iterator holds.  Must be called when the body of a
 * for_each_pt_entry() loop leaves the loop other than by the loop ending;
 * calling it after the loop has ended is harmless.  The iterator then
 * returns no more entries.
 */
void pt_iter_end(struct pt_iter *it)
{
	pt_iter_drop_leaf(it);
	pt_iter_drop_table(it);
	if (it->_walk_locked) {
		vma_pgtable_walk_end(it->_vma);
		it->_walk_locked = false;
	}
	it->_hole_start = PT_ITER_NO_HOLE;
	it->_next = it->_range_end;
}
EXPORT_SYMBOL_GPL(pt_iter_end);

/**
 * pt_iter_pause - drop every lock, to resume the walk later
 * @it: the iterator, positioned on an entry.
 * @resume: where the next pt_iter_next() continues: it->end to go on
 *	after the current entry, it->addr to look at it again (e.g. after
 *	splitting a THP).  Page aligned, within the VMA and before the end of
 *	the walk.
 *
 * Drops the page-table lock and, for hugetlb, the hugetlb VMA lock.  The
 * caller may then sleep or take other locks; the current entry's pointers
 * (folio, page, ptep, ...) must not be used afterwards without a reference
 * of the caller's own.  The mmap or VMA lock must stay held.
 */
void pt_iter_pause(struct pt_iter *it, unsigned long resume)
{
	pt_iter_drop_leaf(it);
	pt_iter_drop_table(it);
	if (it->_walk_locked) {
		vma_pgtable_walk_end(it->_vma);
		it->_walk_locked = false;
	}
	VM_WARN_ON_ONCE(!PAGE_ALIGNED(resume) || resume < it->_vma->vm_start ||
			resume > it->_range_end);
	it->_next = clamp(resume, it->_vma->vm_start, it->_range_end);
}
EXPORT_SYMBOL_GPL(pt_iter_pause);

/**
 * __pt_iter_next - the slow path of pt_iter_next()
 * @it: the iterator.
 *
 * Drops the lock of the previous entry, moves to the next table or leaf
 * and returns its first entry.  Called by pt_iter_next(); not for direct use.
 *
 * Return: true with an entry, false at the end of the walk.
 */
bool __pt_iter_next(struct pt_iter *it)
{
	bool hugetlb = is_vm_hugetlb_page(it->_vma);

	if (it->ptl && it->ptl != it->_pte_ptl) {
		pt_iter_drop_leaf(it);
		cond_resched();
	}

	if (!it->_walk_locked && it->_next < it->_range_end) {
		vma_pgtable_walk_begin(it->_vma);
		it->_walk_locked = true;
	}

	while (it->_next < it->_range_end) {
		if (it->_pte_table) {
			if (it->_next < it->_table_end &&
			    pt_iter_scan_table(it))
				return true;
			pt_iter_drop_table(it);
			cond_resched();
			continue;
		}
		if (!hugetlb) {
			if (pt_iter_descend(it))
				return true;
			continue;
		}
		if (pt_iter_hugetlb(it))
			return true;
		/*
		 * A hugetlb hole is stepped over one huge page at a time (a
		 * large sparse VMA of 64K pages is many steps), with only
		 * the sleeping hugetlb VMA lock held.
		 */
		cond_resched();
	}

	if (it->_hole_start != PT_ITER_NO_HOLE) {
		/* The hole began before this table: report it unlocked. */
		pt_iter_drop_table(it);
		return pt_iter_report_hole(it, it->_range_end);
	}

	pt_iter_end(it);
	return false;
}
EXPORT_SYMBOL_GPL(__pt_iter_next);

/**
 * __pt_iter_next_pte - the fast path of pt_iter_next()
 * @it: the iterator, with a PTE table mapped and locked that covers
 *	it->_next.
 *
 * Return: as __pt_iter_next().
 */
bool __pt_iter_next_pte(struct pt_iter *it)
{
	if (pt_iter_scan_table(it))
		return true;
	return __pt_iter_next(it);
}
EXPORT_SYMBOL_GPL(__pt_iter_next_pte);

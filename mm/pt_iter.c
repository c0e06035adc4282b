// SPDX-License-Identifier: GPL-2.0
/*
 * pt_iter: walk the page table entries of one VMA as a plain loop.
 *
 * The iterator descends pgd -> p4d -> pud -> pmd -> pte for ordinary VMAs
 * and steps by the hstate size for hugetlb VMAs; in both cases it hands the
 * caller one decoded entry at a time with the page-table lock of that entry
 * held.  A PTE table stays mapped and locked while the caller consumes its
 * entries: the inline pt_iter_next() decodes the present PTEs of that table
 * and only calls __pt_iter_next() for everything else, or, at the end of
 * the table, __pt_iter_next_or_table(), which hands it the next table to
 * read rather than that table's first entry.  The PUD entry above
 * the current PMD table is kept between steps (page tables above the PTE
 * level are not freed while the mmap or VMA lock is held), so moving to the
 * next PTE table or PMD leaf does not descend from the PGD again.
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

/* The caller must hold the mmap lock or the VMA lock: this task, not any. */
static void pt_iter_assert_locked(struct vm_area_struct *vma)
{
#ifdef CONFIG_PER_VMA_LOCK
	lockdep_assert(lockdep_is_held(&vma->vm_mm->mmap_lock) ||
		       lockdep_is_held(&vma->vm_lock->lock));
	/* Without lockdep, at least someone must hold one of them. */
	VM_WARN_ON_ONCE(!IS_ENABLED(CONFIG_LOCKDEP) &&
			!rwsem_is_locked(&vma->vm_mm->mmap_lock) &&
			!rwsem_is_locked(&vma->vm_lock->lock));
#else
	mmap_assert_locked(vma->vm_mm);
#endif
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

/* Whether the caller wants entries of @type. */
static inline bool pt_iter_wants(const struct pt_iter_state *s,
				 enum pt_iter_type type)
{
	return s->cur._flags & PT_ITER_WANT(type);
}

/* Drop the lock of a PMD, PUD or hugetlb leaf returned by the last step. */
static inline void pt_iter_drop_leaf(struct pt_iter_state *s)
{
	if (s->cur.ptl && s->cur.ptl != s->pte_ptl) {
		pt_iter_unkeep(s->cur.ptl);
		spin_unlock(s->cur.ptl);
	}
	s->cur.ptl = NULL;
}

/* Unlock and unmap the current PTE table. */
static inline void pt_iter_drop_table(struct pt_iter_state *s)
{
	if (!s->pte_table)
		return;
	if (s->cur.ptl == s->pte_ptl)
		s->cur.ptl = NULL;
	/* The table lock, and the RCU read lock that keeps it mapped. */
	pt_iter_unkeep(s->pte_ptl);
	pt_iter_unkeep(RCU);
	pte_unmap_unlock(s->pte_table, s->pte_ptl);
	s->pte_table = NULL;
	s->pte_ptl = NULL;
	s->cur._fast_end = 0;
	/* A hole that goes on past this table is reported unlocked. */
	s->hole_in_table = false;
}

/* Describe an entry of the given range: the fields every entry sets. */
static inline void pt_iter_set(struct pt_iter_state *s, enum pt_iter_type type,
			       enum pt_iter_level level, unsigned long addr,
			       unsigned long end)
{
	s->cur.type = type;
	s->cur.level = level;
	s->cur.addr = addr;
	s->cur.end = end;
	s->cur._attrs = 0;
	s->cur.folio = NULL;
	s->cur.page = NULL;
	s->cur._pfn = 0;
	s->cur._next = end;
	s->leaf_end = 0;
}

/*
 * The type of the swap-format entry @swp, or PT_ITER_NONE for a kind this
 * file does not know (there is none today; a new kind must be taught here).
 */
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
 * Describe the swap-format entry @swp of type @type.  @idx is the index of
 * s->cur.addr's page within the leaf, for entries that carry a pfn.
 */
static void pt_iter_set_swp(struct pt_iter_state *s, enum pt_iter_type type,
			    swp_entry_t swp, unsigned long idx)
{
	s->cur.type = type;
	s->cur._swp = swp;
	if (type == PT_ITER_MARKER && pte_marker_entry_uffd_wp(swp))
		s->cur._attrs |= PT_ATTR_UFFD_WP;
	if (is_pfn_swap_entry(swp)) {
		s->cur._pfn = swp_offset_pfn(swp) + idx;
		s->cur.page = pfn_to_page(s->cur._pfn);
		if (type != PT_ITER_HWPOISON)
			s->cur.folio = page_folio(s->cur.page);
	}
}

/*
 * Whether the caller wants the swap-format entry @swp; its type in @type.
 * Unknown kinds are never reported.
 */
static inline bool pt_iter_wants_swp(const struct pt_iter_state *s,
				     swp_entry_t swp, enum pt_iter_type *type)
{
	*type = pt_iter_swp_type(swp);
	return *type != PT_ITER_NONE && pt_iter_wants(s, *type);
}

/*
 * A leaf covering [leaf_start, leaf_start + size) was found at s->cur._next:
 * clip it to the walk and say so.
 */
static inline void pt_iter_set_leaf(struct pt_iter_state *s,
				    enum pt_iter_level level,
				    unsigned long leaf_start, unsigned long size)
{
	unsigned long end = min(leaf_start + size, s->range_end);

	pt_iter_set(s, PT_ITER_NONE, level, s->cur._next, end);
	if (s->cur.addr != leaf_start || end != leaf_start + size)
		s->cur._attrs |= PT_ATTR_CLIPPED;
}

/*
 * The level of a hugetlb page of @size.  Where the PMD level is folded
 * (PMD_SIZE == PUD_SIZE), a page of that size is a PMD leaf, as a THP of
 * that size is.
 */
static enum pt_iter_level pt_iter_size_level(unsigned long size)
{
	if (size == PMD_SIZE)
		return PT_ITER_PMD;
	if (size >= PUD_SIZE)
		return PT_ITER_PUD;
	if (size > PMD_SIZE)
		return PT_ITER_PMD;
	return PT_ITER_PTE;
}

/*
 * The end of what the PUD entry of @addr covers, clamped to @end.  A folded
 * level's *_addr_end() returns @end: the bound is that of the first level
 * above that is not folded, as walk_page_range() gets it by passing each
 * level's end down.  The PMD level is bounded by this in turn.
 */
static inline unsigned long pt_iter_pud_end(unsigned long addr,
					    unsigned long end)
{
	return pud_addr_end(addr, p4d_addr_end(addr, pgd_addr_end(addr, end)));
}

static bool pt_iter_report_hole(struct pt_iter_state *s, unsigned long end);

/*
 * [s->cur._next, next) holds nothing at @level.  Remember it as (part of)
 * the pending hole if the caller wants holes, and move on.  A hole is made
 * of empty entries of one level: if the pending one is of another level,
 * it is reported instead (ending here), and true returned; the next step
 * comes back here.  No lock may be held but a mapped PTE table's, which
 * only a hole of that table may be pending in.
 */
static inline bool pt_iter_hole(struct pt_iter_state *s, unsigned long next,
				enum pt_iter_level level)
{
	if (s->cur._flags & PT_ITER_HOLES) {
		if (s->hole_start == PT_ITER_NO_HOLE) {
			s->hole_start = s->cur._next;
			s->hole_level = level;
			s->hole_in_table = level == PT_ITER_PTE && s->pte_table;
		} else if (s->hole_level != level) {
			return pt_iter_report_hole(s, s->cur._next);
		}
	}
	s->cur._next = next;
	return false;
}

/*
 * Report the pending hole, which ends at @end.  A hole that began in the
 * PTE table that is still locked comes back with that lock held; any other
 * hole with no lock held (the caller has dropped what it took to find the
 * hole's end).
 */
static bool pt_iter_report_hole(struct pt_iter_state *s, unsigned long end)
{
	unsigned long start = s->hole_start;
	bool in_table = s->hole_in_table;

	s->hole_start = PT_ITER_NO_HOLE;
	s->hole_in_table = false;
	pt_iter_set(s, PT_ITER_NONE, s->hole_level, start, end);
	/* Empty hugetlb entries, not a missing table: see pt_iter_hugetlb(). */
	if (s->hsize && s->hole_level == pt_iter_size_level(s->hsize))
		s->cur._attrs |= PT_ATTR_HUGETLB;
	s->cur.pte = __pte(0);
	if (in_table) {
		s->cur.ptep = s->pte_table + pte_index(start);
		s->cur.ptl = s->pte_ptl;
	} else {
		s->cur.ptep = NULL;
		s->cur.ptl = NULL;
	}
	return true;
}

/* Whether a hole is pending. */
static inline bool pt_iter_hole_pending(const struct pt_iter_state *s)
{
	return s->hole_start != PT_ITER_NO_HOLE;
}

/* @pte with the bits the caller lets a batch differ in cleared. */
static inline pte_t pt_iter_pte_norm(pte_t pte, unsigned int flags)
{
	if (flags & PT_ITER_IGNORE_WRITE)
		pte = pte_wrprotect(pte);
	if (flags & PT_ITER_IGNORE_YOUNG)
		pte = pte_mkold(pte);
	if (flags & PT_ITER_IGNORE_DIRTY)
		pte = pte_mkclean(pte);
	if (flags & PT_ITER_IGNORE_SOFT_DIRTY)
		pte = pte_clear_soft_dirty(pte);
	if (flags & PT_ITER_IGNORE_UFFD_WP)
		pte = pte_clear_uffd_wp(pte);
	return pte;
}

#define PT_ITER_IGNORE_MASK	(PT_ITER_IGNORE_WRITE | PT_ITER_IGNORE_YOUNG | \
				 PT_ITER_IGNORE_DIRTY |			\
				 PT_ITER_IGNORE_SOFT_DIRTY |		\
				 PT_ITER_IGNORE_UFFD_WP)

/**
 * __pt_iter_pte_batch - how many PTEs the batch at @ptep holds
 * @s: the walk, with the PTE table of @ptep mapped and locked.
 * @folio: the large folio @page belongs to.
 * @page: the page the present PTE @pte at @ptep maps.
 * @ptep: the first PTE of the batch.
 * @pte: its value.
 * @addr: its address.
 *
 * Counts the PTEs from @ptep on that map consecutive pages of @folio with
 * the same bits as @pte (but those the walk's %PT_ITER_IGNORE_* flags
 * name), within the folio, the PTE table and the walk.  Unlike
 * folio_pte_batch(), by default no bit is ignored.  pte_batch_hint() lets an
 * architecture skip the PTEs it knows to be alike (a contpte block).  Called
 * by pt_iter_next(); not for direct use.
 *
 * Return: the number of PTEs, at least 1.
 */
unsigned int __pt_iter_pte_batch(struct pt_iter_state *s, struct folio *folio,
				 struct page *page, pte_t *ptep, pte_t pte,
				 unsigned long addr)
{
	unsigned int flags = s->cur._flags & PT_ITER_IGNORE_MASK;
	unsigned int nr, hint, max_nr;
	pte_t expected, cur;

	max_nr = min_t(unsigned long,
		       folio_nr_pages(folio) - folio_page_idx(folio, page),
		       (s->table_end - addr) >> PAGE_SHIFT);

	nr = pte_batch_hint(ptep, pte);
	expected = pte_advance_pfn(pte, nr);
	if (!flags) {
		/* Every bit must match: no need to normalise the PTEs. */
		while (nr < max_nr) {
			cur = ptep_get(ptep + nr);
			if (!pte_same(cur, expected))
				break;
			hint = pte_batch_hint(ptep + nr, cur);
			expected = pte_advance_pfn(expected, hint);
			nr += hint;
		}
		return min(nr, max_nr);
	}
	expected = pt_iter_pte_norm(expected, flags);
	while (nr < max_nr) {
		cur = ptep_get(ptep + nr);
		if (!pte_same(pt_iter_pte_norm(cur, flags), expected))
			break;
		hint = pte_batch_hint(ptep + nr, cur);
		expected = pte_advance_pfn(expected, hint);
		nr += hint;
	}
	return min(nr, max_nr);
}

/**
 * __pt_iter_pte_run - how many PTEs the run at @ptep holds (%PT_ITER_NO_PAGE)
 * @s: the walk, with the PTE table of @ptep mapped and locked.
 * @ptep: the first PTE of the run.
 * @pte: its value, present and mapping a normal page.
 * @addr: its address.
 *
 * Counts the PTEs from @ptep on that map normal pages with the same bits as
 * @pte but their pfn (and those the walk's %PT_ITER_IGNORE_* flags name),
 * within the PTE table and the walk.  @pte is not special: where the
 * architecture has pte_special(), a special PTE (the zero page, a pfn
 * mapping) differs from it in that bit, elsewhere vm_normal_page() is
 * asked; a contpte block's PTEs differ from others in their contiguous
 * bit.  The pages are not looked at: this is the batch of a walk that does
 * not want them.  Two PTEs are compared by moving the one of the lower pfn
 * to the other's pfn with pte_advance_pfn(): where that cannot express the
 * distance (32-bit with 64-bit PTEs, pages 4G apart), the run ends there.
 * Called by pt_iter_next(); not for direct use.
 *
 * Return: the number of PTEs, at least 1.
 */
unsigned int __pt_iter_pte_run(struct pt_iter_state *s, pte_t *ptep, pte_t pte,
			       unsigned long addr)
{
	unsigned int flags = s->cur._flags & PT_ITER_IGNORE_MASK;
	unsigned long first = pte_pfn(pte), pfn;
	unsigned int nr, hint, max_nr;
	pte_t norm, expected, cur, raw;

	max_nr = (s->table_end - addr) >> PAGE_SHIFT;
	norm = pt_iter_pte_norm(pte, flags);
	nr = pte_batch_hint(ptep, pte);
	/* Guess the next page; @pfn is that of @expected. */
	pfn = first + nr;
	expected = pte_advance_pfn(norm, nr);
	while (nr < max_nr) {
		raw = ptep_get(ptep + nr);
		cur = pt_iter_pte_norm(raw, flags);
		if (!pte_same(cur, expected)) {
			/*
			 * Another pfn: move the lower of @cur and the first
			 * PTE to the pfn of the other, by a positive amount.
			 */
			pfn = pte_pfn(cur);
			if (pfn > first ?
			    !pte_same(cur, pte_advance_pfn(norm, pfn - first)) :
			    !pte_same(pte_advance_pfn(cur, first - pfn), norm))
				break;
			expected = cur;
		}
		if (IS_ENABLED(CONFIG_ARCH_HAS_PTE_SPECIAL) ?
		    pfn > highest_memmap_pfn :
		    !vm_normal_page(s->vma, addr + nr * PAGE_SIZE, raw))
			break;
		hint = pte_batch_hint(ptep + nr, cur);
		nr += hint;
		pfn += hint;
		expected = pte_advance_pfn(expected, hint);
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
 * vm_normal_page(), with the answer for a PTE that is not special (see
 * pt_iter_next()) found without a call.  @pfn is pte_pfn(@pte), which some
 * architectures decode with a read of a system register.
 */
static __always_inline struct page *
pt_iter_normal_page(struct vm_area_struct *vma, unsigned long addr, pte_t pte,
		    unsigned long pfn)
{
	if (IS_ENABLED(CONFIG_ARCH_HAS_PTE_SPECIAL) && !pte_special(pte) &&
	    likely(pfn <= highest_memmap_pfn))
		return pfn_to_page(pfn);
	return vm_normal_page(vma, addr, pte);
}

/*
 * __pt_iter_pte_batch(), without its call where the first PTE's batch hint
 * (a contpte block) already reaches the end of the folio or of the table.
 */
static inline unsigned int pt_iter_pte_batch(struct pt_iter_state *s,
					     struct folio *folio,
					     struct page *page, pte_t *ptep,
					     pte_t pte, unsigned long addr)
{
	unsigned long max_nr = min_t(unsigned long,
		folio_nr_pages(folio) - folio_page_idx(folio, page),
		(s->table_end - addr) >> PAGE_SHIFT);

	if (pte_batch_hint(ptep, pte) >= max_nr)
		return max_nr;
	return __pt_iter_pte_batch(s, folio, page, ptep, pte, addr);
}

/*
 * Describe the present PTE @pte at @ptep (s->cur._next) of the locked table.
 * Returns false if the caller does not want it.
 */
static bool pt_iter_present_pte(struct pt_iter_state *s, pte_t *ptep, pte_t pte)
{
	unsigned long addr = s->cur._next;
	unsigned long pfn = pte_pfn(pte);
	struct page *page = pt_iter_normal_page(s->vma, addr, pte, pfn);
	unsigned long size;
	unsigned int nr = 1;

	if (page && (s->cur._flags & PT_ITER_NO_PAGE)) {
		if (!pt_iter_wants(s, PT_ITER_FOLIO))
			return false;
		/*
		 * Not from a special PTE, which has a normal page only
		 * through ->find_special_page(), asked for each PTE.
		 */
		if ((s->cur._flags & PT_ITER_BATCH) &&
		    !(IS_ENABLED(CONFIG_ARCH_HAS_PTE_SPECIAL) &&
		      pte_special(pte)))
			nr = __pt_iter_pte_run(s, ptep, pte, addr);
		pt_iter_set(s, PT_ITER_FOLIO, PT_ITER_PTE, addr,
			    addr + nr * PAGE_SIZE);
	} else if (page) {
		struct folio *folio = page_folio(page);

		if (!pt_iter_wants(s, PT_ITER_FOLIO))
			return false;
		if ((s->cur._flags & PT_ITER_BATCH) && folio_test_large(folio))
			nr = pt_iter_pte_batch(s, folio, page, ptep, pte, addr);
		pt_iter_set(s, PT_ITER_FOLIO, PT_ITER_PTE, addr,
			    addr + nr * PAGE_SIZE);
		s->cur.folio = folio;
		s->cur.page = page;
	} else {
		if (!pt_iter_wants(s, PT_ITER_PFN))
			return false;
		pt_iter_set(s, PT_ITER_PFN, PT_ITER_PTE, addr,
			    addr + PAGE_SIZE);
	}
	s->cur._attrs = __PT_ATTR_RAW_PTE;
	s->cur._pfn = pfn;
	if (pt_iter_pte_cont(pte)) {
		/* The block extends beyond the walk: the entry is clipped. */
		size = pte_leaf_size(pte);
		s->cur._attrs |= PT_ATTR_CONT;
		if (ALIGN_DOWN(s->cur.addr, size) < s->range_start ||
		    ALIGN(s->cur.end, size) > s->range_end)
			s->cur._attrs |= PT_ATTR_CLIPPED;
	}
	return true;
}

/*
 * The entry pt_iter_scan_table() or pt_iter_given_pte() has described, of
 * the PTE @pte at @ptep: its lock is the table's, and the inline step goes
 * on after it if the walk wants folios (else it would have to skip them).
 */
static inline void pt_iter_pte_entry(struct pt_iter_state *s, pte_t *ptep,
				     pte_t pte)
{
	s->cur.pte = pte;
	s->cur.ptep = ptep;
	s->cur.ptl = s->pte_ptl;
	s->cur._fast_end = pt_iter_wants(s, PT_ITER_FOLIO) ? s->table_end : 0;
}

/*
 * Return the entry at s->cur._next from the mapped and locked PTE table, or the
 * pending hole that ends there.  Returns false, with s->cur._next at the end of
 * the table, when the rest of the table held nothing to report.
 */
static bool pt_iter_scan_table(struct pt_iter_state *s)
{
	unsigned long addr = s->cur._next;
	unsigned long end = s->table_end;
	pte_t *ptep = s->pte_table + pte_index(addr);
	enum pt_iter_type type;
	unsigned long nr;
	swp_entry_t swp;
	pte_t pte;

	bool new_hole = (s->cur._flags & PT_ITER_HOLES) &&
			!pt_iter_hole_pending(s);

	for (; addr < end; addr += PAGE_SIZE, ptep++) {
		pte = ptep_get(ptep);
		if (pte_none(pte)) {
			if (new_hole) {
				s->cur._next = addr;
				pt_iter_hole(s, addr, PT_ITER_PTE);
				new_hole = false;
				continue;
			}
			/*
			 * A hole of a higher level ends here; else skip the
			 * empty PTEs that follow (the loop then steps past
			 * the last of them).
			 */
			if (!pt_iter_hole_pending(s) || s->hole_in_table) {
				nr = ((end - addr) >> PAGE_SHIFT) - 1;
				nr = __pt_iter_none_run(ptep + 1, nr);
				addr += nr << PAGE_SHIFT;
				ptep += nr;
				continue;
			}
		}
		s->cur._next = addr;
		if (pt_iter_hole_pending(s)) {
			if (!s->hole_in_table)
				/* It began outside this table. */
				pt_iter_drop_table(s);
			return pt_iter_report_hole(s, addr);
		}
		if (pte_present(pte)) {
			if (!pt_iter_present_pte(s, ptep, pte))
				continue;
		} else {
			if (!(s->cur._flags & PT_ITER_WANT_NONPRESENT))
				continue;
			swp = pte_to_swp_entry(pte);
			if (!pt_iter_wants_swp(s, swp, &type))
				continue;
			pt_iter_set(s, type, PT_ITER_PTE, addr,
				    addr + PAGE_SIZE);
			pt_iter_set_swp(s, type, swp, 0);
			if (pte_swp_soft_dirty(pte))
				s->cur._attrs |= PT_ATTR_SOFT_DIRTY;
			/*
			 * The bit itself: pte_swp_uffd_wp_any() is false for
			 * every entry without CONFIG_PTE_MARKER_UFFD_WP, where
			 * anonymous memory has uffd-wp all the same.  A uffd-wp
			 * marker's is set by pt_iter_set_swp().
			 */
			if (pte_swp_uffd_wp(pte))
				s->cur._attrs |= PT_ATTR_UFFD_WP;
		}
		pt_iter_pte_entry(s, ptep, pte);
		return true;
	}
	s->cur._next = end;
	/* A hole of the table ends with it, and is reported with its lock. */
	if (pt_iter_hole_pending(s) && s->hole_in_table)
		return pt_iter_report_hole(s, end);
	return false;
}

#ifdef CONFIG_PGTABLE_HAS_HUGE_LEAVES
/*
 * Describe the PUD leaf (@present) or swap-format PUD @pud, found at
 * s->cur._next, of the PUD-sized range that begins at @start.  The same code
 * decodes a PUD-mapped THP or pfn mapping and a PUD-sized hugetlb page.
 * Returns false if the caller does not want it.
 */
static bool pt_iter_set_pud(struct pt_iter_state *s, pud_t pud,
			    unsigned long start, bool present)
{
	unsigned long idx = (s->cur._next - start) >> PAGE_SHIFT;
	enum pt_iter_type type;
	unsigned int attrs = 0;
	unsigned long pfn;
	struct page *page;
	swp_entry_t swp;

	if (present) {
		/* Decoded once: some architectures read a system register. */
		pfn = pud_pfn(pud);
		/*
		 * A hugetlb page is a normal page, mapped whole from its
		 * first page by its leaf: no vm_normal_page_pud(), and its
		 * folio without page_folio(), which looks for a fake head
		 * where hugetlb's vmemmap is optimised.
		 */
		if (s->hsize)
			page = pfn_to_page(pfn);
		else
			page = vm_normal_page_pud(s->vma, start, pud);
		if (!pt_iter_wants(s, page ? PT_ITER_FOLIO : PT_ITER_PFN))
			return false;
		pt_iter_set_leaf(s, PT_ITER_PUD, start, PUD_SIZE);
		s->cur._pfn = pfn + idx;
		s->cur.type = page ? PT_ITER_FOLIO : PT_ITER_PFN;
		if (page && !(s->cur._flags & PT_ITER_NO_PAGE)) {
			s->cur.page = nth_page(page, idx);
			s->cur.folio = s->hsize ? (struct folio *)page :
				       page_folio(s->cur.page);
			VM_WARN_ON_ONCE(page_folio(s->cur.page) != s->cur.folio);
		}
		if (pud_write(pud))
			attrs |= PT_ATTR_WRITE;
		if (pud_young(pud))
			attrs |= PT_ATTR_YOUNG;
		if (pud_dirty(pud))
			attrs |= PT_ATTR_DIRTY;
		if (pud_soft_dirty(pud))
			attrs |= PT_ATTR_SOFT_DIRTY;
		if (pud_uffd_wp(pud))
			attrs |= PT_ATTR_UFFD_WP;
		s->cur._attrs |= attrs;
	} else {
		swp = pud_to_swp_entry(pud);
		if (!pt_iter_wants_swp(s, swp, &type))
			return false;
		pt_iter_set_leaf(s, PT_ITER_PUD, start, PUD_SIZE);
		pt_iter_set_swp(s, type, swp, idx);
		if (pud_swp_soft_dirty(pud))
			s->cur._attrs |= PT_ATTR_SOFT_DIRTY;
		if (pud_swp_uffd_wp(pud))
			s->cur._attrs |= PT_ATTR_UFFD_WP;
	}
	s->cur.pud = pud;
	return true;
}
#else
/* Without huge leaves (neither THP nor hugetlb) there is no PUD leaf. */
static bool pt_iter_set_pud(struct pt_iter_state *s, pud_t pud,
			    unsigned long start, bool present)
{
	VM_WARN_ON_ONCE(1);
	return false;
}
#endif

#ifdef CONFIG_HUGETLB_PAGE
/* What every hugetlb entry smaller than PUD_SIZE has, after its kind. */
static inline void pt_iter_hugetlb_tail(struct pt_iter_state *s, pte_t *ptep,
					pte_t pte)
{
	unsigned long size = s->hsize;

	if (size != PAGE_SIZE && size != PMD_SIZE && size != PUD_SIZE)
		s->cur._attrs |= PT_ATTR_CONT;
	/* Whether its table is shared is asked when the caller wants it. */
	if (IS_ENABLED(CONFIG_HUGETLB_PMD_PAGE_TABLE_SHARING) &&
	    size == PMD_SIZE)
		s->cur._attrs |= __PT_ATTR_PMD_TABLE;
	s->cur.pte = pte;
	s->cur.ptep = ptep;
}

/*
 * Describe the present hugetlb entry @pte at @ptep, of the page that begins
 * at @start, found at s->cur._next.  Returns false if the caller does not
 * want it.
 */
static bool pt_iter_hugetlb_present(struct pt_iter_state *s,
				    unsigned long start, pte_t *ptep,
				    pte_t pte)
{
	unsigned long size = s->hsize;
	unsigned long pfn = pte_pfn(pte) + ((s->cur._next - start) >> PAGE_SHIFT);

	if (!pt_iter_wants(s, PT_ITER_FOLIO))
		return false;
	pt_iter_set_leaf(s, pt_iter_size_level(size), start, size);
	s->cur.type = PT_ITER_FOLIO;
	s->cur._pfn = pfn;
	/* The next pages of its PMD table are for the inline leaf step. */
	if (size == PMD_SIZE && PMD_SIZE != PUD_SIZE)
		s->leaf_end = pt_iter_pud_end(start, s->range_end);
	if (!(s->cur._flags & PT_ITER_NO_PAGE)) {
		s->cur.page = pfn_to_page(pfn);
		s->cur.folio = page_folio(s->cur.page);
	}
	/*
	 * Attributes are decoded from s->cur.pte when asked, as for a PTE:
	 * huge_pte_write(), huge_pte_dirty() and huge_pte_uffd_wp() are the
	 * PTE helpers on the value huge_ptep_get() returns (s390, with no
	 * uffd-wp, has pte_uffd_wp() false too).
	 */
	s->cur._attrs |= __PT_ATTR_RAW_PTE;
	pt_iter_hugetlb_tail(s, ptep, pte);
	return true;
}

/*
 * One logical hugetlb entry, at @ptep if the caller knows where it is, else
 * found with hugetlb_walk(); read with huge_ptep_get() under the lock that
 * hugetlb itself uses for it.  The hstate size, not any arch bit, tells the
 * level and whether the leaf is a cont-PTE/cont-PMD block.
 */
static bool pt_iter_hugetlb(struct pt_iter_state *s, pte_t *ptep)
{
	struct vm_area_struct *vma = s->vma;
	struct hstate *h = s->hstate;
	unsigned long size = s->hsize;
	unsigned long start = s->cur._next & ~(size - 1);
	unsigned long next = min(start + size, s->range_end);
	enum pt_iter_level level = pt_iter_size_level(size);
	enum pt_iter_type type;
	spinlock_t *ptl;	/* the lock of the entry */
	unsigned long idx;
	swp_entry_t swp;
	pte_t pte;

	if (!ptep)
		ptep = hugetlb_walk(vma, start, size);
	/*
	 * No table to hold the entry: a hole of the level above (the first
	 * missing entry is there, or higher), not one of empty hugetlb
	 * entries, which only exist in a table.
	 */
	if (!ptep)
		return pt_iter_hole(s, next, level + 1);
	ptl = huge_pte_lock(h, vma->vm_mm, ptep);
	pte = huge_ptep_get(vma->vm_mm, start, ptep);
	if (huge_pte_none(pte)) {
		spin_unlock(ptl);
		return pt_iter_hole(s, next, level);
	}
	if (pt_iter_hole_pending(s)) {
		spin_unlock(ptl);
		return pt_iter_report_hole(s, s->cur._next);
	}

	if (size == PUD_SIZE && PUD_SIZE != PMD_SIZE) {
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
			if (!pt_iter_set_pud(s, pud, start, pte_present(pte)))
				goto skip;
			s->cur.pudp = (pud_t *)ptep;
			goto found;
		}
	}

	if (pte_present(pte)) {
		if (!pt_iter_hugetlb_present(s, start, ptep, pte))
			goto skip;
		goto found;
	}
	swp = pte_to_swp_entry(pte);
	if (!pt_iter_wants_swp(s, swp, &type))
		goto skip;
	idx = (s->cur._next - start) >> PAGE_SHIFT;
	pt_iter_set_leaf(s, level, start, size);
	pt_iter_set_swp(s, type, swp, idx);
	if (pte_swp_soft_dirty(pte))
		s->cur._attrs |= PT_ATTR_SOFT_DIRTY;
	if (pte_swp_uffd_wp_any(pte))
		s->cur._attrs |= PT_ATTR_UFFD_WP;
	pt_iter_hugetlb_tail(s, ptep, pte);
found:
	s->cur._attrs |= PT_ATTR_HUGETLB;
	s->cur.ptl = ptl;
	pt_iter_keep(ptl);
	return true;
skip:
	spin_unlock(ptl);
	s->cur._next = next;
	return false;
}

#else
static bool pt_iter_hugetlb(struct pt_iter_state *s, pte_t *ptep)
{
	BUILD_BUG();
	return false;
}
#endif

/*
 * A PUD that is a leaf or not present.  Returns 1 with the entry reported,
 * 0 if the walk moved on past it, -EAGAIN if it turned out to be a table.
 */
static int pt_iter_pud_leaf(struct pt_iter_state *s, pud_t *pudp)
{
	unsigned long start = s->cur._next & PUD_MASK;
	unsigned long next = pt_iter_pud_end(s->cur._next, s->range_end);
	spinlock_t *ptl;	/* the lock of the entry */
	pud_t pud;

	ptl = pud_lock(s->vma->vm_mm, pudp);
	pud = pudp_get(pudp);
	if (pud_none(pud)) {
		spin_unlock(ptl);
		return pt_iter_hole(s, next, PT_ITER_PUD);
	}
	if (pud_present(pud) && !pud_leaf(pud)) {
		spin_unlock(ptl);
		return -EAGAIN;
	}
	if (pt_iter_hole_pending(s)) {
		spin_unlock(ptl);
		return pt_iter_report_hole(s, s->cur._next);
	}
	/*
	 * Only hugetlb, which does not come here, has swap-format PUDs.  But
	 * x86's pud_present() is false for a PROT_NONE leaf (mprotect() of a
	 * device-dax PUD), which keeps its devmap or huge bit.
	 */
	if (!pud_present(pud) && !pud_devmap(pud) && !pud_trans_huge(pud)) {
		VM_WARN_ON_ONCE(1);
		goto skip;
	}
	if (!pt_iter_set_pud(s, pud, start, true))
		goto skip;
	s->cur.pudp = pudp;
	s->cur.ptl = ptl;
	pt_iter_keep(ptl);
	return 1;
skip:
	spin_unlock(ptl);
	s->cur._next = next;
	return 0;
}

#ifdef CONFIG_PGTABLE_HAS_HUGE_LEAVES
/*
 * Whether vm_normal_page_pmd() of the present PMD leaf @pmd of pfn @pfn
 * surely finds a page, told inline: a THP of a VMA that is not a pfn
 * mapping.  The rest (pfn maps, devmap, the huge zero page) is for the
 * real thing.
 */
static __always_inline bool pt_iter_pmd_usual(struct vm_area_struct *vma,
					      pmd_t pmd, unsigned long pfn)
{
#ifdef CONFIG_TRANSPARENT_HUGEPAGE
	return likely(!(vma->vm_flags & (VM_PFNMAP | VM_MIXEDMAP)) &&
		      __pt_iter_pmd_normal(pmd, pfn));
#else
	return false;
#endif
}

/*
 * Describe the PMD leaf @pmd found at s->cur._next; false if the caller does
 * not want it.  A non-present PMD is a swap-format entry where the
 * architecture has THP migration; elsewhere it is a PROT_NONE leaf (32-bit
 * ARM with LPAE clears the valid bit of a PROT_NONE section), decoded as
 * the present leaf it stands for, as the PUD path decodes a PROT_NONE PUD.
 */
static __always_inline bool pt_iter_set_pmd(struct pt_iter_state *s,
					    pmd_t pmd)
{
	unsigned long start = s->cur._next & PMD_MASK;
	unsigned long idx = (s->cur._next - start) >> PAGE_SHIFT;
	bool no_page = s->cur._flags & PT_ITER_NO_PAGE;
	enum pt_iter_type type;
	struct page *page;
	swp_entry_t swp;

	if (pmd_present(pmd) || !thp_migration_supported()) {
		unsigned long pfn = pmd_pfn(pmd);

		/*
		 * The page of s->cur._next, looked up once: pfn_to_page()
		 * rather than nth_page() of the first page, which costs two
		 * memmap lookups without SPARSEMEM_VMEMMAP.
		 */
		if (pt_iter_pmd_usual(s->vma, pmd, pfn)) {
			type = PT_ITER_FOLIO;
			page = no_page ? NULL : pfn_to_page(pfn + idx);
		} else {
			page = vm_normal_page_pmd(s->vma, start, pmd);
			type = page ? PT_ITER_FOLIO : PT_ITER_PFN;
			if (page)
				page = no_page ? NULL : nth_page(page, idx);
		}
		if (!pt_iter_wants(s, type))
			return false;
		pt_iter_set_leaf(s, PT_ITER_PMD, start, PMD_SIZE);
		s->cur.type = type;
		/*
		 * The next THPs of the table, up to the end of the table or
		 * of the walk, are for the inline leaf step, which tells a
		 * THP from a pfn mapping but for the VMA's flags.
		 */
		if (type == PT_ITER_FOLIO && PMD_SIZE != PUD_SIZE &&
		    !(s->vma->vm_flags & (VM_PFNMAP | VM_MIXEDMAP)))
			s->leaf_end = s->pud_end;
		if (page) {
			s->cur.page = page;
			s->cur.folio = page_folio(page);
		}
		s->cur._pfn = pfn + idx;
		/* Attributes are decoded from s->cur.pmd when asked. */
		s->cur._attrs |= __PT_ATTR_RAW_PMD;
		return true;
	}
	swp = pmd_to_swp_entry(pmd);
	if (!pt_iter_wants_swp(s, swp, &type))
		return false;
	pt_iter_set_leaf(s, PT_ITER_PMD, start, PMD_SIZE);
	pt_iter_set_swp(s, type, swp, idx);
	if (pmd_swp_soft_dirty(pmd))
		s->cur._attrs |= PT_ATTR_SOFT_DIRTY;
	if (pmd_swp_uffd_wp(pmd))
		s->cur._attrs |= PT_ATTR_UFFD_WP;
	return true;
}
#else
/* Without huge leaves there is no PMD leaf to describe. */
static bool pt_iter_set_pmd(struct pt_iter_state *s, pmd_t pmd)
{
	VM_WARN_ON_ONCE(1);
	return false;
}
#endif

/*
 * A PMD that is a leaf or not present: same return values as
 * pt_iter_pud_leaf().
 */
static int pt_iter_pmd_leaf(struct pt_iter_state *s, pmd_t *pmdp)
{
	unsigned long next = pmd_addr_end(s->cur._next, s->pud_end);
	spinlock_t *ptl;	/* the lock of the entry */
	pmd_t pmd;

	ptl = pmd_lock(s->vma->vm_mm, pmdp);
	pmd = pmdp_get(pmdp);
	if (pmd_none(pmd)) {
		spin_unlock(ptl);
		return pt_iter_hole(s, next, PT_ITER_PMD);
	}
	if (pmd_present(pmd) && !pmd_leaf(pmd)) {
		spin_unlock(ptl);
		return -EAGAIN;
	}
	if (pt_iter_hole_pending(s)) {
		spin_unlock(ptl);
		return pt_iter_report_hole(s, s->cur._next);
	}
	if (!pt_iter_set_pmd(s, pmd)) {
		spin_unlock(ptl);
		s->cur._next = next;
		return 0;
	}
	s->cur.pmd = pmd;
	s->cur.pmdp = pmdp;
	s->cur.ptl = ptl;
	pt_iter_keep(ptl);
	return 1;
}

/* The PTE table of s->cur._next, mapped and locked: @ptep is its PTE. */
static inline void pt_iter_set_table(struct pt_iter_state *s, pte_t *ptep,
				     spinlock_t *ptl)
{
	unsigned long addr = s->cur._next;

	pt_iter_keep(ptl);
	s->pte_table = ptep - pte_index(addr);
	s->pte_ptl = ptl;
	s->table_end = pmd_addr_end(addr, s->pud_end);
}

/*
 * The entry at s->cur._next, whose PMD entry is @pmdp: a PMD leaf (or a
 * hole) is reported, a PTE table is mapped and locked for
 * pt_iter_scan_table().  Same return values as pt_iter_descend().  Out of
 * line: it has the only local whose address escapes, which would cost
 * every step of __pt_iter_next() a stack canary.
 */
static noinline bool pt_iter_pmd(struct pt_iter_state *s, pmd_t *pmdp)
{
	unsigned long addr = s->cur._next;
	spinlock_t *ptl;	/* the PTE table's lock */
	pte_t *ptep;
	pmd_t pmd;
	int ret;

again:
	pmd = pmdp_get_lockless(pmdp);
	if (pmd_none(pmd))
		return pt_iter_hole(s, pmd_addr_end(addr, s->pud_end),
				    PT_ITER_PMD);
	if (!pmd_present(pmd) || pmd_leaf(pmd)) {
		ret = pt_iter_pmd_leaf(s, pmdp);
		if (ret != -EAGAIN)
			return ret;
	}

	ptep = pte_offset_map_lock(s->vma->vm_mm, pmdp, addr, &ptl);
	if (!ptep)
		/* The table went away or was never one: look again. */
		goto again;
	pt_iter_set_table(s, ptep, ptl);
	return false;
}

/*
 * Descend to the entry at s->cur._next: from the PUD entry kept from the last
 * step if s->cur._next is still below it, else from the PGD.  Returns true
 * with an entry reported; false when the walk moved on (over a hole or an
 * unwanted leaf), or when a PTE table was mapped and locked for
 * pt_iter_scan_table().
 */
static bool pt_iter_descend(struct pt_iter_state *s)
{
	struct mm_struct *mm = s->vma->vm_mm;
	unsigned long addr = s->cur._next;
	unsigned long end = s->range_end;
	pgd_t *pgdp;
	p4d_t *p4dp;
	pud_t *pudp;
	pud_t pud;
	int ret;

	if (addr < s->pud_end) {
		pudp = s->pudp;
		goto pmd_level;
	}

	pgdp = pgd_offset(mm, addr);
	if (pgd_none_or_clear_bad(pgdp))
		return pt_iter_hole(s, pgd_addr_end(addr, end), PT_ITER_PGD);
	p4dp = p4d_offset(pgdp, addr);
	if (p4d_none_or_clear_bad(p4dp))
		return pt_iter_hole(s, p4d_addr_end(addr, end), PT_ITER_P4D);
	pudp = pud_offset(p4dp, addr);
	pud = pudp_get(pudp);
	if (pud_none(pud))
		return pt_iter_hole(s, pt_iter_pud_end(addr, end),
				    PT_ITER_PUD);
	if (!pud_present(pud) || pud_leaf(pud)) {
		ret = pt_iter_pud_leaf(s, pudp);
		if (ret != -EAGAIN)
			return ret;
	}
	/* A PMD table: it stays one while the mmap or VMA lock is held. */
	s->pudp = pudp;
	s->pud_end = pt_iter_pud_end(addr, end);

pmd_level:
	return pt_iter_pmd(s, pmd_offset(pudp, addr));
}

/**
 * __pt_iter_none_run - how many PTEs of a run are empty
 * @ptep: the first PTE to look at, of a mapped and locked table.
 * @max: how many PTEs there are to look at, from @ptep on.
 *
 * Out of line, for the inline step to skip (or report as a hole) the empty
 * PTEs of its table without the loop in every caller: four at a time while
 * there are four left, since this loop is most of a walk of sparse memory.
 * Not for direct use.
 *
 * Return: the number of empty PTEs from @ptep on, at most @max.
 */
unsigned long __pt_iter_none_run(pte_t *ptep, unsigned long max)
{
	unsigned long i = 0;

	while (i + 4 <= max && pte_none(ptep_get(ptep + i)) &&
	       pte_none(ptep_get(ptep + i + 1)) &&
	       pte_none(ptep_get(ptep + i + 2)) &&
	       pte_none(ptep_get(ptep + i + 3)))
		i += 4;
	while (i < max && pte_none(ptep_get(ptep + i)))
		i++;
	return i;
}

/**
 * __pt_iter_table_shared - whether a hugetlb entry's PMD table is shared
 * @ptep: the PMD-sized hugetlb entry of the iterator, its lock held.
 *
 * %PT_ATTR_SHARED_TABLE of the entry, for pt_iter_attrs() and
 * pt_iter_has(): only looked up when asked.  Not for direct use.
 *
 * Return: true if the PMD table that holds the entry is shared with
 * another mm.
 */
bool __pt_iter_table_shared(pte_t *ptep)
{
	return hugetlb_pmd_shared(ptep);
}

/**
 * __pt_iter_start - set up the state of a walk
 * @s: the walk's state.
 * @vma: the VMA to walk.
 * @start: first address to walk.
 * @end: end of the walk.
 * @flags: as for pt_iter_start().
 *
 * The out-of-line half of pt_iter_start(); not for direct use.
 */
void __pt_iter_start(struct pt_iter_state *s, struct vm_area_struct *vma,
		     unsigned long start, unsigned long end, unsigned int flags)
{
	VM_WARN_ON_ONCE(!PAGE_ALIGNED(start) || !PAGE_ALIGNED(end));
	VM_WARN_ON_ONCE(start < vma->vm_start || end > vma->vm_end);
	/*
	 * A VMA of no mm, the gate VMA of x86's vsyscall page that /proc
	 * shows with a task's VMAs, has no page tables of a task to walk
	 * (walk_page_vma() refuses it too): the walk is empty.
	 */
	if (unlikely(!vma->vm_mm))
		end = start;
	else
		pt_iter_assert_locked(vma);

	/*
	 * What the first step reads; the rest is written before it is read
	 * (pudp below pud_end, hole_level with hole_start, the entry by the
	 * step that finds it), and clearing it costs every walk of a small
	 * VMA.
	 */
	s->cur.type = PT_ITER_NONE;
	s->cur.ptl = NULL;
	s->cur._attrs = 0;
	s->cur._flags = __pt_iter_flags(flags);
	s->cur._next = max(start, vma->vm_start);
	s->cur._fast_end = 0;
	s->cur._st = s;
	s->vma = vma;
	s->range_start = s->cur._next;
	s->range_end = min(end, vma->vm_end);
	s->pte_table = NULL;
	s->pte_ptl = NULL;
	s->pud_end = 0;
	s->hole_start = PT_ITER_NO_HOLE;
	s->hole_in_table = false;
	s->walk_locked = false;
	s->hsize = 0;
	s->hstate = NULL;
	s->leaf_end = 0;
#ifdef CONFIG_HUGETLB_PAGE
	if (is_vm_hugetlb_page(vma)) {
		/* The hstate of a VMA does not change: look it up once. */
		s->hstate = hstate_vma(vma);
		s->hsize = huge_page_size(s->hstate);
	}
#endif
}

/**
 * __pt_iter_end - end a walk
 * @s: the walk's state.
 *
 * Drops every lock the walk holds.  Called by pt_iter_end(); not for
 * direct use.  Calling it again is harmless.
 */
void __pt_iter_end(struct pt_iter_state *s)
{
	pt_iter_drop_leaf(s);
	pt_iter_drop_table(s);
	if (s->walk_locked) {
		hugetlb_vma_unlock_read(s->vma);
		s->walk_locked = false;
	}
	s->hole_start = PT_ITER_NO_HOLE;
	s->leaf_end = 0;
	s->cur._next = s->range_end;
}

/**
 * __pt_iter_pause - drop every lock, to resume the walk later
 * @s: the walk's state.
 * @resume: where the walk continues.
 *
 * Called by pt_iter_pause(); not for direct use.
 */
void __pt_iter_pause(struct pt_iter_state *s, unsigned long resume)
{
	pt_iter_drop_leaf(s);
	pt_iter_drop_table(s);
	if (s->walk_locked) {
		hugetlb_vma_unlock_read(s->vma);
		s->walk_locked = false;
	}
	s->leaf_end = 0;
	VM_WARN_ON_ONCE(!PAGE_ALIGNED(resume) || resume < s->vma->vm_start ||
			resume > s->range_end);
	s->cur._next = clamp(resume, s->vma->vm_start, s->range_end);
	s->pud_end = 0;
}

/*
 * After a PMD-level leaf whose lock is still held (the caller did not
 * pause): the PMD entry of the next step if it is in the same PMD table,
 * else NULL.  A PMD table stays while the mmap or VMA lock is held, and
 * for hugetlb while the hugetlb VMA lock is held too (unsharing a PMD
 * table takes it for write), so the next entry is one step on and needs
 * no descent (nor hugetlb_walk()).  Only for leaves that end where the
 * next step starts, at the boundary of the next entry.
 */
static __always_inline void *pt_iter_leaf_after(const struct pt_iter_state *s)
{
	unsigned long next = s->cur._next;
	unsigned long size = s->hsize;

	if (s->cur.level != PT_ITER_PMD || next != s->cur.end ||
	    next >= s->range_end || PMD_SIZE == PUD_SIZE)
		return NULL;
	if (!size) {
		if (next >= s->pud_end || (next & ~PMD_MASK))
			return NULL;
		return s->cur.pmdp + 1;
	}
	/* hugetlb of PMD size, or a cont-PMD block, within the table. */
	if (!IS_ENABLED(CONFIG_HUGETLB_PAGE) || size < PMD_SIZE ||
	    size >= PUD_SIZE || (next & (size - 1)) || !(next & ~PUD_MASK))
		return NULL;
	return (pmd_t *)s->cur.ptep + (size >> PMD_SHIFT);
}

#ifdef CONFIG_HUGETLB_PAGE
/* pt_iter_leaf_next() of hugetlb: the page at @ptep if present. */
static __always_inline bool pt_iter_leaf_hugetlb(struct pt_iter_state *s,
						 pte_t *ptep,
						 unsigned long *pfn)
{
	struct mm_struct *mm = s->vma->vm_mm;
	pte_t pte = huge_ptep_get(mm, s->cur._next, ptep);

	VM_WARN_ON_ONCE(s->cur.ptl != huge_pte_lockptr(s->hstate, mm, ptep));
	if (!pte_present(pte))
		return false;
	*pfn = pte_pfn(pte);
	s->cur.pte = pte;
	s->cur.ptep = ptep;
	return true;
}
#else
static __always_inline bool pt_iter_leaf_hugetlb(struct pt_iter_state *s,
						 pte_t *ptep,
						 unsigned long *pfn)
{
	return false;
}
#endif

#ifdef CONFIG_TRANSPARENT_HUGEPAGE
/* pt_iter_leaf_next() of THP: the THP at @pmdp if it is one. */
static __always_inline bool pt_iter_leaf_thp(struct pt_iter_state *s,
					     pmd_t *pmdp, unsigned long *pfn)
{
	pmd_t pmd = pmdp_get(pmdp);

	VM_WARN_ON_ONCE(s->cur.ptl != pmd_lockptr(s->vma->vm_mm, pmdp));
	if (!pmd_trans_huge(pmd) || !pmd_present(pmd))
		return false;
	*pfn = pmd_pfn(pmd);
	if (!pt_iter_pmd_usual(s->vma, pmd, *pfn))
		return false;
	s->cur.pmd = pmd;
	s->cur.pmdp = pmdp;
	return true;
}
#else
static __always_inline bool pt_iter_leaf_thp(struct pt_iter_state *s,
					     pmd_t *pmdp, unsigned long *pfn)
{
	return false;
}
#endif

/*
 * The step from a present PMD-level leaf (a THP, a PMD-sized or cont-PMD
 * hugetlb page) to the next entry of its PMD table, if that is a present
 * leaf of the same kind: the run of THPs or hugetlb pages of a table that
 * walk_pmd_range() and walk_hugetlb_range() step through.  The entries of
 * one PMD table share their lock (pmd_lockptr() of the table, which
 * huge_pte_lockptr() is too for hugetlb pages of PMD size and above, below
 * PUD size), which is kept from one leaf to the next as a PTE table's is
 * from one PTE to the next, unless this CPU should reschedule or another
 * one waits for the lock: the general path then drops it and calls
 * cond_resched().  spin_is_contended() rather than spin_needbreak(), which
 * says no without a preemptible kernel: whatever the preemption model, a
 * CPU that waits for the lock (a fault, khugepaged, an rmap walk) waits
 * for one leaf, as when the lock was dropped after each.  Only the fields
 * that differ from the leaf before are written: the type, level, lock and
 * kind of the entry stay, and the caller wanted the one before.  Returns
 * false, having written nothing, for the general path.
 */
static __always_inline bool pt_iter_leaf_next(struct pt_iter_state *s)
{
	unsigned long next = s->cur._next;
	unsigned long size = s->hsize ?: PMD_SIZE;
	unsigned long pfn, end;
	void *leaf;

	if (s->cur.type != PT_ITER_FOLIO || !s->cur.ptl)
		return false;
	leaf = pt_iter_leaf_after(s);
	if (!leaf || need_resched() || spin_is_contended(s->cur.ptl))
		return false;
	if (s->hsize ? !pt_iter_leaf_hugetlb(s, leaf, &pfn) :
	    !pt_iter_leaf_thp(s, leaf, &pfn))
		return false;
	end = min(next + size, s->range_end);
	s->cur.addr = next;
	s->cur.end = end;
	s->cur._next = end;
	s->cur._pfn = pfn;
	s->cur._attrs &= ~PT_ATTR_CLIPPED;
	if (end != next + size)
		s->cur._attrs |= PT_ATTR_CLIPPED;
	if (!(s->cur._flags & PT_ITER_NO_PAGE)) {
		/*
		 * A hugetlb folio is mapped whole by its leaf, and so is a
		 * PMD-mapped THP (do_set_pmd() maps only folios of PMD
		 * order, anonymous THPs are of PMD order): the leaf maps
		 * its folio from the first page.  No page_folio(), which
		 * looks for a fake head where hugetlb's vmemmap is
		 * optimised.
		 */
		s->cur.page = pfn_to_page(pfn);
		s->cur.folio = (struct folio *)s->cur.page;
		VM_WARN_ON_ONCE(page_folio(s->cur.page) != s->cur.folio);
	}
	return true;
}

/*
 * With the table that pt_iter_descend() has just mapped and locked, and no
 * hole pending: whether the inline step can read it from s->cur._next on,
 * as after an entry of that table (it reports or skips what is empty,
 * decodes what it can and comes back here for the rest).  If so, the
 * cursor of the inline step is set up in s->cur, and s->cur says no more
 * of the last entry than an empty one at the cursor would: no leaf, whose
 * lock or extent a later step could take for its own, only the table's
 * lock.  Not if the cursor is at the end of the table (pt_iter_skip_none()
 * skipped its last PTEs): the inline step reads the PTE at its cursor
 * before it looks at where the table ends, and pte_index() of the table's
 * end is that of its first PTE.
 */
static inline bool pt_iter_table_inline(struct pt_iter_state *s)
{
	if (s->cur._next >= s->table_end || pt_iter_hole_pending(s) ||
	    !pt_iter_wants(s, PT_ITER_FOLIO))
		return false;
	s->cur.type = PT_ITER_NONE;
	s->cur.level = PT_ITER_PTE;
	s->cur.addr = s->cur._next;
	s->cur.end = s->cur._next;
	s->cur._attrs = 0;
	s->cur.ptl = s->pte_ptl;
	s->cur._fast_end = s->table_end;
	s->cur._nextp = s->pte_table + pte_index(s->cur._next);
	return true;
}

static noinline int pt_iter_finish(struct pt_iter_state *s);

/*
 * In a walk that skips holes, with the table that pt_iter_descend() has just
 * mapped and locked (at the start of a walk, after a leaf or a pause, not
 * from table to table): move s->cur._next past the empty PTEs at it.
 * Returns true if they reach the end of the walk, which then has nothing
 * more to report: a walk of a few untouched pages ends in its first call
 * of the slow path, not in the inline step's count of the empty PTEs and
 * another call.  (On arm64, a contpte PTE at the cursor is then read
 * twice, here and by the inline step: once per descent.)
 */
static inline bool pt_iter_skip_none(struct pt_iter_state *s)
{
	unsigned long next = s->cur._next;
	pte_t *ptep = s->pte_table + pte_index(next);
	unsigned long nr = ((s->table_end - next) >> PAGE_SHIFT) - 1;

	if ((s->cur._flags & PT_ITER_HOLES) || !pte_none(ptep_get(ptep)))
		return false;
	nr = 1 + __pt_iter_none_run(ptep + 1, nr);
	next += nr << PAGE_SHIFT;
	s->cur._next = next;
	return next >= s->range_end;
}

/*
 * The step of __pt_iter_next(): drops the lock of the previous entry,
 * moves to the next table or leaf and describes its first entry in s->cur,
 * or, with @table, stops at a PTE table it maps if the inline step can go
 * on from there.
 */
static int pt_iter_step(struct pt_iter_state *s, bool table)
{
	spinlock_t *ptl = s->cur.ptl;

	if (ptl && ptl != s->pte_ptl) {
		/*
		 * After a leaf that pt_iter_leaf_next() did not go on from:
		 * its lock, then what the callers of walk_page_range() do
		 * after a PMD or PUD leaf; like walk_hugetlb_range(), not
		 * after each hugetlb page unless it is time to.
		 */
		pt_iter_drop_leaf(s);
		if (!s->hsize || need_resched())
			cond_resched();
	}

	/*
	 * The hugetlb VMA lock, for as long as the walk of a hugetlb VMA
	 * goes on: what vma_pgtable_walk_begin() takes, without its test of
	 * the VMA, which s->hsize has answered.
	 */
	if (s->hsize && !s->walk_locked && s->cur._next < s->range_end) {
		hugetlb_vma_lock_read(s->vma);
		s->walk_locked = true;
	}

	while (s->cur._next < s->range_end) {
		if (s->pte_table) {
			if (pt_iter_scan_table(s))
				return __PT_ITER_ENTRY;
			pt_iter_drop_table(s);
			cond_resched();
			continue;
		}
		if (!IS_ENABLED(CONFIG_HUGETLB_PAGE) || !s->hsize) {
			if (pt_iter_descend(s))
				return __PT_ITER_ENTRY;
			if (table && s->pte_table && pt_iter_skip_none(s))
				return pt_iter_finish(s);
			if (table && s->pte_table && pt_iter_table_inline(s))
				return __PT_ITER_TABLE;
			continue;
		}
		if (pt_iter_hugetlb(s, NULL))
			return __PT_ITER_ENTRY;
		/*
		 * A hugetlb hole is stepped over one huge page at a time (a
		 * large sparse VMA of 64K pages is many steps), with only
		 * the sleeping hugetlb VMA lock held.
		 */
		cond_resched();
	}

	if (pt_iter_hole_pending(s)) {
		/* The hole began before this table: report it unlocked. */
		pt_iter_drop_table(s);
		pt_iter_report_hole(s, s->range_end);
		return __PT_ITER_ENTRY;
	}

	__pt_iter_end(s);
	return __PT_ITER_END;
}

/*
 * __pt_iter_next() but for the step from leaf to leaf: every other step,
 * and where the inline step picks up in the PTE table it maps.
 */
static noinline int pt_iter_next_table(struct pt_iter_state *s, bool table)
{
	int ret;

	/* Until a leaf that the inline leaf step can go on from. */
	s->leaf_end = 0;
	ret = pt_iter_step(s, table);
	if (ret == __PT_ITER_ENTRY && s->cur._fast_end)
		s->cur._nextp = s->pte_table + pte_index(s->cur._next);
	return ret;
}

/*
 * The step from the end of a PTE table to the next PTE table of the same
 * PMD table, the usual step of a walk of small pages: what pt_iter_step()
 * would do, without its tests for leaves, hugetlb and pending holes, which
 * the caller has made.  Anything but a PTE table that the inline step can
 * read is left to pt_iter_next_table(), which goes on from where this
 * stopped.
 */
static noinline int pt_iter_next_pte_table(struct pt_iter_state *s)
{
	unsigned long next = s->cur._next;
	pmd_t *pmdp = pmd_offset(s->pudp, next);
	spinlock_t *ptl;	/* the PTE table's lock */
	pte_t *ptep;
	pmd_t pmd;

	pt_iter_drop_table(s);
	cond_resched();
	/*
	 * The next PTE table, mapped here as pt_iter_pmd() would, without
	 * its frame, which is that of PMD leaves; anything else is for it.
	 */
	pmd = pmdp_get_lockless(pmdp);
	if (likely(pmd_present(pmd) && !pmd_leaf(pmd))) {
		ptep = pte_offset_map_lock(s->vma->vm_mm, pmdp, next, &ptl);
		if (likely(ptep)) {
			pt_iter_set_table(s, ptep, ptl);
			if (pt_iter_table_inline(s))
				return __PT_ITER_TABLE;
			return pt_iter_next_table(s, true);
		}
	}
	if (!pt_iter_pmd(s, pmdp)) {
		if (s->pte_table && pt_iter_table_inline(s))
			return __PT_ITER_TABLE;
		return pt_iter_next_table(s, true);
	}
	/* A PMD leaf (no hole was pending: this one would be pending). */
	return __PT_ITER_ENTRY;
}

/*
 * The last step of a walk that has no hole left to report: out of line,
 * as a tail call (pt_iter_finish(), or pt_iter_finish_next() for
 * __pt_iter_next()).  After a leaf, the cond_resched() of pt_iter_step():
 * a walk of a VMA that is one THP reschedules as smaps_pte_range() did.
 */
static __always_inline void pt_iter_release(struct pt_iter_state *s)
{
	spinlock_t *ptl = s->cur.ptl;
	bool leaf = ptl && ptl != s->pte_ptl;

	/*
	 * Only the locks are let go: once the walk has ended, the caller's
	 * iterator no longer points to its state, which nothing reads again
	 * (pt_iter_start() sets it up anew for another walk).  So every caller
	 * returns the end of the walk: unlike __pt_iter_end(), this leaves
	 * the state saying what was held.
	 */
	if (leaf) {
		pt_iter_unkeep(ptl);
		spin_unlock(ptl);
	}
	if (s->pte_table) {
		pt_iter_unkeep(s->pte_ptl);
		pt_iter_unkeep(RCU);
		pte_unmap_unlock(s->pte_table, s->pte_ptl);
	}
	if (s->walk_locked)
		hugetlb_vma_unlock_read(s->vma);
	if (leaf && (!s->hsize || need_resched()))
		cond_resched();
}

static noinline int pt_iter_finish(struct pt_iter_state *s)
{
	pt_iter_release(s);
	return __PT_ITER_END;
}

static noinline bool pt_iter_finish_next(struct pt_iter_state *s)
{
	pt_iter_release(s);
	return false;
}

/* The two slow paths below, which differ only in @table. */
static __always_inline int pt_iter_slow(struct pt_iter_state *s,
					unsigned long next, bool table)
{
	/*
	 * The end of a walk of a few pages costs no descent's frame (and
	 * there is no leaf to step to at the end of the range).
	 */
	if (next >= s->range_end && !pt_iter_hole_pending(s))
		return pt_iter_finish(s);
	s->cur._next = next;
	/*
	 * From a PTE table the inline step has read to its end (the last
	 * entry was not a leaf, which is never found with a table mapped).
	 */
	if (table && s->pte_table && next == s->table_end &&
	    next < s->pud_end && !pt_iter_hole_pending(s))
		return pt_iter_next_pte_table(s);
	/* In the frame of a leaf function: the rest is out of line. */
	if (pt_iter_leaf_next(s))
		return __PT_ITER_ENTRY;
	return pt_iter_next_table(s, table);
}

/* The rest of __pt_iter_next(), which is left with no frame of its own. */
static noinline bool pt_iter_next_step(struct pt_iter_state *s,
				       unsigned long next)
{
	return pt_iter_slow(s, next, false) == __PT_ITER_ENTRY;
}

/*
 * The present PTE @pte at @next of the locked table, read by the inline step
 * and left to __pt_iter_next(): out of line, so that the other steps of
 * the slow path, the end of a walk among them, keep their small frame.
 */

static noinline bool pt_iter_given_pte(struct pt_iter_state *s,
				       unsigned long next, pte_t pte)
{
	pte_t *ptep;

	VM_WARN_ON_ONCE(!s->pte_table || next >= s->table_end);
	ptep = s->pte_table + pte_index(next);
	s->cur._next = next;
	/* Not wanted: on to the PTE after it, as pt_iter_scan_table() goes. */
	if (!pt_iter_present_pte(s, ptep, pte))
		return pt_iter_next_step(s, next + PAGE_SIZE);
	pt_iter_pte_entry(s, ptep, pte);
	s->cur._nextp = ptep + pt_iter_nr_pages(&s->cur);
	return true;
}

/**
 * __pt_iter_next - the slow path of pt_iter_next()
 * @s: the walk's state.
 * @next: where the step starts (the inline step may have moved on).
 * @pte: the PTE at @next that the inline step has read from the locked
 *	table and leaves to this path, if it is present (a contpte block, a
 *	special PTE, a pfn without a memmap); anything else if not.
 *
 * Drops the lock of the previous entry, moves to the next table or leaf
 * and describes its first entry in @s->cur, for pt_iter_next() to copy.
 * A present @pte is described from the value the inline step read, as
 * pt_iter_scan_table() would after reading it again: on arm64, reading a
 * PTE of a contpte block gathers the young and dirty bits of the block's
 * 16 PTEs.  Not for direct use.
 *
 * Return: true with an entry, false at the end of the walk.
 */
bool __pt_iter_next(struct pt_iter_state *s, unsigned long next, pte_t pte)
{
	/*
	 * The inline step runs in a locked table with no hole pending (it
	 * reports the holes of its table itself): a present @pte is the
	 * entry at @next, unless the walk does not want it.
	 */
	if (next >= s->range_end && !pt_iter_hole_pending(s))
		return pt_iter_finish_next(s);
	if (pte_present(pte) && likely(!pt_iter_hole_pending(s)))
		return pt_iter_given_pte(s, next, pte);
	return pt_iter_next_step(s, next);
}

/**
 * __pt_iter_next_or_table - the slow path of pt_iter_next() at a table's end
 * @s: the walk's state.
 * @next: where the step starts.
 *
 * __pt_iter_next(), but when the step maps and locks a PTE table, and the
 * inline step can read it (no hole pending, folios wanted), it stops there
 * and sets the cursor of the inline step in @s->cur instead of decoding
 * the table's first entry: pt_iter_next() calls this one when its cursor
 * has reached the end of a table, not when it gives up on an entry it
 * does not decode.  Not for direct use.
 *
 * Return: %__PT_ITER_ENTRY with an entry, %__PT_ITER_TABLE with a table,
 * %__PT_ITER_END at the end of the walk.
 */
int __pt_iter_next_or_table(struct pt_iter_state *s, unsigned long next)
{
	return pt_iter_slow(s, next, true);
}

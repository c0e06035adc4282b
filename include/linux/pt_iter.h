/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pt_iter: an iterator over the page table entries of one VMA.
 *
 * A caller writes a plain loop over [start, end) of one VMA and is handed
 * one typed entry per step, with the page-table lock that protects it held.
 * The iterator owns the locking, the descent through the page-table levels,
 * hugetlb (at any size the architecture supports) and the batching of
 * consecutive entries.  There are no indirect calls.
 *
 * The step to the next present PTE of the table the walk is in is inline
 * (pt_iter_next()); everything else is out of line in mm/pt_iter.c.
 * Attributes, the pfn and the swap entry are decoded on demand, by the
 * accessors below, from the raw entry.
 *
 * See Documentation/mm/pt_iter.rst for the contract.
 */
#ifndef _LINUX_PT_ITER_H
#define _LINUX_PT_ITER_H

#include <linux/cleanup.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/spinlock.h>
#include <linux/swap.h>

struct hstate;

/**
 * enum pt_iter_type - what an entry maps
 * @PT_ITER_NONE: nothing is mapped (an empty entry or a missing table).
 *	Only returned when the walk was started with %PT_ITER_HOLES.
 * @PT_ITER_FOLIO: present, mapping pages of a folio (@folio, @page).
 * @PT_ITER_PFN: present, with no normal page behind it: the shared zero
 *	page, the huge zero page, or a pfn/special mapping (pt_iter_pfn() is
 *	valid; @folio and @page are NULL).
 * @PT_ITER_SWAP: a swap entry (pt_iter_swp()).
 * @PT_ITER_MIGRATION: a migration entry (pt_iter_swp(), and @folio and
 *	@page of the folio under migration).
 * @PT_ITER_DEVICE: a device-private or device-exclusive entry
 *	(pt_iter_swp(), @folio, @page).
 * @PT_ITER_HWPOISON: a hardware-poison entry (pt_iter_swp(), @page).
 * @PT_ITER_MARKER: a pte marker (pt_iter_swp(); uffd-wp or poisoned marker).
 * @PT_ITER_NR_TYPES: the number of types, for PT_ITER_WANT().
 */
enum pt_iter_type {
	PT_ITER_NONE,
	PT_ITER_FOLIO,
	PT_ITER_PFN,
	PT_ITER_SWAP,
	PT_ITER_MIGRATION,
	PT_ITER_DEVICE,
	PT_ITER_HWPOISON,
	PT_ITER_MARKER,
	PT_ITER_NR_TYPES,
};

/**
 * enum pt_iter_level - the page table level an entry lives at
 * @PT_ITER_PTE: a PTE (or a cont-PTE block of them).
 * @PT_ITER_PMD: a PMD leaf (or a cont-PMD block of them).
 * @PT_ITER_PUD: a PUD leaf.
 * @PT_ITER_P4D: a missing P4D entry (holes only).
 * @PT_ITER_PGD: a missing PGD entry (holes only).
 *
 * For holes the level is that of the first missing or empty entry.  Where
 * a level is folded (PMD_SIZE == PUD_SIZE on two-level page tables), leaves
 * of that size are PMD leaves.
 */
enum pt_iter_level {
	PT_ITER_PTE,
	PT_ITER_PMD,
	PT_ITER_PUD,
	PT_ITER_P4D,
	PT_ITER_PGD,
};

/* Flags for pt_iter_start(). */
/* Report holes (%PT_ITER_NONE); consecutive holes are one entry. */
#define PT_ITER_HOLES		BIT(0)
/* Batch consecutive PTEs mapping consecutive pages of one folio. */
#define PT_ITER_BATCH		BIT(1)
/*
 * Bits a batch may differ in (by default every PTE of a batch has the same
 * write, young, dirty, soft-dirty and uffd-wp bits).  An ignored attribute
 * of a batch is that of its first PTE.
 */
#define PT_ITER_IGNORE_WRITE	BIT(2)
#define PT_ITER_IGNORE_YOUNG	BIT(3)
#define PT_ITER_IGNORE_DIRTY	BIT(4)
#define PT_ITER_IGNORE_SOFT_DIRTY BIT(5)
#define PT_ITER_IGNORE_UFFD_WP	BIT(6)
/*
 * The entry types the caller wants, other than holes.  Without any of these
 * every type is reported; with some, entries of the other types are skipped
 * without being decoded further than needed to tell their type.
 */
#define PT_ITER_WANT(type)	BIT(8 + (type))
#define PT_ITER_WANT_PRESENT	(PT_ITER_WANT(PT_ITER_FOLIO) |		\
				 PT_ITER_WANT(PT_ITER_PFN))
#define PT_ITER_WANT_NONPRESENT	(PT_ITER_WANT(PT_ITER_SWAP) |		\
				 PT_ITER_WANT(PT_ITER_MIGRATION) |	\
				 PT_ITER_WANT(PT_ITER_DEVICE) |		\
				 PT_ITER_WANT(PT_ITER_HWPOISON) |	\
				 PT_ITER_WANT(PT_ITER_MARKER))
#define PT_ITER_WANT_ALL	(PT_ITER_WANT_PRESENT | PT_ITER_WANT_NONPRESENT)

/* Attributes of an entry, from pt_iter_attrs(). */
#define PT_ATTR_WRITE		BIT(0)	/* writable */
#define PT_ATTR_YOUNG		BIT(1)	/* accessed */
#define PT_ATTR_DIRTY		BIT(2)	/* dirty */
#define PT_ATTR_SOFT_DIRTY	BIT(3)	/* soft-dirty (present or swap) */
#define PT_ATTR_UFFD_WP		BIT(4)	/* userfaultfd write-protected */
#define PT_ATTR_CONT		BIT(5)	/* leaf is a cont-PTE/cont-PMD block */
#define PT_ATTR_HUGETLB		BIT(6)	/* hugetlb entry */
#define PT_ATTR_SHARED_TABLE	BIT(7)	/* hugetlb PMD table is shared */
#define PT_ATTR_CLIPPED		BIT(8)	/* leaf extends beyond [addr, end) */
/* private: the bits a present PTE holds, decoded from it->pte if raw */
#define __PT_ATTR_PTE_BITS	(PT_ATTR_WRITE | PT_ATTR_YOUNG | PT_ATTR_DIRTY | \
				 PT_ATTR_SOFT_DIRTY | PT_ATTR_UFFD_WP)
#define __PT_ATTR_RAW_PTE	BIT(31)
#define __PT_ATTR_RAW_PMD	BIT(30)

/**
 * struct pt_iter - state of a page table walk, and the current entry
 * @addr: first address of the current entry.
 * @end: end (exclusive) of the current entry.  Entries are clipped to the
 *	range being walked; %PT_ATTR_CLIPPED says when the leaf is larger.
 * @type: what the entry maps.
 * @level: the level of the entry.
 * @folio: the folio (%PT_ITER_FOLIO, %PT_ITER_MIGRATION, %PT_ITER_DEVICE).
 * @page: the page mapped at @addr (same types, and %PT_ITER_HWPOISON).
 * @pte: value of the first PTE of the entry (%PT_ITER_PTE), or of a
 *	hugetlb entry smaller than PUD_SIZE, as huge_ptep_get() returns it.
 * @pmd: value of the PMD leaf (%PT_ITER_PMD, not hugetlb).
 * @pud: value of the PUD leaf (%PT_ITER_PUD), PUD_SIZE hugetlb included.
 * @ptep: pointer to the first PTE of the entry, or to the hugetlb entry
 *	(any size) for the huge_ptep_*() helpers.
 * @pmdp: pointer to the PMD leaf.
 * @pudp: pointer to the PUD leaf.
 * @ptl: the page-table lock held for this entry, or NULL if none is held
 *	(holes that are not within one present PTE table).
 *
 * The remaining fields are private to the iterator: use the accessors
 * (pt_iter_attrs(), pt_iter_pfn(), pt_iter_swp(), ...).
 */
struct pt_iter {
	unsigned long addr;
	unsigned long end;
	enum pt_iter_type type;
	enum pt_iter_level level;
	struct folio *folio;
	struct page *page;
	union {
		pte_t pte;
		pmd_t pmd;
		pud_t pud;
	};
	union {
		pte_t *ptep;
		pmd_t *pmdp;
		pud_t *pudp;
	};
	spinlock_t *ptl;	/* held for this entry, or NULL */

	/* private: */
	unsigned int _attrs;		/* PT_ATTR_*, or __PT_ATTR_RAW_PTE */
	unsigned int _flags;		/* of pt_iter_start() */
	unsigned long _next;		/* where the next step starts */
	unsigned long _fast_end;	/* the inline step runs below this */
	pte_t *_pte_table;		/* mapped and locked PTE table, or NULL */
	struct vm_area_struct *_vma;
	unsigned long _pfn;		/* unless __PT_ATTR_RAW_PTE */
	swp_entry_t _swp;
	/* cold: */
	unsigned long _range_start;	/* the walk */
	unsigned long _range_end;
	unsigned long _table_end;	/* of the PTE table, clamped */
	spinlock_t *_pte_ptl;		/* the PTE table's lock */
	pud_t *_pudp;			/* a PUD entry pointing to a PMD table */
	unsigned long _pud_end;		/* what it covers, clamped */
	unsigned long _hole_start;	/* start of a pending hole, or 1 */
	enum pt_iter_level _hole_level;	/* level of the pending hole */
	bool _hole_in_table;		/* it began in the locked PTE table */
	bool _walk_locked;		/* vma_pgtable_walk_begin() done */
	unsigned long _hsize;		/* hugetlb page size, or 0 */
	struct hstate *_hstate;		/* of a hugetlb VMA */
};

void pt_iter_start(struct pt_iter *it, struct vm_area_struct *vma,
		   unsigned long start, unsigned long end, unsigned int flags);
bool __pt_iter_next(struct pt_iter *it);
unsigned int __pt_iter_pte_batch(struct pt_iter *it, struct folio *folio,
				 struct page *page, pte_t *ptep, pte_t pte,
				 unsigned long addr);
void pt_iter_end(struct pt_iter *it);
void pt_iter_pause(struct pt_iter *it, unsigned long resume);

/* From mm/internal.h, for the inline check below. */
extern unsigned long highest_memmap_pfn;

/*
 * vm_normal_page() for the inline step: a PTE that is not special maps a
 * normal page if its pfn has a memmap; everything else is left to
 * vm_normal_page() itself.
 */
static __always_inline struct page *
__pt_iter_normal_page(struct pt_iter *it, unsigned long addr, pte_t pte)
{
	unsigned long pfn;

	if (!IS_ENABLED(CONFIG_ARCH_HAS_PTE_SPECIAL) || pte_special(pte))
		return vm_normal_page(it->_vma, addr, pte);
	pfn = pte_pfn(pte);
	if (unlikely(pfn > highest_memmap_pfn))
		return vm_normal_page(it->_vma, addr, pte);
	return pfn_to_page(pfn);
}

/**
 * pt_iter_next - advance to the next entry
 * @it: the iterator, set up by pt_iter_start().
 *
 * Moves to the entry after the current one, dropping and taking
 * page-table locks as needed.  A present PTE of the PTE table that is
 * already mapped and locked, mapping a normal page that is not part of a
 * contpte block, is decoded here, inline, as are the empty PTEs before it
 * when the walk does not report holes; everything else (holes, swap
 * entries, a new table, a leaf at a higher level, hugetlb) takes the slow
 * path.
 * The inline step only runs after an entry of the same PTE table, so @level
 * and @ptl stay what they are.
 *
 * Context: see pt_iter_start().
 * Return: true with the entry in @it (and @it->ptl held, if not NULL);
 * false when the range is exhausted, with every lock dropped.
 */
static __always_inline bool pt_iter_next(struct pt_iter *it)
{
	unsigned long addr = it->_next;
	struct folio *folio;
	struct page *page;
	unsigned int nr;
	pte_t *ptep;
	pte_t pte;

	if (unlikely(addr >= it->_fast_end))
		return __pt_iter_next(it);
	ptep = it->_pte_table + pte_index(addr);
	for (;;) {
		pte = ptep_get(ptep);
		if (likely(!pte_none(pte)))
			break;
		/* Holes are reported by the slow path. */
		if (it->_flags & PT_ITER_HOLES)
			return __pt_iter_next(it);
		addr += PAGE_SIZE;
		ptep++;
		if (addr >= it->_fast_end)
			goto slow;
	}
	if (unlikely(!pte_present(pte) || pte_leaf_size(pte) != PAGE_SIZE))
		goto slow;
	page = __pt_iter_normal_page(it, addr, pte);
	if (unlikely(!page))
		goto slow;
	folio = page_folio(page);
	nr = 1;
	if ((it->_flags & PT_ITER_BATCH) && folio_test_large(folio))
		nr = __pt_iter_pte_batch(it, folio, page, ptep, pte, addr);

	it->addr = addr;
	it->end = addr + ((unsigned long)nr << PAGE_SHIFT);
	it->_next = it->end;
	it->type = PT_ITER_FOLIO;
	it->folio = folio;
	it->page = page;
	it->pte = pte;
	it->ptep = ptep;
	it->_attrs = __PT_ATTR_RAW_PTE;
	return true;
slow:
	it->_next = addr;
	return __pt_iter_next(it);
}

/*
 * The attributes of @mask a present PTE carries.  Each bit is decoded only
 * if asked for: some architectures test CPU features in these helpers, which
 * the compiler cannot drop once computed.
 */
static __always_inline unsigned int __pt_iter_pte_attrs(pte_t pte,
							unsigned int mask)
{
	unsigned int attrs = 0;

	if ((mask & PT_ATTR_WRITE) && pte_write(pte))
		attrs |= PT_ATTR_WRITE;
	if ((mask & PT_ATTR_YOUNG) && pte_young(pte))
		attrs |= PT_ATTR_YOUNG;
	if ((mask & PT_ATTR_DIRTY) && pte_dirty(pte))
		attrs |= PT_ATTR_DIRTY;
	if ((mask & PT_ATTR_SOFT_DIRTY) && pte_soft_dirty(pte))
		attrs |= PT_ATTR_SOFT_DIRTY;
	if ((mask & PT_ATTR_UFFD_WP) && pte_uffd_wp(pte))
		attrs |= PT_ATTR_UFFD_WP;
	return attrs;
}

/* The same for a present PMD leaf (not hugetlb). */
static __always_inline unsigned int __pt_iter_pmd_attrs(pmd_t pmd,
							unsigned int mask)
{
	unsigned int attrs = 0;

#ifdef CONFIG_PGTABLE_HAS_HUGE_LEAVES
	if ((mask & PT_ATTR_WRITE) && pmd_write(pmd))
		attrs |= PT_ATTR_WRITE;
	if ((mask & PT_ATTR_YOUNG) && pmd_young(pmd))
		attrs |= PT_ATTR_YOUNG;
	if ((mask & PT_ATTR_DIRTY) && pmd_dirty(pmd))
		attrs |= PT_ATTR_DIRTY;
	if ((mask & PT_ATTR_SOFT_DIRTY) && pmd_soft_dirty(pmd))
		attrs |= PT_ATTR_SOFT_DIRTY;
	if ((mask & PT_ATTR_UFFD_WP) && pmd_uffd_wp(pmd))
		attrs |= PT_ATTR_UFFD_WP;
#endif
	return attrs;
}

/**
 * pt_iter_attrs - the attributes of the current entry
 * @it: the iterator, positioned on an entry.
 *
 * For present entries the write, young, dirty, soft-dirty and uffd-wp bits
 * of the entry; for swap-format entries its soft-dirty and uffd-wp bits
 * (uffd-wp also for a uffd-wp marker); and %PT_ATTR_CONT,
 * %PT_ATTR_HUGETLB, %PT_ATTR_SHARED_TABLE, %PT_ATTR_CLIPPED.  A consumer
 * that needs a few bits should prefer pt_iter_has().
 *
 * Return: a mask of %PT_ATTR_* bits.
 */
static inline unsigned int pt_iter_attrs(const struct pt_iter *it)
{
	if (it->_attrs & __PT_ATTR_RAW_PTE)
		return (it->_attrs & ~__PT_ATTR_RAW_PTE) |
		       __pt_iter_pte_attrs(it->pte, __PT_ATTR_PTE_BITS);
	if (it->_attrs & __PT_ATTR_RAW_PMD)
		return (it->_attrs & ~__PT_ATTR_RAW_PMD) |
		       __pt_iter_pmd_attrs(it->pmd, __PT_ATTR_PTE_BITS);
	return it->_attrs;
}

/**
 * pt_iter_has - whether the current entry has one of some attributes
 * @it: the iterator, positioned on an entry.
 * @mask: %PT_ATTR_* bits.
 *
 * Cheaper than pt_iter_attrs(): with a constant @mask only the bits asked
 * for are decoded.
 *
 * Return: true if pt_iter_attrs() has any bit of @mask set.
 */
static __always_inline bool pt_iter_has(const struct pt_iter *it,
					unsigned int mask)
{
	if ((mask & __PT_ATTR_PTE_BITS) && (it->_attrs & __PT_ATTR_RAW_PTE))
		return (it->_attrs & mask) ||
		       __pt_iter_pte_attrs(it->pte, mask);
	if ((mask & __PT_ATTR_PTE_BITS) && (it->_attrs & __PT_ATTR_RAW_PMD))
		return (it->_attrs & mask) ||
		       __pt_iter_pmd_attrs(it->pmd, mask);
	return it->_attrs & mask;
}

/**
 * pt_iter_pfn - the pfn mapped at the start of the current entry
 * @it: the iterator, positioned on an entry.
 *
 * Return: the pfn at @it->addr for present entries and for swap-format
 * entries that carry one (migration, device, hwpoison); 0 otherwise.
 */
static inline unsigned long pt_iter_pfn(const struct pt_iter *it)
{
	if (it->_attrs & __PT_ATTR_RAW_PTE)
		return pte_pfn(it->pte);
	return it->_pfn;
}

/**
 * pt_iter_swp - the swap-format entry of the current entry
 * @it: the iterator, positioned on an entry.
 *
 * Return: the swap entry of %PT_ITER_SWAP, %PT_ITER_MIGRATION,
 * %PT_ITER_DEVICE, %PT_ITER_HWPOISON and %PT_ITER_MARKER entries (for a
 * leaf larger than a page, as the leaf stores it: the pfn it carries is
 * that of the leaf's first page); a zero entry for the other types.
 */
static inline swp_entry_t pt_iter_swp(const struct pt_iter *it)
{
	if (it->type < PT_ITER_SWAP)
		return (swp_entry_t) { 0 };
	return it->_swp;
}

/**
 * pt_iter_nr_pages - number of base pages covered by the current entry
 * @it: the iterator.
 *
 * Return: (@it->end - @it->addr) / PAGE_SIZE.
 */
static inline unsigned long pt_iter_nr_pages(const struct pt_iter *it)
{
	return (it->end - it->addr) >> PAGE_SHIFT;
}

/**
 * pt_iter_size - number of bytes covered by the current entry
 * @it: the iterator.
 *
 * Return: @it->end - @it->addr.
 */
static inline unsigned long pt_iter_size(const struct pt_iter *it)
{
	return it->end - it->addr;
}

/**
 * pt_iter_holds_locks - whether the iterator holds a lock
 * @it: the iterator.
 *
 * Return: true while a page-table lock, a mapped PTE table or the hugetlb
 * VMA lock is held by the walk.
 */
static inline bool pt_iter_holds_locks(const struct pt_iter *it)
{
	return it->ptl || it->_pte_table || it->_walk_locked;
}

/* End the walk of @it if it still holds locks: the loop's cleanup. */
static inline void __pt_iter_cleanup(struct pt_iter *it)
{
	if (it && pt_iter_holds_locks(it))
		pt_iter_end(it);
}

DEFINE_FREE(__pt_iter, struct pt_iter *, __pt_iter_cleanup(_T))

/* pt_iter_start() for for_each_pt_entry(), which needs @it back. */
static __always_inline struct pt_iter *
__pt_iter_start(struct pt_iter *it, struct vm_area_struct *vma,
		unsigned long start, unsigned long end, unsigned int flags)
{
	pt_iter_start(it, vma, start, end, flags);
	return it;
}

/**
 * for_each_pt_entry - walk the page table entries of a VMA range
 * @it: a struct pt_iter on the caller's stack.
 * @vma: the VMA.
 * @start: first address (page aligned, inside @vma).
 * @end: end address (page aligned, at most @vma->vm_end).
 * @flags: %PT_ITER_HOLES, %PT_ITER_BATCH, %PT_ITER_IGNORE_*,
 *	PT_ITER_WANT() of the types wanted.
 *
 * A loop whose body sees one entry per iteration, with @it->ptl held when
 * it is not NULL.  However the loop is left (its end, break, return, goto),
 * every lock of the walk is dropped: the loop's own variable ends the walk
 * when it goes out of scope.  The fields of @it stay readable, but its
 * pointers and locks are no longer valid.
 */
#define for_each_pt_entry(it, vma, start, end, flags)			\
	for (struct pt_iter *__pt_it __free(__pt_iter) =		\
		__pt_iter_start(it, vma, start, end, flags);		\
	     pt_iter_next(__pt_it);)

#endif /* _LINUX_PT_ITER_H */

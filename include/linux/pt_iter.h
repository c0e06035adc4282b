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
 * See Documentation/mm/pt_iter.rst for the contract.
 */
#ifndef _LINUX_PT_ITER_H
#define _LINUX_PT_ITER_H

#include <linux/mm_types.h>
#include <linux/pgtable.h>
#include <linux/spinlock.h>
#include <linux/swap.h>

/**
 * enum pt_iter_type - what an entry maps
 * @PT_ITER_NONE: nothing is mapped (an empty entry or a missing table).
 *	Only returned when the walk was started with %PT_ITER_HOLES.
 * @PT_ITER_FOLIO: present, mapping pages of a folio (@folio, @page).
 * @PT_ITER_PFN: present, with no normal page behind it: the shared zero
 *	page, the huge zero page, or a pfn/special mapping (@pfn is valid;
 *	@folio and @page are NULL).
 * @PT_ITER_SWAP: a swap entry (@swp).
 * @PT_ITER_MIGRATION: a migration entry (@swp, @folio and @page of the
 *	folio under migration).
 * @PT_ITER_DEVICE: a device-private or device-exclusive entry (@swp,
 *	@folio, @page).
 * @PT_ITER_HWPOISON: a hardware-poison entry (@swp, @page).
 * @PT_ITER_MARKER: a pte marker (@swp; uffd-wp or poisoned marker).
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
};

/**
 * enum pt_iter_level - the page table level an entry lives at
 * @PT_ITER_PTE: a PTE (or a cont-PTE block of them).
 * @PT_ITER_PMD: a PMD leaf (or a cont-PMD block of them).
 * @PT_ITER_PUD: a PUD leaf.
 *
 * For holes the level is that of the first missing or empty entry.
 */
enum pt_iter_level {
	PT_ITER_PTE,
	PT_ITER_PMD,
	PT_ITER_PUD,
};

/* Flags for pt_iter_start(). */
/* Report holes (%PT_ITER_NONE); consecutive holes are one entry. */
#define PT_ITER_HOLES		BIT(0)
/* Batch consecutive PTEs mapping consecutive pages of one folio. */
#define PT_ITER_BATCH		BIT(1)

/* Attributes of an entry, in pt_iter.attrs.  Shared by every PTE of a batch. */
#define PT_ATTR_WRITE		BIT(0)	/* writable */
#define PT_ATTR_YOUNG		BIT(1)	/* accessed */
#define PT_ATTR_DIRTY		BIT(2)	/* dirty */
#define PT_ATTR_SOFT_DIRTY	BIT(3)	/* soft-dirty (present or swap) */
#define PT_ATTR_UFFD_WP		BIT(4)	/* userfaultfd write-protected */
#define PT_ATTR_CONT		BIT(5)	/* leaf is a cont-PTE/cont-PMD block */
#define PT_ATTR_HUGETLB		BIT(6)	/* hugetlb entry */
#define PT_ATTR_SHARED_TABLE	BIT(7)	/* hugetlb PMD table is shared */
#define PT_ATTR_CLIPPED		BIT(8)	/* leaf extends beyond [addr, end) */

/**
 * struct pt_iter - state of a page table walk, and the current entry
 * @addr: first address of the current entry.
 * @end: end (exclusive) of the current entry.  Entries are clipped to the
 *	range being walked; %PT_ATTR_CLIPPED says when the leaf is larger.
 * @type: what the entry maps.
 * @level: the level of the entry.
 * @attrs: %PT_ATTR_* bits.
 * @folio: the folio (%PT_ITER_FOLIO, %PT_ITER_MIGRATION, %PT_ITER_DEVICE).
 * @page: the page mapped at @addr (same types, and %PT_ITER_HWPOISON).
 * @pfn: the pfn mapped at @addr (present entries, and swap-format entries
 *	that carry a pfn); 0 otherwise.
 * @swp: the swap entry, for swap-format entries.
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
 * The remaining fields are private to the iterator.
 */
struct pt_iter {
	unsigned long addr;
	unsigned long end;
	enum pt_iter_type type;
	enum pt_iter_level level;
	unsigned int attrs;
	struct folio *folio;
	struct page *page;
	unsigned long pfn;
	swp_entry_t swp;
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
	struct vm_area_struct *_vma;
	unsigned long _next;		/* where the next step starts */
	unsigned long _range_end;	/* end of the walk */
	unsigned int _flags;		/* PT_ITER_HOLES, PT_ITER_BATCH */
	bool _walk_locked;		/* vma_pgtable_walk_begin() done */
	enum pt_iter_level _hole_level;	/* level of the pending hole */
	unsigned long _hole_start;	/* start of a pending hole, or 1 */
	pte_t *_pte_table;		/* mapped and locked PTE table, or NULL */
	spinlock_t *_pte_ptl;		/* its lock */
	unsigned long _table_end;	/* its end, clamped to _range_end */
};

struct pt_iter *pt_iter_start(struct pt_iter *it, struct vm_area_struct *vma,
			      unsigned long start, unsigned long end,
			      unsigned int flags);
bool __pt_iter_next(struct pt_iter *it);
bool __pt_iter_next_pte(struct pt_iter *it);
void pt_iter_end(struct pt_iter *it);
void pt_iter_pause(struct pt_iter *it, unsigned long resume);

/**
 * pt_iter_next - advance to the next entry
 * @it: the iterator, set up by pt_iter_start().
 *
 * Moves to the entry after the current one, dropping and taking
 * page-table locks as needed.  The next PTE of the PTE table that is already
 * mapped and locked is decoded without leaving that table; everything else
 * (a new table, a leaf at a higher level, hugetlb) takes the slow path.
 *
 * Context: see pt_iter_start().
 * Return: true with the entry in @it (and @it->ptl held, if not NULL);
 * false when the range is exhausted, with every lock dropped.
 */
static inline bool pt_iter_next(struct pt_iter *it)
{
	if (likely(it->_pte_table && it->_next < it->_table_end))
		return __pt_iter_next_pte(it);
	return __pt_iter_next(it);
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
 * for_each_pt_entry - walk the page table entries of a VMA range
 * @it: a struct pt_iter on the caller's stack.
 * @vma: the VMA.
 * @start: first address (page aligned, inside @vma).
 * @end: end address (page aligned, at most @vma->vm_end).
 * @flags: %PT_ITER_HOLES, %PT_ITER_BATCH.
 *
 * A loop whose body sees one entry per iteration, with @it->ptl held when
 * it is not NULL.  After a normal end of the loop no lock is held; a body
 * that leaves the loop early (break, return, goto) must call pt_iter_end().
 */
#define for_each_pt_entry(it, vma, start, end, flags)			\
	for (struct pt_iter *__pt_it = pt_iter_start(it, vma, start, end,	\
						     flags);		\
	     pt_iter_next(__pt_it);)

#endif /* _LINUX_PT_ITER_H */

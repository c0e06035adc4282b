/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pt_iter: an iterator over the page table entries of one VMA.
 *
 * A caller walks [start, end) of one VMA with for_each_pt_entry() and is
 * handed one typed entry per step, with the page-table lock that protects
 * it held.  The iterator owns the locking, the descent through the levels,
 * hugetlb (at any size) and the batching of consecutive PTEs.  The step to
 * the next PTE of the locked table is inline; the rest is in mm/pt_iter.c.
 *
 * See Documentation/mm/pt_iter.rst for the contract.
 */
#ifndef _LINUX_PT_ITER_H
#define _LINUX_PT_ITER_H

#include <linux/cleanup.h>
#include <linux/mm.h>
#include <linux/pgtable.h>

/**
 * enum pt_iter_type - what an entry maps
 * @PT_ITER_NONE: nothing is mapped (empty entries or missing tables).
 *	Only returned when the walk was started with %PT_ITER_HOLES.
 * @PT_ITER_FOLIO: present, mapping pages of a folio (@folio, @page; both
 *	NULL in a walk started with %PT_ITER_NO_PAGE).
 * @PT_ITER_PFN: present, with no normal page behind it: the shared zero
 *	page, the huge zero page, or a pfn/special mapping.
 * @PT_ITER_SWAP: a swap entry (pt_iter_swp()).
 * @PT_ITER_MIGRATION: a migration entry (pt_iter_swp(), @folio, @page).
 * @PT_ITER_DEVICE: a device-private or device-exclusive entry
 *	(pt_iter_swp(), @folio, @page).
 * @PT_ITER_HWPOISON: a hardware-poison entry (pt_iter_swp(), @page).
 * @PT_ITER_MARKER: a pte marker (pt_iter_swp()).
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
 * A hole is made of empty entries of one level, which is its level.  In a
 * hugetlb VMA, a hole of the level of its pages is made of empty entries
 * of tables that exist (and has %PT_ATTR_HUGETLB).  Where a level is
 * folded, leaves and holes are of the lowest level they stand for.
 */
enum pt_iter_level {
	PT_ITER_PTE,
	PT_ITER_PMD,
	PT_ITER_PUD,
	PT_ITER_P4D,
	PT_ITER_PGD,
};

/* Flags of a walk. */
/* Report holes (%PT_ITER_NONE), consecutive empty entries of one level. */
#define PT_ITER_HOLES		BIT(0)
/*
 * Report consecutive PTEs that map consecutive pages of one folio, with
 * the same bits, as one entry (with %PT_ITER_NO_PAGE: of any normal pages).
 */
#define PT_ITER_BATCH		BIT(1)
/*
 * Bits the PTEs of a batch may differ in.  pt_iter_has() of such a bit
 * says whether any PTE of the batch has it, as folio_pte_batch() does.
 */
#define PT_ITER_IGNORE_WRITE	BIT(2)
#define PT_ITER_IGNORE_YOUNG	BIT(3)
#define PT_ITER_IGNORE_DIRTY	BIT(4)
#define PT_ITER_IGNORE_SOFT_DIRTY BIT(5)
#define PT_ITER_IGNORE_UFFD_WP	BIT(6)
/*
 * @folio and @page of present entries are not wanted (they stay NULL); a
 * batch is then a run of PTEs mapping normal pages alike but for their
 * pfn, and pt_iter_pfn() is that of its first page.
 */
#define PT_ITER_NO_PAGE		BIT(7)
/* The types wanted, other than holes; every type if none is named. */
#define PT_ITER_WANT(type)	BIT(8 + (type))
#define PT_ITER_WANT_PRESENT	(PT_ITER_WANT(PT_ITER_FOLIO) |		\
				 PT_ITER_WANT(PT_ITER_PFN))
#define PT_ITER_WANT_NONPRESENT	(PT_ITER_WANT(PT_ITER_SWAP) |		\
				 PT_ITER_WANT(PT_ITER_MIGRATION) |	\
				 PT_ITER_WANT(PT_ITER_DEVICE) |		\
				 PT_ITER_WANT(PT_ITER_HWPOISON) |	\
				 PT_ITER_WANT(PT_ITER_MARKER))
#define PT_ITER_WANT_ALL	(PT_ITER_WANT_PRESENT | PT_ITER_WANT_NONPRESENT)

/* Attributes of an entry, from pt_iter_attrs() and pt_iter_has(). */
#define PT_ATTR_WRITE		BIT(0)	/* writable */
#define PT_ATTR_YOUNG		BIT(1)	/* accessed */
#define PT_ATTR_DIRTY		BIT(2)	/* dirty */
#define PT_ATTR_SOFT_DIRTY	BIT(3)	/* soft-dirty (present or swap) */
#define PT_ATTR_UFFD_WP		BIT(4)	/* userfaultfd write-protected */
#define PT_ATTR_CONT		BIT(5)	/* a cont-PTE/cont-PMD leaf */
#define PT_ATTR_HUGETLB		BIT(6)	/* a hugetlb entry, or empty ones */
#define PT_ATTR_SHARED_TABLE	BIT(7)	/* its hugetlb PMD table is shared */
#define PT_ATTR_CLIPPED		BIT(8)	/* the leaf extends beyond the walk */
/* private: bits 0-4 are yet to be read from @pte, or from a leaf's value */
#define __PT_ATTR_PTE		BIT(31)
#define __PT_ATTR_LEAF		BIT(30)

/**
 * struct pt_iter - a walk of the page tables of a VMA range
 * @addr: first address of the current entry.
 * @end: its end (exclusive), clipped to the walk.
 * @type: what it maps.
 * @level: the level it lives at.
 * @folio: its folio (%PT_ITER_FOLIO, %PT_ITER_MIGRATION, %PT_ITER_DEVICE).
 * @page: the page mapped at @addr (the same, and %PT_ITER_HWPOISON).
 * @pte: value of its first PTE (%PT_ITER_PTE), or of a hugetlb entry
 *	smaller than PUD_SIZE, as huge_ptep_get() returns it.
 * @pmd: value of a PMD leaf that is not hugetlb.
 * @pud: value of a PUD leaf, PUD-sized hugetlb included.
 * @ptep: pointer to the first PTE, or to a hugetlb entry of any size.
 * @pmdp: pointer to a PMD leaf.
 * @pudp: pointer to a PUD leaf.
 * @ptl: the page-table lock held for the entry; NULL for a hole of missing
 *	tables (a hole of empty PTEs comes with its table's lock).
 *
 * Lives on the caller's stack for one walk.  Its fields are read-only, and
 * those after @ptl private: use the accessors.
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
	spinlock_t *ptl;		/* held for the entry, or NULL */

	/* private: the entry */
	unsigned int _attrs;
	unsigned int _flags;
	unsigned long _pfn;
	swp_entry_t _swp;
	/* private: the walk */
	struct vm_area_struct *_vma;
	unsigned long _start;		/* the range walked */
	unsigned long _end;
	unsigned long _next;		/* where the next step starts */
	pte_t *_table;			/* the mapped, locked PTE table */
	spinlock_t *_table_ptl;		/* its lock */
	unsigned long _table_end;	/* its end in the walk, 0 if none */
	pud_t *_pudp;			/* the PUD of the current PMD table */
	unsigned long _pud_end;		/* what it covers in the walk */
	unsigned long _hole_start;	/* of a pending hole, or 1 */
	enum pt_iter_level _hole_level;
	bool _hole_locked;		/* it began in the locked PTE table */
	bool _vma_locked;		/* the hugetlb VMA lock is held */
	unsigned long _hsize;		/* hugetlb page size, or 0 */
};

void __pt_iter_start(struct pt_iter *it, struct vm_area_struct *vma,
		     unsigned long start, unsigned long end, unsigned int flags);
void pt_iter_end(struct pt_iter *it);
void pt_iter_pause(struct pt_iter *it, unsigned long resume);
unsigned int pt_iter_attrs(const struct pt_iter *it);
bool pt_iter_table_last(const struct pt_iter *it);
bool __pt_iter_find(struct pt_iter *it);
unsigned int __pt_iter_pte_batch(struct pt_iter *it);
unsigned int __pt_iter_leaf_attrs(const struct pt_iter *it, unsigned int mask);

/* The present PTE bits of @mask that @pte has. */
static __always_inline unsigned int __pt_iter_pte_attrs(pte_t pte,
							unsigned int mask)
{
	return ((mask & PT_ATTR_WRITE) && pte_write(pte) ? PT_ATTR_WRITE : 0) |
	       ((mask & PT_ATTR_YOUNG) && pte_young(pte) ? PT_ATTR_YOUNG : 0) |
	       ((mask & PT_ATTR_DIRTY) && pte_dirty(pte) ? PT_ATTR_DIRTY : 0) |
	       ((mask & PT_ATTR_SOFT_DIRTY) && pte_soft_dirty(pte) ?
		PT_ATTR_SOFT_DIRTY : 0) |
	       ((mask & PT_ATTR_UFFD_WP) && pte_uffd_wp(pte) ?
		PT_ATTR_UFFD_WP : 0);
}

/*
 * The entry of the present PTE @pte at @ptep and @addr of the locked table,
 * mapping @page: a batch from there on if the walk batches.
 */
static __always_inline void __pt_iter_pte(struct pt_iter *it,
					  unsigned int flags, unsigned long addr,
					  pte_t *ptep, pte_t pte,
					  struct page *page)
{
	unsigned int nr = 1;

	it->addr = addr;
	it->type = PT_ITER_FOLIO;
	it->level = PT_ITER_PTE;
	it->pte = pte;
	it->ptep = ptep;
	it->_attrs = __PT_ATTR_PTE;
	it->page = flags & PT_ITER_NO_PAGE ? NULL : page;
	it->folio = flags & PT_ITER_NO_PAGE ? NULL : page_folio(page);
	if (((flags & PT_ITER_BATCH) &&
	     (!it->folio || folio_test_large(it->folio))) ||
	    pte_leaf_size(pte) != PAGE_SIZE)
		nr = __pt_iter_pte_batch(it);
	it->end = addr + ((unsigned long)nr << PAGE_SHIFT);
	it->_next = it->end;
}

/*
 * The step of a walk with @flags: a present PTE of the locked table that
 * maps a normal page is decoded here (its lock is that of the entry
 * before, the table's), anything else by __pt_iter_find().
 */
static __always_inline bool __pt_iter_next(struct pt_iter *it,
					   unsigned int flags)
{
	unsigned long addr = it->_next;
	struct page *page;
	pte_t *ptep;
	pte_t pte;

	if (addr >= it->_table_end || ((flags & PT_ITER_WANT_ALL) &&
				       !(flags & PT_ITER_WANT(PT_ITER_FOLIO))))
		return __pt_iter_find(it);
	ptep = it->_table + pte_index(addr);
	pte = ptep_get(ptep);
	if (!pte_present(pte))
		return __pt_iter_find(it);
	page = vm_normal_page(it->_vma, addr, pte);
	if (!page)
		return __pt_iter_find(it);
	__pt_iter_pte(it, flags, addr, ptep, pte, page);
	return true;
}

/**
 * pt_iter_start - prepare a walk of a VMA range
 * @it: the iterator, on the caller's stack.
 * @vma: the VMA to walk.  The walk of a VMA of no mm (x86's vsyscall gate
 *	VMA, which /proc shows with a task's VMAs) is empty.
 * @start: first address, page aligned, within @vma.
 * @end: end of the walk, page aligned, at most @vma->vm_end.
 * @flags: %PT_ITER_HOLES to be told about holes, %PT_ITER_BATCH and
 *	%PT_ITER_IGNORE_* to batch PTEs, %PT_ITER_NO_PAGE if the pages of
 *	present entries are not needed, PT_ITER_WANT() of the types wanted.
 *
 * Takes no lock: the first pt_iter_next() does.  Usually called through
 * for_each_pt_entry().
 *
 * Context: the mmap lock (read or write) or the VMA lock of @vma is held
 * for the whole walk, and no spinlock; may sleep (between tables).
 * Return: @it.
 */
static inline struct pt_iter *pt_iter_start(struct pt_iter *it,
					    struct vm_area_struct *vma,
					    unsigned long start,
					    unsigned long end,
					    unsigned int flags)
{
	__pt_iter_start(it, vma, start, end, flags);
	return it;
}

/**
 * pt_iter_next - advance to the next entry
 * @it: the iterator, set up by pt_iter_start().
 *
 * Drops the lock of the current entry if the next one is not under it,
 * takes the next entry's, and describes the entry in @it.
 *
 * Context: see pt_iter_start().
 * Return: true with an entry in @it; false when the walk is over, with
 * every lock dropped.
 */
static inline bool pt_iter_next(struct pt_iter *it)
{
	return __pt_iter_next(it, it->_flags);
}

/**
 * pt_iter_has - whether the current entry has any of some attributes
 * @it: the iterator, positioned on an entry.
 * @mask: %PT_ATTR_* bits.
 *
 * Cheaper than pt_iter_attrs() for one question about a PTE.
 *
 * Return: true if pt_iter_attrs() has a bit of @mask.
 */
static __always_inline bool pt_iter_has(const struct pt_iter *it,
					unsigned int mask)
{
	if (it->_attrs & mask)
		return true;
	if (it->_attrs & __PT_ATTR_PTE)
		return __pt_iter_pte_attrs(it->pte, mask);
	return (mask & (PT_ATTR_WRITE | PT_ATTR_YOUNG | PT_ATTR_DIRTY |
			PT_ATTR_SOFT_DIRTY | PT_ATTR_UFFD_WP)) &&
	       (it->_attrs & __PT_ATTR_LEAF) && __pt_iter_leaf_attrs(it, mask);
}

/**
 * pt_iter_pfn - the pfn mapped at the start of the current entry
 * @it: the iterator, positioned on an entry.
 *
 * Return: the pfn at @it->addr of a present entry or of a swap-format
 * entry that carries one (migration, device, hwpoison); 0 otherwise.
 */
static inline unsigned long pt_iter_pfn(const struct pt_iter *it)
{
	return it->_attrs & __PT_ATTR_PTE ? pte_pfn(it->pte) : it->_pfn;
}

/**
 * pt_iter_swp - the swap-format entry of the current entry
 * @it: the iterator, positioned on an entry.
 *
 * Return: the entry of %PT_ITER_SWAP and the types after it, as the leaf
 * stores it (its pfn is that of the leaf's first page); else a zero entry.
 */
static inline swp_entry_t pt_iter_swp(const struct pt_iter *it)
{
	return it->type >= PT_ITER_SWAP ? it->_swp : (swp_entry_t) { 0 };
}

/**
 * pt_iter_nr_pages - number of base pages the current entry covers
 * @it: the iterator, positioned on an entry.
 *
 * Return: (@it->end - @it->addr) / PAGE_SIZE.
 */
static inline unsigned long pt_iter_nr_pages(const struct pt_iter *it)
{
	return (it->end - it->addr) >> PAGE_SHIFT;
}

/**
 * pt_iter_size - number of bytes the current entry covers
 * @it: the iterator, positioned on an entry.
 *
 * Return: @it->end - @it->addr.
 */
static inline unsigned long pt_iter_size(const struct pt_iter *it)
{
	return it->end - it->addr;
}

/* The loop's cleanup: end a walk that still holds a lock. */
static __always_inline void __pt_iter_cleanup(struct pt_iter *it)
{
	if (it->ptl || it->_table || it->_vma_locked)
		pt_iter_end(it);
}

DEFINE_FREE(pt_iter, struct pt_iter *, __pt_iter_cleanup(_T))

/* The loop of for_each_pt_entry(), with the flags of its outer loop. */
#define __pt_iter_loop(it, vma, start, end)				\
	for (struct pt_iter *__pt_it __free(pt_iter) =			\
	     pt_iter_start(it, vma, start, end, __pt_flags);		\
	     __pt_iter_next(__pt_it, __pt_flags);)

/**
 * for_each_pt_entry - walk the page table entries of a VMA range
 * @it: a struct pt_iter on the caller's stack.
 * @vma: the VMA.
 * @start: first address (page aligned, inside @vma).
 * @end: end address (page aligned, at most @vma->vm_end).
 * @flags: %PT_ITER_* flags of the walk, evaluated once.
 *
 * A loop whose body sees one entry per iteration, with @it->ptl held when
 * it is not NULL.  However the loop is left (its end, break, return,
 * goto), every lock of the walk is dropped.  The fields of @it stay
 * readable after the loop, but not its pointers.
 */
#define for_each_pt_entry(it, vma, start, end, flags)			\
	for (unsigned int __pt_flags = (flags), __pt_once = 1;		\
	     __pt_once; __pt_once = 0)					\
		__pt_iter_loop(it, vma, start, end)

#endif /* _LINUX_PT_ITER_H */

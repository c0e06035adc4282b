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
 * Attributes are decoded on demand, by the accessors below, from the raw
 * entry.
 *
 * See Documentation/mm/pt_iter.rst for the contract.
 */
#ifndef _LINUX_PT_ITER_H
#define _LINUX_PT_ITER_H

#include <linux/cleanup.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/swap.h>

struct hstate;

/**
 * enum pt_iter_type - what an entry maps
 * @PT_ITER_NONE: nothing is mapped (an empty entry or a missing table).
 *	Only returned when the walk was started with %PT_ITER_HOLES.
 * @PT_ITER_FOLIO: present, mapping pages of a folio (@folio, @page; both
 *	NULL in a walk started with %PT_ITER_NO_PAGE, whose batches are runs
 *	of PTEs that may map pages of several folios).
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
 * A hole is made of empty entries of one level, which is its level: empty
 * PTEs of a PTE table, empty PMD entries (no PTE table there), and so on.
 * In a hugetlb VMA a hole of the level of its pages is made of empty
 * entries of tables that exist (and has %PT_ATTR_HUGETLB); where the table
 * that would hold them is missing, the hole is of the level above.  Where a
 * level is folded (PMD_SIZE == PUD_SIZE on two-level page tables), leaves
 * of that size are PMD leaves, and missing entries are of the lowest level
 * they stand for too: with 4-level page tables a missing top-level entry
 * is a %PT_ITER_P4D hole.
 */
enum pt_iter_level {
	PT_ITER_PTE,
	PT_ITER_PMD,
	PT_ITER_PUD,
	PT_ITER_P4D,
	PT_ITER_PGD,
};

/* Flags for pt_iter_start(). */
/*
 * Report holes (%PT_ITER_NONE): consecutive empty entries of one level are
 * one entry; the empty PTEs of a PTE table are one entry of that table, with
 * its lock held.
 */
#define PT_ITER_HOLES		BIT(0)
/*
 * Batch consecutive PTEs mapping consecutive pages of one folio (or, with
 * %PT_ITER_NO_PAGE, runs of PTEs alike but for their pfn).
 */
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
 * The caller does not use @folio and @page of present entries: they are
 * not looked up and stay NULL.  With %PT_ITER_BATCH a batch is then a run
 * of present PTEs that map normal pages, with the same bits but their pfn
 * (and the ignored ones), whatever pages they map: pt_iter_pfn() is that
 * of its first page only, and %PT_ATTR_CONT says that it is made of
 * contpte blocks (of several folios, maybe).
 */
#define PT_ITER_NO_PAGE		BIT(7)
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
/*
 * Step from a present THP or PMD-sized hugetlb page to the next one of its
 * PMD table inline, in the caller's loop, rather than in the slow path: for
 * loops that see runs of them and do little per entry (PAGEMAP_SCAN).  It
 * makes the loop larger, which may cost its other entries.  Only THPs that
 * map a normal page of a VMA that is not a pfn mapping (not the huge zero
 * page, devmap or special PMDs), and not where PMD_SIZE == PUD_SIZE: the
 * rest goes through the slow path as without the flag.
 */
#define PT_ITER_INLINE_LEAVES	BIT(16)

/* Attributes of an entry, from pt_iter_attrs(). */
#define PT_ATTR_WRITE		BIT(0)	/* writable */
#define PT_ATTR_YOUNG		BIT(1)	/* accessed */
#define PT_ATTR_DIRTY		BIT(2)	/* dirty */
#define PT_ATTR_SOFT_DIRTY	BIT(3)	/* soft-dirty (present or swap) */
#define PT_ATTR_UFFD_WP		BIT(4)	/* userfaultfd write-protected */
#define PT_ATTR_CONT		BIT(5)	/* leaf is a cont-PTE/cont-PMD block */
#define PT_ATTR_HUGETLB		BIT(6)	/* hugetlb entry (or empty entries) */
#define PT_ATTR_SHARED_TABLE	BIT(7)	/* hugetlb PMD table is shared */
#define PT_ATTR_CLIPPED		BIT(8)	/* leaf extends beyond [addr, end) */
/* private: the bits a present PTE holds, decoded from it->pte if raw */
#define __PT_ATTR_PTE_BITS	(PT_ATTR_WRITE | PT_ATTR_YOUNG | PT_ATTR_DIRTY | \
				 PT_ATTR_SOFT_DIRTY | PT_ATTR_UFFD_WP)
#define __PT_ATTR_RAW_PTE	BIT(31)
#define __PT_ATTR_RAW_PMD	BIT(30)
/* private: a PMD-sized hugetlb entry, PT_ATTR_SHARED_TABLE asked on demand */
#define __PT_ATTR_PMD_TABLE	BIT(29)
#define __PT_ATTR_PRIVATE	(__PT_ATTR_RAW_PTE | __PT_ATTR_RAW_PMD | \
				 __PT_ATTR_PMD_TABLE)

/**
 * struct pt_iter - the current entry of a page table walk
 * @addr: first address of the current entry.
 * @end: end (exclusive) of the current entry.  Entries are clipped to the
 *	range being walked; %PT_ATTR_CLIPPED says when the leaf is larger.
 * @type: what the entry maps.
 * @level: the level of the entry.
 * @folio: the folio (%PT_ITER_FOLIO, %PT_ITER_MIGRATION, %PT_ITER_DEVICE;
 *	NULL for %PT_ITER_FOLIO with %PT_ITER_NO_PAGE).
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
 *	(holes but those of a PTE table, whose lock is held).
 *
 * This is the caller's half of a walk: the entry, and the cursor of the
 * inline step.  The walk itself (locks, tables, pending holes) is in a
 * struct pt_iter_state that only the out-of-line code (and the inline leaf
 * step of %PT_ITER_INLINE_LEAVES) touches, so that a loop that does not
 * pass @it to out-of-line functions of its own can keep the whole of it in
 * registers.  The remaining fields are private: use the
 * accessors (pt_iter_attrs(), pt_iter_pfn(), pt_iter_swp(), ...).
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
	unsigned int _attrs;		/* PT_ATTR_*, or __PT_ATTR_RAW_* */
	unsigned int _flags;		/* of pt_iter_start() */
	unsigned long _next;		/* where the next step starts */
	unsigned long _fast_end;	/* the inline step runs below this */
	pte_t *_nextp;			/* the PTE at _next, below _fast_end */
	unsigned long _pfn;		/* for pt_iter_pfn() */
	swp_entry_t _swp;
	struct pt_iter_state *_st;	/* the walk; NULL once it has ended */
};

/**
 * struct pt_iter_state - the walk behind a struct pt_iter
 * @cur: the entry the out-of-line code (or the inline leaf step) found
 *	last, copied to the caller's struct pt_iter by pt_iter_next().
 *
 * Private to mm/pt_iter.c; for_each_pt_entry() declares one for its loop.
 * A caller that drives pt_iter_start()/pt_iter_next() by hand provides one
 * that lives as long as the walk.
 */
struct pt_iter_state {
	struct pt_iter cur;

	/* private: */
	struct vm_area_struct *vma;
	unsigned long range_start;	/* the walk */
	unsigned long range_end;
	unsigned long table_end;	/* of the PTE table, clamped */
	pte_t *pte_table;		/* mapped and locked PTE table, or NULL */
	spinlock_t *pte_ptl;		/* the PTE table's lock */
	pud_t *pudp;			/* a PUD entry pointing to a PMD table */
	unsigned long pud_end;		/* what it covers, clamped */
	unsigned long hole_start;	/* start of a pending hole, or 1 */
	enum pt_iter_level hole_level;	/* level of the pending hole */
	bool hole_in_table;		/* it began in the locked PTE table */
	bool walk_locked;		/* hugetlb VMA lock held */
	unsigned long hsize;		/* hugetlb page size, or 0 */
	unsigned long leaf_end;		/* the inline leaf step runs below */
	struct hstate *hstate;		/* of a hugetlb VMA */
};

void __pt_iter_start(struct pt_iter_state *s, struct vm_area_struct *vma,
		     unsigned long start, unsigned long end, unsigned int flags);
/* What __pt_iter_next_or_table() found (__pt_iter_next(): entry or end). */
enum {
	__PT_ITER_END,		/* the end of the walk */
	__PT_ITER_ENTRY,	/* an entry, in s->cur */
	__PT_ITER_TABLE,	/* a PTE table, for the inline step */
};

bool __pt_iter_next(struct pt_iter_state *s, unsigned long next, pte_t pte);
int __pt_iter_next_or_table(struct pt_iter_state *s, unsigned long next);
unsigned int __pt_iter_pte_batch(struct pt_iter_state *s, struct folio *folio,
				 struct page *page, pte_t *ptep, pte_t pte,
				 unsigned long addr);
unsigned int __pt_iter_pte_run(struct pt_iter_state *s, pte_t *ptep, pte_t pte,
			       unsigned long addr);
void __pt_iter_end(struct pt_iter_state *s);
void __pt_iter_pause(struct pt_iter_state *s, unsigned long resume);
bool __pt_iter_table_shared(pte_t *ptep);
unsigned long __pt_iter_none_run(pte_t *ptep, unsigned long max);

/* From mm/internal.h, for the inline check below. */
extern unsigned long highest_memmap_pfn;

/* The walk's flags, with every type wanted if the caller named none. */
static __always_inline unsigned int __pt_iter_flags(unsigned int flags)
{
	return flags & PT_ITER_WANT_ALL ? flags : flags | PT_ITER_WANT_ALL;
}

/**
 * pt_iter_start - prepare a walk of a VMA range
 * @it: the caller's iterator, which receives the entries.
 * @s: the walk's state, which must live until the walk ends.
 * @vma: the VMA to walk.  The walk of a VMA of no mm (the gate VMA of
 *	x86's vsyscall page, which /proc shows with a task's VMAs) is empty.
 * @start: first address to walk, page aligned, within @vma.
 * @end: end of the walk, page aligned, at most @vma->vm_end.
 * @flags: %PT_ITER_HOLES to be told about holes, %PT_ITER_BATCH to get
 *	consecutive PTEs of one folio as one entry, %PT_ITER_IGNORE_* for the
 *	bits a batch may differ in, %PT_ITER_NO_PAGE if the pages of present
 *	entries are not needed, %PT_ITER_INLINE_LEAVES to step from leaf to
 *	leaf of a PMD table inline, PT_ITER_WANT() of the types wanted (all
 *	if none is given).  Best a compile-time constant: the inline step
 *	then tests none of them at run time.
 *
 * Takes no lock: the first pt_iter_next() does.  Usually called through
 * for_each_pt_entry().
 *
 * Context: this task holds the mmap lock (read or write) or the VMA lock
 * of @vma for the whole walk; may sleep (between tables, the walk calls
 * cond_resched()).  The caller holds no spinlock.
 * Return: @it.
 */
static __always_inline struct pt_iter *
pt_iter_start(struct pt_iter *it, struct pt_iter_state *s,
	      struct vm_area_struct *vma, unsigned long start,
	      unsigned long end, unsigned int flags)
{
	__pt_iter_start(s, vma, start, end, flags);
	*it = (struct pt_iter) {
		._flags = __pt_iter_flags(flags),
		._next = s->cur._next,
		._st = s,
	};
	return it;
}

/**
 * pt_iter_end - end a walk
 * @it: the iterator.
 *
 * Drops every lock the iterator holds; the iterator then returns no more
 * entries.  for_each_pt_entry() calls it however its loop is left; a caller
 * that drives pt_iter_next() by hand calls it when it stops before the end.
 * Calling it again is harmless.
 */
static inline void pt_iter_end(struct pt_iter *it)
{
	if (it->_st)
		__pt_iter_end(it->_st);
	it->_st = NULL;
	it->_fast_end = 0;
	it->ptl = NULL;
}

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
 * of the caller's own, nor %PT_ATTR_SHARED_TABLE be asked for (it is
 * looked up through @ptep).  The mmap or VMA lock must stay held.
 */
static inline void pt_iter_pause(struct pt_iter *it, unsigned long resume)
{
	if (!it->_st)
		return;
	__pt_iter_pause(it->_st, resume);
	it->_next = it->_st->cur._next;
	it->_fast_end = 0;
	it->ptl = NULL;
}

/*
 * The slow path of pt_iter_next(), from @next on: the out-of-line step,
 * then the entry it found copied into the caller's iterator.  The copy is
 * inline so that the compiler sees every field of @it written here: the
 * caller's struct pt_iter never needs to live in memory.  With @table, the
 * step may instead stop at a PTE table it has just mapped and locked, whose
 * entries the inline step then reads from @it->_next on: the first entry
 * of a table is not decoded out of line and copied.  Without @table, @pte
 * is the PTE at @next if the inline step read it and left it to the slow
 * path, which then need not read it again.
 */
static __always_inline int __pt_iter_slow(struct pt_iter *it,
					  unsigned long next, bool table,
					  pte_t pte)
{
	struct pt_iter_state *s = it->_st;
	unsigned int flags = it->_flags;
	int ret = __PT_ITER_END;

	if (s && table)
		ret = __pt_iter_next_or_table(s, next);
	else if (s)
		ret = __pt_iter_next(s, next, pte);

	if (likely(ret == __PT_ITER_ENTRY)) {
		*it = s->cur;
		/* The same values, known to the compiler where constant. */
		it->_flags = flags;
		it->_st = s;
		return ret;
	}
	if (table && ret == __PT_ITER_TABLE) {
		it->ptl = s->cur.ptl;
		it->_next = s->cur._next;
		it->_nextp = s->cur._nextp;
		it->_fast_end = s->cur._fast_end;
		return ret;
	}
	/* The walk has ended and dropped its locks. */
	it->_st = NULL;
	it->_fast_end = 0;
	it->ptl = NULL;
	return __PT_ITER_END;
}

/*
 * An entry of the inline step: @size bytes of the locked PTE table from
 * @addr, whose first PTE is @ptep.  The lock stays that of the entry
 * before.  The level is set although it is the same, and the type and
 * attribute mode are constants here: a consumer that tests them first
 * (type, level, pt_iter_has()) has its tests resolved by the compiler on
 * the way from the inline step, which then goes straight to its usual case.
 */
static __always_inline void
__pt_iter_set_pte(struct pt_iter *it, enum pt_iter_type type,
		  unsigned long addr, pte_t *ptep, unsigned long size,
		  struct folio *folio, struct page *page, pte_t pte,
		  unsigned long pfn, unsigned int attrs)
{
	it->addr = addr;
	it->end = addr + size;
	it->level = PT_ITER_PTE;
	it->_next = it->end;
	it->_nextp = ptep + (size >> PAGE_SHIFT);
	it->type = type;
	it->folio = folio;
	it->page = page;
	it->pte = pte;
	it->ptep = ptep;
	it->_pfn = pfn;
	it->_attrs = attrs;
}

/*
 * The inline step with %PT_ITER_HOLES, at the empty PTE @ptep of @addr: the
 * empty PTEs from there on are a hole of the locked table, which ends at
 * the first PTE that is not empty, or where the table (or the walk) does:
 * the inline step reaches that far, and a hole of PTEs does not go past
 * its table.
 */
static __always_inline bool __pt_iter_hole(struct pt_iter *it,
					   unsigned long addr, pte_t *ptep)
{
	unsigned long nr = ((it->_fast_end - addr) >> PAGE_SHIFT) - 1;

	nr = 1 + __pt_iter_none_run(ptep + 1, nr);

	/* As the slow path reports a hole of the locked table. */
	__pt_iter_set_pte(it, PT_ITER_NONE, addr, ptep, nr << PAGE_SHIFT,
			  NULL, NULL, __pte(0), 0, 0);
	return true;
}

#ifdef CONFIG_TRANSPARENT_HUGEPAGE
/*
 * Whether vm_normal_page_pmd() of the present THP leaf @pmd of pfn @pfn,
 * in a VMA that is not a pfn mapping, surely finds a page: told inline.
 * The rest (special and devmap PMDs, the huge zero page) is for the real
 * thing.  Not for direct use.
 */
static __always_inline bool __pt_iter_pmd_normal(pmd_t pmd, unsigned long pfn)
{
	return !pmd_special(pmd) && !pmd_devmap(pmd) &&
	       pfn <= highest_memmap_pfn && pfn != READ_ONCE(huge_zero_pfn);
}
#endif

/*
 * The inline leaf step of %PT_ITER_INLINE_LEAVES: from a present PMD-level
 * leaf to the next entry of its PMD table, at @addr, below @s->leaf_end.
 * The leaf was a THP of a VMA that is not a pfn mapping, or a PMD-sized
 * hugetlb page, and its lock is held (the slow path sets leaf_end for
 * nothing else, and clears it when it moves on, pauses or ends).  If the
 * next entry is a present leaf of the same kind, it is the entry, under
 * the lock the last one held: the entries of a PMD table share it.  The
 * lock is let go (by the slow path) if this CPU should reschedule or
 * another one waits for it.  The step reads the last leaf from @s->cur,
 * not @it, whose fields then need not be kept from one entry to the next,
 * and writes the new one to both.  The slow path's pt_iter_leaf_next()
 * does the same without this flag, and for cont-PMD hugetlb.
 */
static __always_inline bool __pt_iter_leaf(struct pt_iter *it,
					   struct pt_iter_state *s,
					   unsigned long addr)
{
	struct pt_iter *cur = &s->cur;
	unsigned long end = addr + PMD_SIZE;
	unsigned long pfn;

	if (need_resched() || spin_is_contended(cur->ptl))
		return false;
	if (cur->_attrs & PT_ATTR_HUGETLB) {
#ifdef CONFIG_HUGETLB_PAGE
		pte_t *ptep = (pte_t *)((pmd_t *)cur->ptep + 1);
		pte_t pte = huge_ptep_get(s->vma->vm_mm, addr, ptep);

		if (!pte_present(pte))
			return false;
		pfn = pte_pfn(pte);
		cur->pte = pte;
		cur->ptep = ptep;
		it->pte = pte;
		it->ptep = ptep;
#else
		return false;
#endif
	} else {
#ifdef CONFIG_TRANSPARENT_HUGEPAGE
		pmd_t *pmdp = cur->pmdp + 1;
		pmd_t pmd = pmdp_get(pmdp);

		/*
		 * What vm_normal_page_pmd() surely finds a page for (the VMA
		 * is not a pfn mapping); the rest is for the slow path.
		 */
		if (!pmd_trans_huge(pmd) || !pmd_present(pmd))
			return false;
		pfn = pmd_pfn(pmd);
		if (!__pt_iter_pmd_normal(pmd, pfn))
			return false;
		cur->pmd = pmd;
		cur->pmdp = pmdp;
		it->pmd = pmd;
		it->pmdp = pmdp;
#else
		return false;
#endif
	}
	/* Clipped by the end of the walk, if leaf_end is that. */
	cur->addr = addr;
	cur->end = min(end, s->leaf_end);
	cur->_next = cur->end;
	cur->_pfn = pfn;
	cur->_attrs &= ~PT_ATTR_CLIPPED;
	if (cur->end != end)
		cur->_attrs |= PT_ATTR_CLIPPED;
	if (!(it->_flags & PT_ITER_NO_PAGE)) {
		/* The leaf maps its folio whole, from the first page. */
		cur->page = pfn_to_page(pfn);
		cur->folio = (struct folio *)cur->page;
	}
	it->type = PT_ITER_FOLIO;
	it->level = PT_ITER_PMD;
	it->ptl = cur->ptl;
	it->addr = addr;
	it->end = cur->end;
	it->_next = cur->end;
	it->_pfn = pfn;
	it->_attrs = cur->_attrs;
	it->_fast_end = 0;
	it->folio = cur->folio;
	it->page = cur->page;
	return true;
}

/**
 * pt_iter_next - advance to the next entry
 * @it: the iterator, set up by pt_iter_start().
 *
 * Moves to the entry after the current one, dropping and taking
 * page-table locks as needed.  A present PTE of the PTE table that is
 * already mapped and locked, mapping a normal page that is not part of a
 * contpte block, is decoded here, inline, as are the empty PTEs before it
 * when the walk does not report holes, and a hole that ends before the end
 * of that table when it does; everything else (other holes, swap entries,
 * special PTEs, a new table, a leaf at a higher level, hugetlb) takes the
 * slow path, but with %PT_ITER_INLINE_LEAVES the step from a present THP
 * or PMD-sized hugetlb page to the next one of its PMD table.
 * The inline step only runs after an entry of the same PTE table, or once
 * the slow path has mapped and locked the table and set @ptl, so @ptl
 * stays what it is (and @level, which it sets all the same); the leaf step
 * after a leaf of the same PMD table, whose lock it keeps.
 *
 * Context: see pt_iter_start().
 * Return: true with the entry in @it (and @it->ptl held, if not NULL);
 * false when the range is exhausted, with every lock dropped.
 */
static __always_inline bool pt_iter_next(struct pt_iter *it)
{
	unsigned long addr = it->_next;
	pte_t *ptep = it->_nextp;
	struct folio *folio;
	struct page *page;
	unsigned long pfn;
	unsigned int nr;
	pte_t pte;
	int ret;

	if (unlikely(addr >= it->_fast_end)) {
		if ((it->_flags & PT_ITER_INLINE_LEAVES) && it->_st &&
		    addr < it->_st->leaf_end && __pt_iter_leaf(it, it->_st, addr))
			return true;
		ret = __pt_iter_slow(it, addr, true, __pte(0));
		if (ret != __PT_ITER_TABLE)
			return ret == __PT_ITER_ENTRY;
		addr = it->_next;
		ptep = it->_nextp;
	}
	pte = ptep_get(ptep);
	if (unlikely(!pte_present(pte))) {
		if ((it->_flags & PT_ITER_HOLES) && pte_none(pte))
			return __pt_iter_hole(it, addr, ptep);
		/* Empty PTEs are skipped here. */
		if (pte_none(pte)) {
			nr = ((it->_fast_end - addr) >> PAGE_SHIFT) - 1;
			nr = 1 + __pt_iter_none_run(ptep + 1, nr);
			addr += (unsigned long)nr << PAGE_SHIFT;
			ptep += nr;
			if (addr >= it->_fast_end)
				goto slow;
			pte = ptep_get(ptep);
		}
		/* Swap-format entries are for the slow path. */
		if (!pte_present(pte))
			goto slow;
	}
	/* And contpte blocks. */
	if (unlikely(pte_leaf_size(pte) != PAGE_SIZE))
		goto slow;
	/*
	 * vm_normal_page(), for what it finds quickly: a PTE that is not
	 * special maps a normal page if its pfn has a memmap.  Special PTEs
	 * (the zero page, pfn mappings) and bad pfns go to the slow path,
	 * which asks vm_normal_page() itself.
	 */
	if (IS_ENABLED(CONFIG_ARCH_HAS_PTE_SPECIAL)) {
		if (unlikely(pte_special(pte)))
			goto slow;
		pfn = pte_pfn(pte);
		if (unlikely(pfn > highest_memmap_pfn))
			goto slow;
		page = pfn_to_page(pfn);
	} else {
		page = vm_normal_page(it->_st->vma, addr, pte);
		if (unlikely(!page))
			goto slow;
		pfn = pte_pfn(pte);
	}
	nr = 1;
	if (it->_flags & PT_ITER_NO_PAGE) {
		folio = NULL;
		page = NULL;
		/* A run goes on only to a present PTE: look before calling. */
		if ((it->_flags & PT_ITER_BATCH) &&
		    addr + PAGE_SIZE < it->_fast_end &&
		    pte_present(ptep_get(ptep + 1)))
			nr = __pt_iter_pte_run(it->_st, ptep, pte, addr);
	} else {
		folio = page_folio(page);
		if ((it->_flags & PT_ITER_BATCH) && folio_test_large(folio))
			nr = __pt_iter_pte_batch(it->_st, folio, page, ptep,
						 pte, addr);
	}

	__pt_iter_set_pte(it, PT_ITER_FOLIO, addr, ptep,
			  (unsigned long)nr << PAGE_SHIFT, folio, page, pte,
			  pfn, __PT_ATTR_RAW_PTE);
	return true;
slow:
	return __pt_iter_slow(it, addr, false, pte) != __PT_ITER_END;
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
 * Context: for a hugetlb entry, its lock held (whether its PMD table is
 * shared is looked up here).
 * Return: a mask of %PT_ATTR_* bits.
 */
static inline unsigned int pt_iter_attrs(const struct pt_iter *it)
{
	unsigned int attrs = it->_attrs & ~__PT_ATTR_PRIVATE;

	if (it->_attrs & __PT_ATTR_RAW_PTE)
		attrs |= __pt_iter_pte_attrs(it->pte, __PT_ATTR_PTE_BITS);
	else if (it->_attrs & __PT_ATTR_RAW_PMD)
		attrs |= __pt_iter_pmd_attrs(it->pmd, __PT_ATTR_PTE_BITS);
	if ((it->_attrs & __PT_ATTR_PMD_TABLE) &&
	    __pt_iter_table_shared(it->ptep))
		attrs |= PT_ATTR_SHARED_TABLE;
	return attrs;
}

/**
 * pt_iter_has - whether the current entry has one of some attributes
 * @it: the iterator, positioned on an entry.
 * @mask: %PT_ATTR_* bits.
 *
 * Cheaper than pt_iter_attrs(): with a constant @mask only the bits asked
 * for are decoded.
 *
 * Context: as for pt_iter_attrs().
 * Return: true if pt_iter_attrs() has any bit of @mask set.
 */
static __always_inline bool pt_iter_has(const struct pt_iter *it,
					unsigned int mask)
{
	unsigned int bits = mask & __PT_ATTR_PTE_BITS;
	unsigned int other = mask & ~__PT_ATTR_PTE_BITS;

	/*
	 * Whether a hugetlb PMD table is shared is only asked here; with the
	 * entry's pointer, not @it, which would then have to live in memory.
	 */
	if ((mask & PT_ATTR_SHARED_TABLE) &&
	    (it->_attrs & __PT_ATTR_PMD_TABLE) &&
	    __pt_iter_table_shared(it->ptep))
		return true;
	/* A raw entry has none of its own bits in _attrs. */
	if (bits && (it->_attrs & __PT_ATTR_RAW_PTE))
		return (other && (it->_attrs & other)) ||
		       __pt_iter_pte_attrs(it->pte, bits);
	if (bits && (it->_attrs & __PT_ATTR_RAW_PMD))
		return (other && (it->_attrs & other)) ||
		       __pt_iter_pmd_attrs(it->pmd, bits);
	return it->_attrs & mask;
}

/**
 * pt_iter_pfn - the pfn mapped at the start of the current entry
 * @it: the iterator, positioned on an entry.
 *
 * Return: the pfn at @it->addr for present entries and for swap-format
 * entries that carry one (migration, device, hwpoison); 0 otherwise.  The
 * pages of an entry larger than a page have consecutive pfns, but those of
 * a run of a %PT_ITER_NO_PAGE walk: only its first pfn is known.
 */
static inline unsigned long pt_iter_pfn(const struct pt_iter *it)
{
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
 * Only for the iterator of a walk that is on, or has ended (not for a copy
 * of it kept beyond its loop: the walk's state is gone then).
 *
 * Return: true while a page-table lock, a mapped PTE table or the hugetlb
 * VMA lock is held by the walk.
 */
static inline bool pt_iter_holds_locks(const struct pt_iter *it)
{
	const struct pt_iter_state *s = it->_st;

	return s && (s->cur.ptl || s->pte_table || s->walk_locked);
}

/* End the walk of @it if it has not ended: the loop's cleanup. */
static __always_inline void __pt_iter_cleanup(struct pt_iter *it)
{
	if (it && it->_st)
		pt_iter_end(it);
}

DEFINE_FREE(__pt_iter, struct pt_iter *, __pt_iter_cleanup(_T))

/*
 * __pt_iter_start() and the steps write every field of the walk's state
 * before it is read: no need for CONFIG_INIT_STACK_ALL_ZERO to clear it
 * first, once per walk (a walk of a VMA of a few pages is short).
 */
#if __has_attribute(__uninitialized__)
#define __pt_iter_uninit	__attribute__((__uninitialized__))
#else
#define __pt_iter_uninit
#endif

/*
 * The loop of for_each_pt_entry(), over the walk whose state is @st: its
 * variable ends the walk when it goes out of scope.
 */
#define __pt_iter_loop(it, st, vma, start, end, flags)			\
	for (struct pt_iter *__pt_it __free(__pt_iter) =		\
		pt_iter_start(it, st, vma, start, end, flags);		\
	     pt_iter_next(__pt_it);)

/**
 * for_each_pt_entry - walk the page table entries of a VMA range
 * @it: a struct pt_iter on the caller's stack.
 * @vma: the VMA.
 * @start: first address (page aligned, inside @vma).
 * @end: end address (page aligned, at most @vma->vm_end).
 * @flags: %PT_ITER_HOLES, %PT_ITER_BATCH, %PT_ITER_IGNORE_*,
 *	%PT_ITER_NO_PAGE, %PT_ITER_INLINE_LEAVES, PT_ITER_WANT() of the
 *	types wanted.
 *
 * A loop whose body sees one entry per iteration, with @it->ptl held when
 * it is not NULL.  However the loop is left (its end, break, return, goto),
 * every lock of the walk is dropped: the loop's own variable ends the walk
 * when it goes out of scope.  The fields of @it stay readable, but its
 * pointers and locks are no longer valid, and neither is the answer of
 * pt_iter_attrs() or pt_iter_has() about %PT_ATTR_SHARED_TABLE, which is
 * looked up through them.  The outer loop only provides
 * the walk's state (it runs once); __pt_iter_loop() is the walk.
 */
#define for_each_pt_entry(it, vma, start, end, flags)			\
	for (struct pt_iter_state __pt_st __pt_iter_uninit,		\
	     *__pt_once = &__pt_st;					\
	     __pt_once; __pt_once = NULL)				\
		__pt_iter_loop(it, &__pt_st, vma, start, end, flags)

#endif /* _LINUX_PT_ITER_H */

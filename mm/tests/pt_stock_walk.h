/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hugetlb walk of walk_page_range() as Linux 6.12 had it, for the test
 * code that compares pt_iter with 6.12's callback walkers (the reference
 * walk of the KUnit tests, the baselines of the benchmark).
 *
 * struct mm_walk_ops loses its hugetlb callback in this series, and
 * mm/pagewalk.c its walk of a hugetlb VMA's entries; these walkers do not
 * use them.  A walker copied from 6.12 keeps its hugetlb callback beside
 * its mm_walk_ops in a struct pt_stock_walk_ops, and calls
 * pt_stock_walk_hugetlb() where 6.12 walked a hugetlb VMA: from its
 * ->test_walk() under walk_page_range(), before walk_page_vma() otherwise
 * (which calls no ->test_walk()).  The callback is called through a
 * pointer, as in 6.12, so that a baseline pays what 6.12 paid.  The tests
 * that include this depend on CONFIG_HUGETLB_PAGE.
 */
#ifndef _MM_TESTS_PT_STOCK_WALK_H
#define _MM_TESTS_PT_STOCK_WALK_H

#include <linux/hugetlb.h>
#include <linux/pagewalk.h>

/* A 6.12 walker: its callbacks, and the hugetlb callback it had. */
struct pt_stock_walk_ops {
	struct mm_walk_ops ops;
	int (*hugetlb)(pte_t *pte, unsigned long hmask, unsigned long addr,
		       unsigned long next, struct mm_walk *walk);
};

/**
 * pt_stock_walk_hugetlb() - Walk a hugetlb VMA as walk_page_range() of 6.12.
 * @addr: Start of the range, in @walk->vma.
 * @end: End of the range.
 * @walk: The walk; @walk->ops is the @ops member of a pt_stock_walk_ops.
 *
 * Each hugetlb entry of [@addr, @end) is handed to the hugetlb callback,
 * and a missing table to ->pte_hole() with depth -1, under the hugetlb VMA
 * lock; a callback's nonzero return stops the walk, as in 6.12.  A
 * negative one is returned; a positive one (pagemap's PM_END_OF_BUFFER)
 * is not told apart from "walked": from ->test_walk(), walk_page_range()
 * then goes on with the next VMA where 6.12 returned.  The pagemap
 * baseline fills its buffer only at the end of its range, where that
 * makes no difference.
 *
 * Return: 0 if @walk->vma is not a hugetlb VMA (walk it as usual), 1 if it
 * is and it was walked (skip it), or a negative error of a callback.
 */
static inline int pt_stock_walk_hugetlb(unsigned long addr, unsigned long end,
					struct mm_walk *walk)
{
	const struct pt_stock_walk_ops *sops =
		container_of_const(walk->ops, struct pt_stock_walk_ops, ops);
	struct vm_area_struct *vma = walk->vma;
	struct hstate *h;
	unsigned long hmask, sz, next;
	pte_t *pte;
	int err = 0;

	if (!is_vm_hugetlb_page(vma))
		return 0;
	if (!sops->hugetlb)
		return 1;

	h = hstate_vma(vma);
	hmask = huge_page_mask(h);
	sz = huge_page_size(h);
	hugetlb_vma_lock_read(vma);
	do {
		next = min((addr & hmask) + sz, end);
		pte = hugetlb_walk(vma, addr & hmask, sz);
		if (pte)
			err = sops->hugetlb(pte, hmask, addr, next, walk);
		else if (sops->ops.pte_hole)
			err = sops->ops.pte_hole(addr, next, -1, walk);
		if (err)
			break;
	} while (addr = next, addr != end);
	hugetlb_vma_unlock_read(vma);

	return err < 0 ? err : 1;
}

/*
 * The ->test_walk() of a 6.12 walker that had none: walk_page_test()'s own
 * rule for a VM_PFNMAP VMA, then pt_stock_walk_hugetlb().
 */
static inline int pt_stock_test_walk(unsigned long start, unsigned long end,
				     struct mm_walk *walk)
{
	int err = 1;

	if (walk->vma->vm_flags & VM_PFNMAP) {
		if (walk->ops->pte_hole)
			err = walk->ops->pte_hole(start, end, -1, walk);
		return err ?: 1;
	}
	return pt_stock_walk_hugetlb(start, end, walk);
}

#endif /* _MM_TESTS_PT_STOCK_WALK_H */

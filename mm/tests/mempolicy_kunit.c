// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of queue_pages_range(), the page table walk of mbind() and
 * migrate_pages(), for what user space cannot set up or see: migration
 * entries that stay in place while the walk meets them, and the VMAs the
 * walk write-locks.  Included by mm/mempolicy.c.
 *
 * The tests map memory into an mm attached to the test thread
 * (kunit_vm_mmap()), fault it in from the kernel, replace some entries by
 * migration entries under the page table lock (and put them back before
 * the test ends), and queue the range with an empty node mask inverted:
 * every folio is misplaced, on any machine.
 */

#include <kunit/test.h>
#include <linux/mman.h>

/* Every folio is misplaced (empty mask, inverted), or none is. */
static long mp_test_queue(unsigned long start, unsigned long end,
			  bool misplaced, unsigned long flags,
			  struct list_head *pagelist)
{
	struct mm_struct *mm = current->mm;
	nodemask_t nodes;
	long ret;

	if (misplaced)
		nodes_clear(nodes);
	else
		nodes = node_states[N_MEMORY];
	mmap_read_lock(mm);
	ret = queue_pages_range(mm, start, end, &nodes,
				flags | MPOL_MF_INVERT, pagelist);
	mmap_read_unlock(mm);
	return ret;
}

/*
 * Put the folios of @pagelist back on the LRU (not only in a per-CPU
 * batch: the next walk isolates them again); returns how many there were.
 */
static size_t mp_test_putback(struct list_head *pagelist)
{
	size_t n = list_count_nodes(pagelist);

	putback_movable_pages(pagelist);
	lru_add_drain_all();
	return n;
}

static unsigned long mp_test_anon(struct kunit *test, unsigned long len,
				  unsigned long align, int advice)
{
	unsigned long addr;

	addr = kunit_vm_mmap(test, NULL, 0, len + align,
			     PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_ASSERT_NE(test, addr, 0UL);
	addr = ALIGN(addr, align);
	KUNIT_ASSERT_EQ(test, do_madvise(current->mm, addr, len, advice), 0);
	KUNIT_ASSERT_EQ(test, clear_user((void __user *)addr, len), 0UL);
	/* Off the per-CPU batches and on the LRU, to be isolated. */
	lru_add_drain_all();
	return addr;
}

/*
 * Replace the present PTEs of [@addr, @addr + @nr pages) by migration
 * entries of their pages, or (@restore) put the PTEs of @orig back.  The
 * folios stay mapped as far as rmap knows: only the walks of this test see
 * the change.  The mmap lock is held for writing.
 */
static bool __mp_test_swap_ptes(struct mm_struct *mm, unsigned long addr,
				unsigned int nr, pte_t *orig, bool restore)
{
	spinlock_t *ptl;	/* the PTE table's lock */
	swp_entry_t swp;
	unsigned int i;
	pte_t *ptep;

	ptep = pte_offset_map_lock(mm, pmd_off(mm, addr), addr, &ptl);
	if (!ptep)
		return false;
	/* For sparse: the RCU read lock pte_unmap_unlock() drops. */
	__acquire(RCU);
	for (i = 0; i < nr; i++, addr += PAGE_SIZE) {
		pte_t old = ptep_get_and_clear(mm, addr, ptep + i);

		if (restore) {
			set_pte_at(mm, addr, ptep + i, orig[i]);
			continue;
		}
		orig[i] = old;
		swp = make_readable_migration_entry(pte_pfn(old));
		set_pte_at(mm, addr, ptep + i, swp_entry_to_pte(swp));
	}
	flush_tlb_mm(mm);
	pte_unmap_unlock(ptep, ptl);
	return true;
}

static bool mp_test_swap_ptes(unsigned long addr, unsigned int nr,
			      pte_t *orig, bool restore)
{
	struct mm_struct *mm = current->mm;
	bool ok;

	mmap_write_lock(mm);
	ok = __mp_test_swap_ptes(mm, addr, nr, orig, restore);
	mmap_write_unlock(mm);
	return ok;
}

/*
 * Small pages, two of them under migration: each migration entry is a
 * folio that could not be queued, whether the folios are misplaced or not;
 * only MPOL_MF_STRICT without a move makes either an error.
 */
static void queue_pages_test_small(struct kunit *test)
{
	unsigned long a = mp_test_anon(test, 16 * PAGE_SIZE, PAGE_SIZE,
				       MADV_NOHUGEPAGE);
	unsigned long end = a + 16 * PAGE_SIZE;
	LIST_HEAD(pagelist);
	pte_t orig[2];

	/* All of them queued, nothing failed; STRICT alone: -EIO. */
	KUNIT_EXPECT_EQ(test, mp_test_queue(a, end, true, MPOL_MF_MOVE,
					    &pagelist), 0);
	KUNIT_EXPECT_EQ(test, mp_test_putback(&pagelist), 16);
	KUNIT_EXPECT_EQ(test, mp_test_queue(a, end, true, MPOL_MF_STRICT,
					    &pagelist), -EIO);
	KUNIT_EXPECT_EQ(test, mp_test_queue(a, end, false, MPOL_MF_STRICT,
					    &pagelist), 0);
	KUNIT_EXPECT_EQ(test, mp_test_putback(&pagelist), 0);

	KUNIT_ASSERT_TRUE(test, mp_test_swap_ptes(a + 5 * PAGE_SIZE, 2, orig,
						  false));
	KUNIT_EXPECT_EQ(test, mp_test_queue(a, end, true, MPOL_MF_MOVE,
					    &pagelist), 2);
	KUNIT_EXPECT_EQ(test, mp_test_putback(&pagelist), 14);
	KUNIT_EXPECT_EQ(test, mp_test_queue(a, end, false, MPOL_MF_MOVE,
					    &pagelist), 2);
	KUNIT_EXPECT_EQ(test, mp_test_putback(&pagelist), 0);
	KUNIT_EXPECT_EQ(test, mp_test_queue(a, end, false, MPOL_MF_STRICT,
					    &pagelist), -EIO);
	KUNIT_EXPECT_EQ(test, mp_test_queue(a + 6 * PAGE_SIZE, end, false,
					    MPOL_MF_STRICT | MPOL_MF_MOVE,
					    &pagelist), 1);
	KUNIT_EXPECT_EQ(test, mp_test_putback(&pagelist), 0);
	KUNIT_ASSERT_TRUE(test, mp_test_swap_ptes(a + 5 * PAGE_SIZE, 2, orig,
						  true));
}

#ifdef CONFIG_ARCH_ENABLE_THP_MIGRATION
/*
 * The THP at @a replaced by a PMD migration entry: one failure, also for
 * STRICT when nothing is misplaced.
 */
static void mp_test_thp_migration(struct kunit *test, unsigned long a)
{
	struct mm_struct *mm = current->mm;
	pmd_t *pmdp = pmd_off(mm, a);
	struct vm_area_struct *vma;
	LIST_HEAD(pagelist);
	spinlock_t *ptl;	/* the PMD's lock */
	swp_entry_t swp;
	pmd_t pmd;

	mmap_write_lock(mm);
	vma = vma_lookup(mm, a);
	ptl = pmd_lock(mm, pmdp);
	pmd = pmdp_huge_clear_flush(vma, a, pmdp);
	swp = make_readable_migration_entry(pmd_pfn(pmd));
	set_pmd_at(mm, a, pmdp, swp_entry_to_pmd(swp));
	spin_unlock(ptl);
	mmap_write_unlock(mm);

	KUNIT_EXPECT_EQ(test, mp_test_queue(a, a + PMD_SIZE, true,
					    MPOL_MF_MOVE, &pagelist), 1);
	KUNIT_EXPECT_EQ(test, mp_test_putback(&pagelist), 0);
	KUNIT_EXPECT_EQ(test, mp_test_queue(a, a + PMD_SIZE, false,
					    MPOL_MF_STRICT, &pagelist), -EIO);

	mmap_write_lock(mm);
	ptl = pmd_lock(mm, pmdp);
	pmdp_huge_get_and_clear(mm, a, pmdp);
	set_pmd_at(mm, a, pmdp, pmd);
	spin_unlock(ptl);
	mmap_write_unlock(mm);
}
#else
static void mp_test_thp_migration(struct kunit *test, unsigned long a)
{
}
#endif

/*
 * A THP: queued once whether one PMD or several batches of PTEs map it; a
 * PMD migration entry, then PTE migration entries of the PTE-mapped THP,
 * are one failure per entry.
 */
static void queue_pages_test_thp(struct kunit *test)
{
	unsigned long a = mp_test_anon(test, PMD_SIZE, PMD_SIZE,
				       MADV_HUGEPAGE);
	const unsigned long nr = PMD_SIZE / PAGE_SIZE;
	unsigned long m = a + nr / 4 * PAGE_SIZE;
	struct mm_struct *mm = current->mm;
	unsigned long end = a + PMD_SIZE;
	struct folio *folio = NULL;
	LIST_HEAD(pagelist);
	pte_t orig[3];
	pmd_t pmd;

	mmap_read_lock(mm);
	pmd = pmdp_get(pmd_off(mm, a));
	if (pmd_trans_huge(pmd)) {
		/* Held: the split queue must not split it under the test. */
		folio = pmd_folio(pmd);
		folio_get(folio);
	}
	mmap_read_unlock(mm);
	if (!folio)
		kunit_skip(test, "no PMD-mapped THP at %#lx", a);
	/* Nor khugepaged collapse it again once it is PTE-mapped. */
	KUNIT_EXPECT_EQ(test, do_madvise(mm, a, PMD_SIZE, MADV_NOHUGEPAGE), 0);

	KUNIT_EXPECT_EQ(test, mp_test_queue(a, end, true, MPOL_MF_MOVE,
					    &pagelist), 0);
	KUNIT_EXPECT_EQ(test, mp_test_putback(&pagelist), 1);
	mp_test_thp_migration(test, a);

	/* PTE-mapped around two holes: three batches, queued once. */
	KUNIT_EXPECT_EQ(test, do_madvise(mm, a + 5 * PAGE_SIZE, PAGE_SIZE,
					 MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, a + nr / 2 * PAGE_SIZE,
					 PAGE_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, mp_test_queue(a, end, true, MPOL_MF_MOVE,
					    &pagelist), 0);
	KUNIT_EXPECT_EQ(test, mp_test_putback(&pagelist), 1);

	/* Three of its PTEs under migration: three failures. */
	if (mp_test_swap_ptes(m, 3, orig, false)) {
		KUNIT_EXPECT_EQ(test, mp_test_queue(a, end, true, MPOL_MF_MOVE,
						    &pagelist), 3);
		KUNIT_EXPECT_EQ(test, mp_test_putback(&pagelist), 1);
		KUNIT_EXPECT_TRUE(test, mp_test_swap_ptes(m, 3, orig, true));
	} else {
		KUNIT_FAIL(test, "no PTE table at %#lx", a);
	}
	folio_put(folio);
}

#ifdef CONFIG_PER_VMA_LOCK
/* Whether @addr's VMA is write-locked (the mmap lock held for writing). */
static bool mp_test_vma_write_locked(unsigned long addr)
{
	unsigned int seq;

	return __is_vma_write_locked(vma_lookup(current->mm, addr), &seq);
}

/*
 * MPOL_MF_WRLOCK, as mbind() walks: each VMA of the range is write-locked
 * before its page tables are read, those beyond are not.
 */
static void queue_pages_test_wrlock(struct kunit *test)
{
	unsigned long a = mp_test_anon(test, 12 * PAGE_SIZE, PAGE_SIZE,
				       MADV_NOHUGEPAGE);
	struct mm_struct *mm = current->mm;
	nodemask_t nodes = node_states[N_MEMORY];
	bool locked[3];
	LIST_HEAD(pagelist);
	long ret;
	int i;

	/* Three VMAs: read-write, read-only, read-write. */
	KUNIT_ASSERT_EQ(test, kunit_vm_mmap(test, NULL, a + 4 * PAGE_SIZE,
					    4 * PAGE_SIZE, PROT_READ,
					    MAP_FIXED | MAP_PRIVATE |
					    MAP_ANONYMOUS, 0),
			a + 4 * PAGE_SIZE);
	mmap_write_lock(mm);
	ret = queue_pages_range(mm, a, a + 8 * PAGE_SIZE, &nodes,
				MPOL_MF_STRICT | MPOL_MF_INVERT |
				MPOL_MF_WRLOCK, &pagelist);
	for (i = 0; i < 3; i++)
		locked[i] = mp_test_vma_write_locked(a + i * 4 * PAGE_SIZE);
	mmap_write_unlock(mm);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, locked[0]);
	KUNIT_EXPECT_TRUE(test, locked[1]);
	KUNIT_EXPECT_FALSE(test, locked[2]);
}
#else
static void queue_pages_test_wrlock(struct kunit *test)
{
	kunit_skip(test, "no per-VMA locks");
}
#endif

static struct kunit_case mempolicy_test_cases[] = {
	KUNIT_CASE(queue_pages_test_small),
	KUNIT_CASE(queue_pages_test_thp),
	KUNIT_CASE(queue_pages_test_wrlock),
	{}
};

static struct kunit_suite mempolicy_test_suite = {
	.name = "mempolicy_queue_pages",
	.test_cases = mempolicy_test_cases,
};

kunit_test_suite(mempolicy_test_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of hwpoison_find_vaddr(), the page table walk with which
 * kill_accessing_process() finds the address a poisoned pfn is mapped at,
 * and the size it reports it with.  User space reaches that walk only
 * where a poisoned page stays mapped (a THP that could not be split); a
 * hugetlb page, or the hwpoison entry that replaces an unmapped page, only
 * on a machine check.  Included by mm/memory-failure.c.
 *
 * The tests map memory into an mm attached to the test thread
 * (kunit_vm_mmap()), fault it in from the kernel, and ask where the pfn of
 * one of its pages is mapped.  Some entries are replaced by hwpoison
 * entries under the page table lock, and put back before the test ends.
 */

#include <kunit/test.h>
#include <linux/mman.h>

/* The pfn mapped at @addr, which must be mapped. */
static unsigned long mf_test_pfn(struct kunit *test, unsigned long addr)
{
	struct page *page;
	unsigned long pfn;

	KUNIT_ASSERT_EQ(test, get_user_pages_fast(addr, 1, 0, &page), 1);
	pfn = page_to_pfn(page);
	put_page(page);
	return pfn;
}

/*
 * Where hwpoison_find_vaddr() finds @pfn mapped: its address and size
 * shift, or 0 and 0.
 */
static unsigned long mf_test_find(unsigned long pfn, short *shift)
{
	struct to_kill tk = { .tsk = current };
	struct mm_struct *mm = current->mm;
	bool found;

	mmap_read_lock(mm);
	found = hwpoison_find_vaddr(mm, pfn, &tk);
	mmap_read_unlock(mm);
	*shift = found ? tk.size_shift : 0;
	return found ? tk.addr : 0;
}

/* Expect @pfn to be found first at @addr, reported with @shift. */
static void mf_test_expect(struct kunit *test, unsigned long pfn,
			   unsigned long addr, short shift)
{
	short found_shift;

	KUNIT_EXPECT_EQ(test, mf_test_find(pfn, &found_shift), addr);
	KUNIT_EXPECT_EQ(test, found_shift, shift);
}

static unsigned long mf_test_anon(struct kunit *test, unsigned long len,
				  unsigned long align, int advice)
{
	unsigned long addr;

	addr = kunit_vm_mmap(test, NULL, 0, len + align,
			     PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, 0);
	KUNIT_ASSERT_TRUE(test, addr && !IS_ERR_VALUE(addr));
	addr = ALIGN(addr, align);
	/* Without THP, MADV_HUGEPAGE and MADV_NOHUGEPAGE are errors. */
	if (IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		KUNIT_ASSERT_EQ(test, do_madvise(current->mm, addr, len, advice),
				0);
	return addr;
}

/*
 * Replace the entry that maps @addr (a PTE, or a hugetlb entry of any size)
 * by a hwpoison entry of its pfn, as try_to_unmap() leaves one where a
 * poisoned page was mapped; or (@restore) put @orig back.  The folio stays
 * mapped as far as rmap knows: only the walks of this test see the change.
 * The entry is made as make_hwpoison_entry() makes it, without the folio
 * lock that it asserts (a sleeping lock, not to be taken under the page
 * table lock here).
 */
static bool mf_test_poison_entry(unsigned long addr, pte_t *orig,
				 bool restore)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long sz = PAGE_SIZE;
	spinlock_t *ptl;	/* the entry's page table lock */
	pte_t *ptep, old;
	swp_entry_t swp;

	mmap_write_lock(mm);
	vma = vma_lookup(mm, addr);
	if (!vma) {
		mmap_write_unlock(mm);
		return false;
	}
	if (is_vm_hugetlb_page(vma)) {
		sz = huge_page_size(hstate_vma(vma));
		addr = ALIGN_DOWN(addr, sz);
		hugetlb_vma_lock_read(vma);
		ptep = hugetlb_walk(vma, addr, sz);
		if (!ptep) {
			hugetlb_vma_unlock_read(vma);
			mmap_write_unlock(mm);
			return false;
		}
		ptl = huge_pte_lock(hstate_vma(vma), mm, ptep);
		old = huge_ptep_get_and_clear(mm, addr, ptep, sz);
		if (!restore) {
			*orig = old;
			swp = swp_entry(SWP_HWPOISON, pte_pfn(old));
		}
		set_huge_pte_at(mm, addr, ptep,
				restore ? *orig : swp_entry_to_pte(swp), sz);
		spin_unlock(ptl);
		hugetlb_vma_unlock_read(vma);
	} else {
		ptep = pte_offset_map_lock(mm, pmd_off(mm, addr), addr, &ptl);
		if (!ptep) {
			mmap_write_unlock(mm);
			return false;
		}
		/* For sparse: the RCU read lock pte_unmap_unlock() drops. */
		__acquire(RCU);
		old = ptep_get_and_clear(mm, addr, ptep);
		if (!restore) {
			*orig = old;
			swp = swp_entry(SWP_HWPOISON, pte_pfn(old));
		}
		set_pte_at(mm, addr, ptep,
			   restore ? *orig : swp_entry_to_pte(swp));
		pte_unmap_unlock(ptep, ptl);
	}
	flush_tlb_mm(mm);
	mmap_write_unlock(mm);
	return true;
}

/*
 * Small pages: a pfn is found at the page that maps it, by a present PTE
 * or a hwpoison entry; the shared zero page at the first address that
 * reads it; a pfn mapped nowhere, nowhere; a page of a file mapped twice,
 * at the lower address.
 */
static void hwpoison_test_small(struct kunit *test)
{
	unsigned long a, b, c, pfn, next_pfn;
	struct file *file;
	struct page *page;
	pte_t orig;
	char x;

	a = mf_test_anon(test, 8 * PAGE_SIZE, PAGE_SIZE, MADV_NOHUGEPAGE);
	b = a + 7 * PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, clear_user((void __user *)a, 6 * PAGE_SIZE),
			0UL);
	KUNIT_ASSERT_EQ(test, copy_from_user(&x, (void __user *)b, 1), 0UL);

	pfn = mf_test_pfn(test, a + 5 * PAGE_SIZE);
	mf_test_expect(test, pfn, a + 5 * PAGE_SIZE, PAGE_SHIFT);
	mf_test_expect(test, mf_test_pfn(test, a), a, PAGE_SHIFT);
	mf_test_expect(test, my_zero_pfn(b), b, PAGE_SHIFT);

	/* Unmapped for poison: the hwpoison entry still says where. */
	pfn = mf_test_pfn(test, a + 2 * PAGE_SIZE);
	next_pfn = mf_test_pfn(test, a + 3 * PAGE_SIZE);
	KUNIT_ASSERT_TRUE(test, mf_test_poison_entry(a + 2 * PAGE_SIZE, &orig,
						     false));
	mf_test_expect(test, pfn, a + 2 * PAGE_SIZE, PAGE_SHIFT);
	mf_test_expect(test, next_pfn, a + 3 * PAGE_SIZE, PAGE_SHIFT);
	KUNIT_ASSERT_TRUE(test, mf_test_poison_entry(a + 2 * PAGE_SIZE, &orig,
						     true));

	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	mf_test_expect(test, page_to_pfn(page), 0, 0);
	__free_page(page);

	/* Mapped twice: the walk is in address order, across VMAs. */
	file = shmem_file_setup("mf_test", 4 * PAGE_SIZE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	b = kunit_vm_mmap(test, file, 0, 4 * PAGE_SIZE,
			  PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	c = kunit_vm_mmap(test, file, 0, 4 * PAGE_SIZE,
			  PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	fput(file);
	KUNIT_ASSERT_TRUE(test, b && !IS_ERR_VALUE(b));
	KUNIT_ASSERT_TRUE(test, c && !IS_ERR_VALUE(c));
	KUNIT_ASSERT_EQ(test, clear_user((void __user *)b, 4 * PAGE_SIZE),
			0UL);
	pfn = mf_test_pfn(test, c + 3 * PAGE_SIZE);
	mf_test_expect(test, pfn, min(b, c) + 3 * PAGE_SIZE, PAGE_SHIFT);
}

/*
 * A THP: found at the base page that the pfn is, whether a PMD or batches
 * of PTEs map it, and reported as a base page.
 */
static void hwpoison_test_thp(struct kunit *test)
{
	unsigned long a, pfn, nr, idx[4];
	unsigned int i;

	if (!IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		kunit_skip(test, "no THP");
	nr = HPAGE_PMD_NR;
	idx[0] = 0;
	idx[1] = 1;
	idx[2] = nr / 2 + 1;
	idx[3] = nr - 2;
	a = mf_test_anon(test, PMD_SIZE, PMD_SIZE, MADV_HUGEPAGE);
	KUNIT_ASSERT_EQ(test, clear_user((void __user *)a, PMD_SIZE), 0UL);
	pfn = mf_test_pfn(test, a);
	if (!folio_test_pmd_mappable(pfn_folio(pfn)))
		kunit_skip(test, "no THP for the mapping");

	for (i = 0; i < ARRAY_SIZE(idx); i++)
		mf_test_expect(test, pfn + idx[i], a + idx[i] * PAGE_SIZE,
			       PAGE_SHIFT);

	/*
	 * Not to be collapsed again by khugepaged while the test looks; then
	 * mapped by PTEs, the last one gone.
	 */
	KUNIT_ASSERT_EQ(test, do_madvise(current->mm, a, PMD_SIZE,
					 MADV_NOHUGEPAGE), 0);
	KUNIT_ASSERT_EQ(test, do_madvise(current->mm, a + PMD_SIZE - PAGE_SIZE,
					 PAGE_SIZE, MADV_DONTNEED), 0);
	KUNIT_ASSERT_EQ(test, mf_test_pfn(test, a + PAGE_SIZE), pfn + 1);
	for (i = 0; i < ARRAY_SIZE(idx); i++)
		mf_test_expect(test, pfn + idx[i], a + idx[i] * PAGE_SIZE,
			       PAGE_SHIFT);
	mf_test_expect(test, pfn + nr - 1, 0, 0);
}

#ifdef CONFIG_HUGETLB_PAGE
/* Every hugetlb size the kernel has. */
static const void *mf_test_hugetlb_gen_params(const void *prev, char *desc)
{
	const struct hstate *h = prev ? (const struct hstate *)prev + 1 :
					hstates;

	if (h >= &hstates[hugetlb_max_hstate])
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%luK", huge_page_size(h) >> 10);
	return h;
}

/*
 * A hugetlb page of each size the kernel has (PMD, PUD, cont-PTE and
 * cont-PMD): found at the base page that the pfn is, by a present entry or
 * a hwpoison entry, and reported with the size of the hugetlb page.
 */
static void hwpoison_test_hugetlb(struct kunit *test)
{
	struct hstate *h = (struct hstate *)test->param_value;
	unsigned int shift = huge_page_shift(h);
	unsigned long nr = pages_per_huge_page(h);
	unsigned long a, pfn, idx[3];
	struct file *file;
	unsigned int i;
	pte_t orig;

	if (READ_ONCE(h->free_huge_pages) <= READ_ONCE(h->resv_huge_pages))
		kunit_skip(test, "no free hugetlb page of %luK",
			   huge_page_size(h) >> 10);
	file = hugetlb_file_setup(HUGETLB_ANON_FILE, 1UL << shift,
				  VM_NORESERVE, HUGETLB_ANONHUGE_INODE, shift);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	a = kunit_vm_mmap(test, file, 0, 1UL << shift,
			  PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	fput(file);
	KUNIT_ASSERT_TRUE(test, a && !IS_ERR_VALUE(a));
	KUNIT_ASSERT_EQ(test, clear_user((void __user *)a, PAGE_SIZE), 0UL);
	pfn = mf_test_pfn(test, a);
	idx[0] = 0;
	idx[1] = nr / 2 + 1;
	idx[2] = nr - 1;

	for (i = 0; i < ARRAY_SIZE(idx); i++)
		mf_test_expect(test, pfn + idx[i], a + idx[i] * PAGE_SIZE,
			       shift);
	mf_test_expect(test, pfn + nr, 0, 0);

	KUNIT_ASSERT_TRUE(test, mf_test_poison_entry(a, &orig, false));
	for (i = 0; i < ARRAY_SIZE(idx); i++)
		mf_test_expect(test, pfn + idx[i], a + idx[i] * PAGE_SIZE,
			       shift);
	KUNIT_ASSERT_TRUE(test, mf_test_poison_entry(a, &orig, true));
}
#endif /* CONFIG_HUGETLB_PAGE */

static struct kunit_case hwpoison_find_test_cases[] = {
	KUNIT_CASE(hwpoison_test_small),
	KUNIT_CASE(hwpoison_test_thp),
#ifdef CONFIG_HUGETLB_PAGE
	KUNIT_CASE_PARAM(hwpoison_test_hugetlb, mf_test_hugetlb_gen_params),
#endif
	{},
};

static struct kunit_suite hwpoison_find_test_suite = {
	.name = "memory-failure-find-vaddr",
	.test_cases = hwpoison_find_test_cases,
};

kunit_test_suite(hwpoison_find_test_suite);

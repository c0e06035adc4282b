# SPDX-License-Identifier: GPL-2.0
#
# Known bugs of the stock kernel that the series fixes, masked in both
# outputs of `make compare` before they are compared (run with -v arch=...).
# Each rule names the patch that fixes the bug; the unmasked outputs stay in
# build/logs/compare-{stock,patched}-$ARCH.out.  A rule masks as little as it
# can: the masked fields are replaced by what both kernels must still agree
# on.
#
# 1. smaps Shared_Hugetlb/Private_Hugetlb of hugetlb pages whose entry is
#    not in a PMD table (1G pages, in a PUD table; arm64's 64K cont-PTE
#    pages, in a PTE table), and the smaps_rollup totals that include
#    them.  Stock asks hugetlb_pmd_shared() of such a table and reads its
#    page's pt_index (whatever was left there) as a PMD table's share
#    count: a page mapped once can show as Shared_Hugetlb.  Under QEMU
#    x86_64 a 1G page always does; arm64's 64K pages do on some boots and
#    not on others.  Fixed by fs/proc/0015-fs-proc-task_mmu-ask-about-PMD-
#    table-sharing-only-for-PMD-sized-hugetlb.patch.  The sum of the two
#    fields is still compared.
# 2. The same bug in pagemap: stock can leave PM_MMAP_EXCLUSIVE (bit 56,
#    0x2 in the printed flags) off the entries of such a page mapped once.
#    Fixed by the same patch.  Only that bit is masked.
#
# 3. The same bug in mbind(): stock leaves such a page mapped once where it
#    is on MPOL_MF_MOVE, as if it were mapped twice (mpcheck's
#    hugetlb-1G-private, and arm64's 64K ones on some boots).
#    Fixed by mm/0025-mm-mempolicy-ask-about-PMD-table-sharing-only-for-
#    PMD-sized-hugetlb.patch.  The nodes of the numa_maps line after that
#    call are masked; the calls after it (a move back to node 0, then
#    MOVE_ALL) bring both kernels to the same state.
#
# 4. smaps Swap of a private writable mapping of shmem whose large folios
#    are swapped out (pmcheck's shmem-64k-private and -private-half), and
#    smaps_rollup's Swap, their sum.  Stock counts the whole of a large
#    swap entry each time it asks shmem about a part of it: for each empty
#    PTE (16 times a 64K folio), and all of one that the mapping begins or
#    ends inside.  Fixed by mm/0014-mm-shmem-count-only-the-pages-of-a-
#    large-swap-entry-in-range.patch.  Whether the field is 0 is still
#    compared.  smaps_rollup's Swap is masked in every dump; expect.awk
#    checks that it is the sum of the catalogue's smaps Swap, which holds
#    as long as nothing outside the catalogue is swapped out.
# 5. A PUD leaf outside hugetlb (dxcheck's device-dax, 1G): every reader
#    of 6.12 that has PMD or PTE callbacks and no PUD one zaps it
#    (split_huge_pud() in walk_pud_range(), counted in thp_split_pud) and
#    reports its range as the hole it then is: pagemap not present (the
#    VMA's soft-dirty bit only), PAGEMAP_SCAN not present, mincore() not
#    resident.  The series reads it as what it maps (present, its pfns,
#    resident; no page, as for a device-dax PMD) and leaves it mapped; only
#    clear_refs still zaps it.  The conversions to pt_iter keep the zap;
#    fixed by fs/proc/0037-fs-proc-task_mmu-leave-PUD-leaves-outside-
#    hugetlb-mapped-on-read.patch, mm/0038-mm-leave-PUD-leaves-outside-
#    hugetlb-mapped-in-mbind-mincore-and-memory-failure.patch and
#    mm/damon/0039-mm-damon-vaddr-leave-PUD-leaves-outside-hugetlb-
#    mapped.patch.  Masked: each thp_split_pud growth but
#    clear_refs', pagemap's flags and pfns, PAGEMAP_SCAN's categories and
#    the count of resident pages; smaps and numa_maps are compared whole.
# The same fields in pmap -X's columns (pmcheck prints what pmap says of
# the catalogue) are masked the same way.
#
# A mask hides what the patched kernel prints in those fields, so
# expect.awk checks them there: what each field must be for a page mapped
# once or twice, of every hugetlb size, and the swap of each shmem-64k
# mapping and the sum of all.

function hugetlb_pair(prefix) {
	if ($0 ~ "^" prefix "Shared_Hugetlb:") {
		held = $(NF - 1)
		return 1
	}
	if ($0 ~ "^" prefix "Private_Hugetlb:" && held != "") {
		printf "%sHugetlb (masked, stock bug 1): %d kB\n", prefix,
		       held + $(NF - 1)
		held = ""
		return 1
	}
	return 0
}

/^smaps / { in_odd = ($2 ~ /hugetlb-(1G|64K)/) }
/^[^ ]/ && !/^smaps / { in_odd = 0 }

# pmap -X lines (pmcheck's dump_pmap()): the same fields, as columns.
/^pmap header / {
	# Address, Perm, Offset, then (no Device, Inode) Size and on.
	for (i = 3; i <= NF; i++)
		col[$i] = i < 6 ? i - 1 : i > 7 ? i - 3 : 0
}
/^pmap [^ ]*hugetlb-(1G|64K)/ && col["Shared_Hugetlb"] {
	$col["Private_Hugetlb"] += $col["Shared_Hugetlb"]
	$col["Shared_Hugetlb"] = "-"
	$0 = $0 " (masked, stock bug 1)"
	masked++
}
/^pmap shmem-64k-private/ && col["Swap"] {
	$col["Swap"] = $col["Swap"] ? "not-0" : "0"
	$0 = $0 " (masked, stock bug 4)"
	masked++
}

/^smaps / { in_swap = ($2 ~ /^shmem-64k-private/) }
/^[^ ]/ && !/^smaps / { in_swap = 0 }

in_odd && hugetlb_pair("  ") { masked++; next }
(in_swap && /^  Swap:/) || /^rollup Swap:/ {
	sub(/Swap: .*/, "Swap: " ($(NF - 1) ? "not 0" : "0") \
			" (masked, stock bug 4)")
	masked++
}
/^rollup / && hugetlb_pair("rollup ") { masked++; next }
# Bit 0x2 is in the last hex digit of the flags ($4, "0x..."): clear it.
/^pagemap [^ ]*hugetlb-(1G|64K)/ {
	last = substr($4, length($4))
	i = index("2367abef", last)
	if (i)
		$4 = substr($4, 1, length($4) - 1) substr("0145899c", i, 1)
	$0 = $0 " (masked, stock bug 2)"
	masked++
}

/^DXCHECK: BEGIN$/ { in_dx = 1 }
/^DXCHECK: END$/ { in_dx = 0 }
in_dx && /^[a-zA-Z_ ]+: thp_split_pud \+[0-9]+$/ && !/^clear_refs / {
	sub(/\+[0-9]+$/, "(masked, stock bug 5)")
	masked++
}
in_dx && /^pagemap: flags / {
	$0 = "pagemap: (masked, stock bug 5)"
	masked++
}
in_dx && /^PAGEMAP_SCAN: .* categories / {
	gsub(/categories 0x[0-9a-f]+/, "categories (masked, stock bug 5)")
	masked++
}
in_dx && /^mincore: [0-9]+ of / {
	sub(/^mincore: [0-9]+/, "mincore: (masked, stock bug 5)")
	masked++
}

/^= / { mp_case = $2; mp_moved = 0 }
mp_case ~ /^hugetlb-(1G|64K)-(private|shared)$/ && /^  mbind\(.*, MOVE\) = / {
	mp_moved = 1
}
mp_moved && /^  numa_maps / {
	gsub(/ N[0-9]+=[0-9]+/, "")
	$0 = $0 " (masked, stock bug 3)"
	masked++
	mp_moved = 0
}

{ print }

END { if (masked) print "masked " masked " lines" > "/dev/stderr" }

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
#    not on others.  Fixed by fs/proc/0014-fs-proc-task_mmu-ask-about-PMD-
#    table-sharing-only-for-PMD-sized-hugetlb.patch.  The sum of the two
#    fields is still compared.
# 2. The same bug in pagemap: stock can leave PM_MMAP_EXCLUSIVE (bit 56,
#    0x2 in the printed flags) off the entries of such a page mapped once.
#    Fixed by the same patch.  Only that bit is masked.
#
# A mask hides what the patched kernel prints in those fields, so
# expect.awk checks them there: what each field must be for a page mapped
# once or twice, of every hugetlb size.

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

in_odd && hugetlb_pair("  ") { masked++; next }
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

{ print }

END { if (masked) print "masked " masked " lines" > "/dev/stderr" }

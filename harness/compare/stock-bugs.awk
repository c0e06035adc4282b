# SPDX-License-Identifier: GPL-2.0
#
# Known bugs of the stock kernel that the series fixes, masked in both
# outputs of `make compare` before they are compared (run with -v arch=...).
# Each rule names the patch that fixes the bug; the unmasked outputs stay in
# build/logs/compare-{stock,patched}-$ARCH.out.  A rule masks as little as it
# can: the masked fields are replaced by what both kernels must still agree
# on.
#
# 1. x86_64: smaps Shared_Hugetlb/Private_Hugetlb of 1G hugetlb pages, and
#    the smaps_rollup totals that include them.  Stock asks
#    hugetlb_pmd_shared() of the PUD table holding a 1G entry and reads its
#    pt_index as a PMD table's share count, which under QEMU x86_64 is not
#    zero: a 1G page mapped once shows as Shared_Hugetlb.  Fixed by
#    fs/proc/0014-fs-proc-task_mmu-smaps-ask-about-PMD-table-sharing-only-
#    for-PMD-sized-hugetlb.patch.  The sum of the two fields is still
#    compared; arm64, where stock happens to read zero, compares the split.
# 2. x86_64: the same bug in pagemap: stock leaves PM_MMAP_EXCLUSIVE (bit
#    56, 0x2 in the printed flags) off the entries of a 1G page mapped
#    once.  Fixed by the same patch.  Only that bit is masked; arm64
#    compares it.

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

/^smaps / { in_1g = ($2 ~ /hugetlb-1G/) }
/^[^ ]/ && !/^smaps / { in_1g = 0 }

arch == "x86_64" && in_1g && hugetlb_pair("  ") { masked++; next }
arch == "x86_64" && /^rollup / && hugetlb_pair("rollup ") { masked++; next }
# Bit 0x2 is in the last hex digit of the flags ($4, "0x..."): clear it.
arch == "x86_64" && /^pagemap [^ ]*hugetlb-1G/ {
	last = substr($4, length($4))
	i = index("2367abef", last)
	if (i)
		$4 = substr($4, 1, length($4) - 1) substr("0145899c", i, 1)
	$0 = $0 " (masked, stock bug 2)"
	masked++
}

{ print }

END { if (masked) print "masked " masked " lines" > "/dev/stderr" }

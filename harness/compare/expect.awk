# SPDX-License-Identifier: GPL-2.0
#
# What the patched kernel must print where stock-bugs.awk masks stock's
# output: run on the unmasked patched output of `make compare`; prints one
# line per violation and exits non-zero if there is one.
#
# Every hugetlb mapping of the catalogue (hugetlb-*, wp-hugetlb-*) is
# mapped by its process alone, except in the dump taken after fork, where
# the child still maps the pages of the private ones, and those of
# hugetlb-2M-shared-pmd through the PMD table it shares.  So, for each hugetlb VMA of each dump:
# - smaps: Shared_Hugetlb is 0 for a page mapped once, Private_Hugetlb is
#   0 for a page mapped twice (stock bug 1 breaks the first);
# - pagemap: a present page (0x100 in the printed flags) has
#   PM_MMAP_EXCLUSIVE (0x2) when mapped once and not when mapped twice
#   (stock bug 2 breaks the first);
# - smaps_rollup: Shared_Hugetlb and Private_Hugetlb are the sums of the
#   dump's smaps fields.
# - pmcheck's shmem-64k: 512K of its shared memory, 64K folios from 256K
#   on, are swapped out.  smaps Swap of the shared mapping and of a private
#   one from 32K on (a walk of empty PTEs) is 512 kB; of a private one
#   from 288K to 544K, which begins and ends half way into a swapped out
#   folio, 256 kB (stock bug 4 breaks both private ones).  smaps_rollup's
#   Swap is the sum of the dump's smaps fields.
# - mpcheck: a hugetlb page mapped once (hugetlb-*-private, -shared) is
#   on node 1 after mbind(MPOL_MF_MOVE) to node 1; one mapped twice (by a
#   child after fork, or through a PMD table shared with a child) stays on
#   node 0 then, and is on node 1 after MPOL_MF_MOVE_ALL (stock bug 3
#   breaks the first).
# - dmcheck: DAMON finds the regions written all the time accessed and
#   those written once not, small pages, THP and hugetlb of every size.
# - pmcheck's page-idle: folios marked idle through the bitmap are young
#   while most of their PTEs (the THP's PMD) are old: the bitmap says which
#   stayed idle (two of the four mTHPs, the THP; it answers for a large
#   folio's first page only), smaps counts every page as Referenced in
#   the catalogue and after fork, none once clear_refs 1 cleared the folios'
#   young flags.
# - pmcheck's rollup-race: smaps_rollup read while a writer waits for the
#   mmap lock is what it is of the quiet process.
# - pmap -X: each column it shows of a VMA of the catalogue is what smaps
#   said of it in the same dump.
# - mfcheck: each of its five SIGBUS of memory failure's page table walk
#   names the address the poisoned page is mapped at, as a base page.
# - crcheck: CRIU restores the process it checkpointed with every page as
#   the process last wrote it (small pages, mTHPs, THPs), and with at
#   least as many writes as it had made before the dump (not an older,
#   consistent state), the restored process exits 0, and no CRIU step
#   failed; on x86_64 (soft-dirty tracking: the awk variable arch) after
#   two pre-dumps.
# - dxcheck (x86_64): the readers leave a device-dax PUD leaf mapped
#   (thp_split_pud does not grow) but clear_refs, which zaps it (stock bug
#   5 zaps it on every read); pagemap shows each of its pages present, a
#   file page (no page to count, as for a device-dax PMD: 0x140 in the
#   printed flags), with consecutive pfns from a 1G boundary; PAGEMAP_SCAN
#   one region, present and huge (0x48 of the categories); mincore() every
#   page resident.
# The checks hold for every hugetlb size, those of the masks (1G, arm64's
# 64K) included; run on stock's output, they fail where stock's bug shows.

function fail(msg) {
	printf "expect.awk: %s: %s: %s\n", dump, msg, $0
	failed++
}

function shared(vma) {
	return dump ~ /^after fork/ &&
	       vma ~ /^hugetlb-[^-]*-(private|shared-pmd)/
}

function hexval(s,    i, v) {
	v = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}

/^= / {
	dump = substr($0, 3)
	sum["Shared_Hugetlb"] = sum["Private_Hugetlb"] = sum["Swap"] = 0
	split("", smaps)
	call = ""
	next
}

# mpcheck's hugetlb cases: the numa_maps line after a move to node 1.
dump ~ /^hugetlb-/ && /^  mbind\(/ { call = $0; next }
dump ~ /^hugetlb-/ && /^  numa_maps / && call ~ /bind:1, (STRICT\|)?MOVE(_ALL)?\) = 0$/ {
	twice = dump ~ /-forked$|-shared-pmd$/ && call !~ /MOVE_ALL/
	if (twice ? $0 !~ / N0=/ || $0 ~ / N1=/ : $0 ~ / N0=/)
		fail(dump (twice ? " is mapped twice: moved" : \
				   " is mapped once: not moved") " by " call)
	checked++
	call = ""
}
# dmcheck: DAMON saw the regions written again and again accessed in its
# last aggregation, and those written once not.
/^region .*, written again and again: / {
	if ($0 !~ /: accessed$/)
		fail("written all the time, not seen accessed")
	checked++
}
/^region .*, written once: / {
	if ($0 !~ /: not accessed$/)
		fail("written once, seen accessed")
	checked++
}

# mfcheck: where a poisoned THP stays mapped, poisoning it again walks the
# page tables, and the SIGBUS names the address that maps the page.
/^MFCHECK: BEGIN$/ { dump = "mfcheck" }
/^  again \(walk\): / {
	if ($0 !~ /SIGBUS BUS_MCEERR_AR at .* lsb 12, as expected$/)
		fail("memory failure's walk did not find the page")
	walks++
	checked++
}

# crcheck: CRIU's checkpoint and restore lose no write.
/^CRCHECK: BEGIN$/ { dump = "crcheck" }
/^CRCHECK: END$/ { dump = "" }
dump == "crcheck" && /^! / { fail("a CRIU step failed") }
dump == "crcheck" && /^(small|mthp|thp): [0-9]+ pages differ$/ {
	if ($2 != 0)
		fail("the restored process found pages it had not written")
	cr_regions++
	checked++
}
dump == "crcheck" && /^restored victim exited with status 0$/ { cr_exits++ }
dump == "crcheck" && /^restored victim kept its writes$/ { cr_kept++ }
dump == "crcheck" && /^soft-dirty tracking: no$/ { cr_predumps-- }
dump == "crcheck" && /^criu pre-dump [12]: done$/ { cr_predumps++ }

# dxcheck: a PUD leaf outside hugetlb, read as what it maps and not zapped.
/^DXCHECK: BEGIN$/ { dump = "dxcheck" }
/^DXCHECK: END$/ { dump = "" }
dump == "dxcheck" && /^! / { fail("a device-dax step failed") }
dump == "dxcheck" && /^device-dax: 1024 MB mapped at a 1G boundary$/ {
	dx_mapped++
}
dump == "dxcheck" && /: thp_split_pud \+[0-9]+$/ {
	if ($NF != (/^clear_refs / ? "+1" : "+0"))
		fail(/^clear_refs / ? "not zapped" : "zapped")
	dx_readers++
	checked++
}
dump == "dxcheck" && /^pagemap: flags / {
	if (!/^pagemap: flags 0x1[4-7][0-9a-f] from page 0; 1 run, pfns consecutive from a 1G boundary$/)
		fail("not present with its pfns")
	checked++
}
dump == "dxcheck" && /^PAGEMAP_SCAN: .* categories / {
	if ($2 != 1 || !/pages 0-262144 / ||
	    int(hexval($NF) / 8) % 2 == 0 || int(hexval($NF) / 64) % 2 == 0)
		fail("not one present, huge region")
	checked++
}
dump == "dxcheck" && /^mincore: [0-9]+ of / {
	if ($2 != $4)
		fail("not all resident")
	checked++
}

/^[^ ]/ { vma = "" }
/^smaps / {
	vma = $2
	start = vma
	sub(/-\+.*/, "", start)
	next
}
# Each field of the dump's smaps, for pmap's lines below.
vma != "" && /^  [A-Za-z_]+: / {
	field = substr($1, 1, length($1) - 1)
	smaps[start, field] = $2
}

# pmap -X (a client of smaps): each column it shows of a VMA is what smaps
# said of it in the same dump.
/^pmap header / {
	# Address, Perm, Offset, then (no Device, Inode) Size and on.
	for (i = 3; i <= NF; i++)
		col[$i] = i < 6 ? i - 1 : i > 7 ? i - 3 : 0
	next
}
/^pmap: / { fail("pmap failed"); next }
/^pmap / && ($2, "Rss") in smaps {
	if (!col["Rss"])
		fail("no pmap header before its lines")
	for (f in col)
		if (col[f] > 4 && ($2, f) in smaps && $col[f] != smaps[$2, f])
			fail("pmap shows " f " " $col[f] ", smaps " \
			     smaps[$2, f])
	pmaps++
	next
}
/^pmap / { fail("pmap shows a VMA that smaps did not") }

/^page-idle-/ {
	want = $1 == "page-idle-64k:" ? "2 of 64" : "1 of 512"
	if ($2 " " $3 " " $4 != want)
		fail("not " want " pages idle")
	idles++
	checked++
}
# pmcheck's rollup-race: every smaps_rollup read while a writer contends
# for the mmap lock says what the quiet process's says.
/^rollup-race: / {
	if ($0 !~ /^rollup-race: 0 of [0-9]+ reads unlike the quiet one$/)
		fail("smaps_rollup under a contended mmap lock is not the quiet one")
	races++
	checked++
}
vma ~ /^page-idle-/ && /^  Referenced:/ {
	want = dump ~ /^(catalogue|after fork)/ ? smaps[start, "Rss"] : 0
	if ($2 != want || !smaps[start, "Rss"])
		fail(vma ": not " want " kB Referenced")
	idle_smaps++
	checked++
}

vma != "" && /^  (Shared|Private)_Hugetlb:/ {
	field = substr($1, 1, length($1) - 1)
	sum[field] += $2
	if (vma !~ /hugetlb-/)
		next
	if ($2 != 0 && field == (shared(vma) ? "Private_Hugetlb" : \
					       "Shared_Hugetlb"))
		fail(vma (shared(vma) ? " is mapped twice" : \
					" is mapped once"))
	checked++
}

vma != "" && /^  Swap:/ {
	sum["Swap"] += $2
	if (vma !~ /^shmem-64k-/)
		next
	want = vma ~ /^shmem-64k-private-half/ ? 256 : 512
	if ($2 != want)
		fail(vma " has " want " kB of its range swapped out")
	shmem_swaps++
	checked++
}

/^rollup (Shared|Private)_Hugetlb:|^rollup Swap:/ {
	field = substr($2, 1, length($2) - 1)
	if ($3 != sum[field])
		fail("the smaps of the dump sum to " sum[field] " kB")
	checked++
}

# int(v / 2^n) % 2 is bit n: mawk has no and().
/^pagemap [^ ]*hugetlb-/ && $4 ~ /^0x/ && int(hexval($4) / 256) % 2 {
	if ((int(hexval($4) / 2) % 2 == 0) != shared($2))
		fail($2 (shared($2) ? " is mapped twice" : " is mapped once"))
	checked++
}

END {
	if (!checked) {
		print "expect.awk: nothing to check" > "/dev/stderr"
		exit 1
	}
	# thp-pinned 1, thp-pte-pinned 2, mthp64K-pinned 1, shmem-thp-twice 1
	if (walks != 5)
		fail(walks " memory failure walks, not 5")
	if (!pmaps)
		fail("no pmap line")
	if (!shmem_swaps)
		fail("no shmem-64k mapping")
	if (races != 1)
		fail(races " rollup-race lines, not 1")
	if (idles != 2 || idle_smaps < 2)
		fail(idles " page-idle bitmap lines, " idle_smaps " smaps")
	# Only x86_64's guest has persistent memory (and 6.12 PUD device-dax).
	dump = "dxcheck"
	if (arch == "x86_64" && (dx_mapped != 1 || dx_readers != 10))
		fail(dx_mapped + 0 " mappings, " dx_readers + 0 " readers")
	# x86_64's kernels have soft-dirty tracking: two pre-dumps there.
	dump = "crcheck"
	if (cr_regions != 3 || cr_exits != 1 || cr_kept != 1 ||
	    cr_predumps != (arch == "x86_64" ? 2 : -1))
		fail(cr_regions + 0 " regions checked, " cr_exits + 0 \
		     " exits, " cr_kept + 0 " kept, " cr_predumps + 0 \
		     " pre-dumps")
	printf "expect.awk: %d hugetlb, swap, idle, rollup, DAMON, CRIU, device-dax and memory failure fields and %d pmap lines checked, %d wrong\n",
	       checked, pmaps, failed
	exit failed != 0
}

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make lpae`: the stock-versus-patched guest of 32-bit ARM with LPAE, the
# one architecture here whose PROT_NONE THP has a PMD that pmd_present()
# calls not present, and whose unsigned long is 32 bits (the PSS of a
# PMD-sized folio).  It builds two kernels with harness/lpae/lpae.config
# (QEMU's virt machine, a Cortex-A15): the stock Linux 6.12 (build/base)
# and the patched one (build/linux, with harness/lpae/lpae-debug.config on
# top: DEBUG_VM and lockdep), boots each under QEMU with
# harness/lpae/lpcheck as /init, and compares what lpcheck prints line by
# line.  The lines that differ, each as "- stock" then "+ patched", must
# be exactly harness/lpae/expected.diff: the differences from 6.12 that
# the README's table lists for this architecture.  A kernel warning, a
# step that could not be set up ("! " lines) or an unfinished run fails.
#
# Usage: harness/lpae.sh   (make lpae)
# Environment: JOBS (parallel build jobs, default nproc), TIMEOUT (seconds
# a guest may run, default 600).
# Output: build/out/lpae-{stock,patched}/ (kernels), build/out/lpae/
# (lpcheck, initramfs), build/logs/lpae-{stock,patched}.{log,out}
# (console, lpcheck's lines), build/logs/lpae.diff (what differed).  The
# last line is "N passed, N failed" (one check).

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DIR=$REPO/harness/lpae
JOBS=${JOBS:-$(nproc)}
TIMEOUT=${TIMEOUT:-600}
WORK=$OUT/lpae

[[ -f $BASE/Makefile && -f $TREE/mm/pt_iter.c ]] ||
	die "no build/base or build/linux: run 'make setup' first"

take_lock lpae
use_ccache
guest_machine arm
mkdir -p "$WORK" "$LOGS"

build_kernel "$BASE" "$OUT/lpae-stock" lpae-stock "$DIR/lpae.config"
build_kernel "$TREE" "$OUT/lpae-patched" lpae-patched "$DIR/lpae.config" \
	"$DIR/lpae-debug.config"

"$CC_USER" -static -O2 -Wall -D_FILE_OFFSET_BITS=64 -I "$REPO/harness/compare" \
	-o "$WORK/lpcheck" "$DIR/lpcheck.c"
{
	initramfs_dirs
	echo "file /init $WORK/lpcheck 0755 0 0"
} >"$WORK/initramfs.list"
make_initramfs "$WORK/initramfs.list" "$WORK/initramfs.cpio" \
	"$OUT/lpae-stock"

bad=0
for kernel in stock patched; do
	log="$LOGS/lpae-$kernel.log"
	out="$LOGS/lpae-$kernel.out"
	log "booting the $kernel kernel (build/logs/lpae-$kernel.log)"
	# panic=-1: a kernel that panics reboots, and QEMU (-no-reboot) exits.
	boot_guest "$OUT/lpae-$kernel/$IMAGE" "$WORK/initramfs.cpio" "$log" \
		"$APPEND panic=-1" || warn "the $kernel guest exited with status $?"
	# lpcheck's lines (each names its mapping), not the kernel's.
	sed -n '/^LPCHECK: BEGIN$/,/^LPCHECK: END$/p' "$log" |
		grep -E '^(LPCHECK: |! |(thp|huge zero|shmem|hugetlb)[ :,])' \
		>"$out" || true
	if ! grep -qx 'LPCHECK: END' "$out"; then
		warn "the $kernel guest did not get to LPCHECK: END"
		bad=1
	fi
	if grep -q '^! ' "$out"; then
		warn "the $kernel guest could not set everything up:"
		grep '^! ' "$out" | sed 's/^/  /' >&2
		bad=1
	fi
	if grep -qE "$SPLAT_RE" "$log"; then
		warn "the $kernel kernel complained:"
		grep -E "$SPLAT_RE" "$log" | head -10 | sed 's/^/  ! /' >&2
		bad=1
	fi
done

# The lines that differ, paired by their place in the two outputs.
awk 'NR == FNR { stock[FNR] = $0; n = FNR; next }
     { if (FNR > n || stock[FNR] != $0) {
		if (FNR <= n)
			print "- " stock[FNR]
		print "+ " $0
       }
       m = FNR }
     END { for (i = m + 1; i <= n; i++) print "- " stock[i] }' \
	"$LOGS/lpae-stock.out" "$LOGS/lpae-patched.out" >"$LOGS/lpae.diff"
if ! diff -u "$DIR/expected.diff" "$LOGS/lpae.diff" >&2; then
	warn "stock and patched differ in other lines than" \
	     "harness/lpae/expected.diff (above: - expected, + seen)"
	bad=1
fi

if ((bad)); then
	echo "0 passed, 1 failed"
	exit 1
fi
log "stock and patched differ as harness/lpae/expected.diff says" \
    "($(grep -c '^+' "$DIR/expected.diff") lines)"
echo "1 passed, 0 failed"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make compare`: the stock-versus-patched guest.  For each architecture,
# build two kernels with one configuration (harness/compare/*.config): the
# stock Linux 6.12 (build/base, unpatched) and the patched one (build/linux,
# with DEBUG_VM, PROVE_LOCKING and PAGE_TABLE_CHECK on top), boot each under
# QEMU (TCG) with a static /init, harness/compare/pmcheck, which builds a
# catalogue of mappings and prints what /proc says about each (and what
# procps' pmap -X, Debian's, says of them), and
# harness/compare/mpcheck, which moves a catalogue of its own between the
# NUMA nodes with mbind(), move_pages() and migrate_pages() and prints what
# they return and numa_maps after each, harness/compare/mccheck, which asks
# vmtouch (Debian's, a mincore() client) about files it laid out, and
# harness/compare/dmcheck, which has DAMON monitor regions it writes or
# not, and compare the two outputs byte for byte.  The output of the stock
# kernel is the reference: a difference fails, and so does a kernel
# warning in either.
# After pmcheck the guest runs the selftests of harness/compare/
# selftests.list; their results must be the same on both kernels too.
# On arm64 each kernel boots twice more, selftests only, with
# default_hugepagesz=64K and 32M (the list's arm64/64K and arm64/32M).
# The patched kernel has the KUnit tests of mm/tests/.kunitconfig built
# in and runs them at boot; /init copies their KTAP to the console between
# "KUNIT: BEGIN" and "KUNIT: END", which `make test` parses and counts
# (this script only fails on a kernel splat they cause).
#
# Usage: harness/compare.sh            (ARCHS="x86_64 arm64", the default)
#        ARCHS=x86_64 harness/compare.sh
# Environment:
#   ARCHS     architectures (x86_64, arm64)
#   JOBS      parallel build jobs (default: nproc)
#   TIMEOUT   seconds a guest may run (default: 1200)
#   SELFTESTS 0 to leave the selftests out
#
# With BENCH=1, the bench mode instead: the patched kernel is built
# without the debug options (build/out/compare-patched-bench-$ARCH), both
# kernels boot under QEMU's
# -icount shift=0,sleep=off (guest time counts instructions) with
# "pmcheck=bench", pmcheck maps one large layout at a time and times reads
# of smaps, smaps_rollup, numa_maps, pagemap, PAGEMAP_SCAN and mbind()
# (median of 7), and the table of
# patched/stock ratios goes to build/logs/compare-bench.txt.
#
# Output: build/out/compare-{stock,patched}-$ARCH/ (kernel builds),
# build/out/compare-$ARCH/ (guest programs, initramfs),
# build/logs/compare-{stock,patched}-$ARCH.{log,out} (console, pmcheck
# output), build/logs/compare-{stock,patched}-arm64-{64K,32M}.log (the
# consoles of the other arm64 boots).  The last line is "N passed, N
# failed" (one check per architecture).

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CMP=$REPO/harness/compare
ARCHS=${ARCHS:-$DEFAULT_ARCHS}
JOBS=${JOBS:-$(nproc)}
TIMEOUT=${TIMEOUT:-1200}

step() { printf '%s: %s\n' "$PROG" "$*"; }

[[ -f $BASE/Makefile && -f $TREE/mm/pt_iter.c ]] ||
	die "no build/base or build/linux: run 'make setup' first"

# The selftests of harness/compare/selftests.list for $ARCH, static, into
# $WORK/st with the list /init reads; built from build/base against its
# own headers (Debian's libc headers are older than 6.12).
build_selftests() {
	local sel=$BASE/tools/testing/selftests hdr=$WORK/headers st=$WORK/st
	local name src archs secs args prog extra boot wanted srcfile
	if [[ ! -f $hdr/.installed ]]; then
		rm -rf "$hdr"
		make -s -C "$BASE" O="$OUT/compare-stock-$ARCH" "${MAKE_ARCH[@]}" \
			headers_install INSTALL_HDR_PATH="$hdr" >/dev/null
		touch "$hdr/.installed"
	fi
	rm -rf "$st"
	mkdir -p "$st/inc"
	# mm/cow.c wants check_config.sh's output: no liburing here.
	echo '/* no liburing */' >"$st/inc/local_config.h"
	for boot in "${BOOTS[@]}"; do
		: >"$st/$(boot_list "$boot")"
	done
	while read -r name src archs secs args; do
		[[ -z $name || $name == \#* ]] && continue
		prog=$(basename "$src" .c)
		wanted=0
		for boot in "${BOOTS[@]}"; do
			[[ ,$archs, == *,"$ARCH${boot:+/$boot}",* ]] || continue
			echo "$name $secs $prog $args" >>"$st/$(boot_list "$boot")"
			wanted=1
		done
		((wanted)) || continue
		[[ -f $st/$prog ]] && continue
		extra=()
		[[ $src == mm/* ]] && extra=(-include "$sel/kselftest.h"
			"$sel/mm/vm_util.c" "$sel/mm/thp_settings.c")
		[[ $prog == uffd-unit-tests ]] && extra+=("$sel/mm/uffd-common.c")
		# <lib/test_hmm_uapi.h> and <mm/gup_test.h>, from the tree.
		[[ $prog == hmm-tests ]] && extra+=(-idirafter "$BASE")
		[[ $prog == split_huge_page_test ]] && extra+=("$CMP/st_write.c"
			-Wl,--wrap=write,--wrap=close,--wrap=sync)
		srcfile=$sel/$src
		# khugepaged gives khugepaged 3 seconds (6 ticks of 500 ms) to
		# collapse; its first collapse takes 1.5 here, so that a host
		# busy elsewhere (a TCG guest's time is the host's) can make it
		# print "Timeout" on one kernel only: 30 seconds here.  It
		# stops waiting as soon as the collapse (or two full scans) is
		# done, so no test takes longer.
		if [[ $prog == khugepaged ]]; then
			srcfile=$st/khugepaged.c
			sed 's|^\(\s*int timeout = \)6; /\* 3 seconds \*/$|\160; /* 30 seconds: harness/compare.sh */|' \
				"$sel/$src" >"$srcfile"
			grep -q '^\s*int timeout = 60;' "$srcfile" ||
				die "$ARCH: mm/khugepaged.c: its 3-second wait_for_scan() timeout was not found"
		fi
		# __FILE__ without the path: pagemap_ioctl names files after it.
		"$CC_USER" -static -O2 -D_GNU_SOURCE -w -isystem "$hdr/include" \
			-fmacro-prefix-map="$sel/${src%/*}/=" \
			-fmacro-prefix-map="$st/=" \
			-I"$sel" -I"$sel/${src%%/*}" -I"$st/inc" -o "$st/$prog" \
			"$srcfile" "${extra[@]}" -lrt -lpthread -lm ||
			die "$ARCH: selftest $src does not build"
	done <"$CMP/selftests.list"
}

# Debian's programs that the guest runs as clients of what the series
# changes, for $ARCH, with the shared libraries they load, into
# $WORK/clients/ (the programs) and $WORK/clients/lib/: vmtouch (mincore(),
# for mccheck), procps' pmap (smaps, for pmcheck) and criu (clear_refs,
# pagemap and /proc/PID/map_files, for crcheck).  The arm64 packages come
# through dpkg's multiarch (the foreign architecture is added once).
CLIENT_PKGS=(vmtouch procps libproc2-0 libsystemd0 libcap2 libgcrypt20
	     libgpg-error0 liblzma5 libzstd1 liblz4-1
	     criu libbsd0 libmd0 libgnutls30 libnet1 libnftables1 libnl-3-200
	     libprotobuf-c1 libp11-kit0 libffi8 libidn2-0 libunistring2
	     libtasn1-6 libnettle8 libhogweed6 libgmp10 libmnl0 libnftnl11
	     libxtables12 libjansson4)
fetch_clients() {
	local debarch=${DEB_ARCH[$ARCH]} dir=$OUT/debs pkg debs missing=()
	local root=$WORK/clients/root triplet libdir lib
	mkdir -p "$dir"
	for pkg in "${CLIENT_PKGS[@]}"; do
		debs=("$dir/${pkg}_"*"_$debarch.deb")
		[[ -f ${debs[0]} ]] || missing+=("$pkg:$debarch")
	done
	if ((${#missing[@]})); then
		if [[ $debarch != $(dpkg --print-architecture) ]] &&
		   ! dpkg --print-foreign-architectures | grep -qx "$debarch"; then
			dpkg --add-architecture "$debarch"
			apt-get update -q >/dev/null
		fi
		(cd "$dir" && apt-get download -q "${missing[@]}" 2>&1 |
			grep -v 'unsandboxed as root' >&2) ||
			die "$ARCH: apt-get download ${missing[*]} failed"
	fi
	rm -rf "$WORK/clients" "$WORK/vmtouch"
	mkdir -p "$root" "$WORK/clients/lib"
	for pkg in "${CLIENT_PKGS[@]}"; do
		# The newest of those downloaded over time.
		dpkg-deb -x "$(printf '%s\n' "$dir/${pkg}_"*"_$debarch.deb" |
			       sort -V | tail -1)" "$root"
	done
	cp "$root/usr/bin/vmtouch" "$root/usr/bin/pmap" "$root/usr/sbin/criu" \
		"$WORK/clients/"
	case $ARCH in
	x86_64) triplet=x86_64-linux-gnu libdir=/lib/x86_64-linux-gnu ;;
	arm64) triplet=aarch64-linux-gnu libdir=/usr/aarch64-linux-gnu/lib ;;
	esac
	# The libraries by their sonames (the packages' symbolic links).
	find "$root/lib/$triplet" "$root/usr/lib/$triplet" -maxdepth 1 \
		-name 'lib*.so.[0-9]*' -type l 2>/dev/null |
		while read -r lib; do
			cp -L "$lib" "$WORK/clients/lib/"
		done
	cp -L "$libdir/libc.so.6" "$WORK/clients/lib/libc.so.6"
	cp -L "$libdir/${LD_SO##*/}" "$WORK/clients/ld.so"
}
declare -A DEB_ARCH=([x86_64]=amd64 [arm64]=arm64)

# The name, under /bin/st of the guest, of the selftest list of boot $1
# ("" for the first boot of an architecture).
boot_list() { echo "list${1:+-$1}"; }

# The results of the selftests in console log $1: per test, its TAP and
# pass/fail lines and how it ended, each prefixed with the test's name
# (and with $2, the boot, if given).
selftest_results() {
	# khugepaged's progress counters ("... 17/512...") are dropped: where
	# the console breaks those lines depends on timing; so are the counts
	# of pagemap_ioctl's transact_test (faults that raced with its scans).
	awk -v boot="${2:+$2/}" '/^SELFTEST: BEGIN / { t = boot $3; next }
	     /^SELFTEST: END / { print boot $3 ": " $4 " " $5; t = ""; next }
	     t == "" { next }
	     { gsub(/[^.]*[0-9]+\/[0-9]+\.\.\./, ""); gsub(/\.\.\.+/, "...")
	       gsub(/Extra pages [0-9]+ \([0-9.]+%\), extra thread faults [0-9]+/,
		    "Extra pages and faults (not compared)") }
	     /^(not )?ok [0-9]/ || /^# Totals/ || /^Bail out/ ||
	     /(OK|Fail|Skip)$/ || /^Testing .* on .*\.\.\. / ||
	     /^Userfaults unit tests:/ { print t ": " $0 }' "$1"
}

# smaps Swap of pmcheck's shmem-64k-private in the output $1, first dump.
shmem_swap() {
	awk '/^smaps / { v = $2 }
	     v ~ /^shmem-64k-private\+/ && /^  Swap:/ { print $2; exit }' "$1"
}

# The huge pages of each boot after the first (its default size).
declare -A BOOT_HUGE
passed=0
failed=0
use_ccache
take_lock compare
mkdir -p "$LOGS"
if [[ ${BENCH:-0} != 0 ]]; then
	printf '%-8s %-16s %-14s %12s %12s %7s\n' arch layout file stock \
		patched ratio >"$LOGS/compare-bench.txt"
fi
for ARCH in $ARCHS; do
	guest_machine "$ARCH"
	case $ARCH in
	x86_64)
		# 8G: room for two 1G hugetlb pages at boot, and 160M of 2M.
		HUGE="hugepagesz=1G hugepages=2 hugepagesz=2M hugepages=80"
		BOOTS=("")
		# And 2G more, above the 8G of RAM (3G below 4G, 5G above),
		# as persistent memory: dxcheck's device-dax, 1G of data
		# mapped by a PUD after its 1G-aligned info block.
		QEMU_ARGS=("${QEMU_ARGS[@]/#8G/10G}")
		HUGE+=" memmap=2G!9G"
		;;
	arm64)
		HUGE="hugepagesz=1G hugepages=2 hugepagesz=2M hugepages=80"
		HUGE+=" hugepagesz=64K hugepages=16 hugepagesz=32M hugepages=6"
		# Two more boots, selftests only, where the default hugetlb
		# size is cont-PTE (64K) and cont-PMD (32M): the selftests
		# that map the default size run on those (arm64/64K and
		# arm64/32M in selftests.list).  160M of each, as of 2M.
		BOOTS=("" 64K 32M)
		BOOT_HUGE=([64K]="default_hugepagesz=64K hugepagesz=64K hugepages=2560"
			   [32M]="default_hugepagesz=32M hugepagesz=32M hugepages=5")
		;;
	esac
	if [[ ${BENCH:-0} != 0 ]]; then
		# 256M of 2M pages and a 1G page for the layouts; the guest
		# clock counts instructions.  One CPU: under -icount the
		# timer of an idle second vCPU can go unserved for seconds
		# (an RCU stall, seen on x86_64 with the host busy).
		HUGE="hugepagesz=1G hugepages=1 hugepagesz=2M hugepages=136"
		APPEND+=" pmcheck=bench nr_cpus=1"
		QEMU_ARGS+=(-icount shift=0,sleep=off)
	fi
	# loglevel=5: warnings (and worse) reach the console, and fail.
	APPEND+=" panic=-1 loglevel=5"
	# A TCG vCPU's time is the host's: one the host leaves waiting (busy
	# elsewhere) for 21 seconds, the default, would be reported as an RCU
	# stall; a walk that really loops still is, after a minute (as in
	# make stress).
	APPEND+=" rcupdate.rcu_cpu_stall_timeout=60"
	# The patched kernel runs its KUnit tests at boot (the suites of
	# mm/tests/.kunitconfig and harness/compare/kunit.config; /init
	# copies their results to the console).
	[[ ${BENCH:-0} != 0 ]] || APPEND+=" log_buf_len=1M"
	[[ ${BENCH:-0} == 0 && ${SELFTESTS:-1} != 0 ]] || BOOTS=("")
	WORK=$OUT/compare-$ARCH
	mkdir -p "$WORK" "$LOGS"
	ok=1

	for side in stock patched; do
		kout=$OUT/compare-$side-$ARCH
		frags=("$CMP/compare.config" "$CMP/compare-$ARCH.config")
		if [[ $side == stock ]]; then
			src=$BASE
		elif [[ ${BENCH:-0} != 0 ]]; then
			# Measured as built for production: no debug options.
			src=$TREE
			kout=$OUT/compare-patched-bench-$ARCH
		else
			src=$TREE
			frags+=("$CMP/debug.config" "$TREE/$KUNITCONFIG"
				"$CMP/kunit.config")
		fi
		build_kernel "$src" "$kout" "compare-$side-$ARCH" "${frags[@]}"
	done

	CFLAGS_USER=(-static -O2 -Wall -Wextra -Werror)
	"$CC_USER" "${CFLAGS_USER[@]}" -o "$WORK/init" "$CMP/init.c"
	"$CC_USER" "${CFLAGS_USER[@]}" -o "$WORK/pmcheck" "$CMP/pmcheck.c"
	"$CC_USER" "${CFLAGS_USER[@]}" -o "$WORK/mpcheck" "$CMP/mpcheck.c"
	"$CC_USER" "${CFLAGS_USER[@]}" -o "$WORK/mccheck" "$CMP/mccheck.c"
	"$CC_USER" "${CFLAGS_USER[@]}" -o "$WORK/dmcheck" "$CMP/dmcheck.c"
	"$CC_USER" "${CFLAGS_USER[@]}" -o "$WORK/mfcheck" "$CMP/mfcheck.c"
	"$CC_USER" "${CFLAGS_USER[@]}" -o "$WORK/crcheck" "$CMP/crcheck.c"
	"$CC_USER" "${CFLAGS_USER[@]}" -o "$WORK/dxcheck" "$CMP/dxcheck.c"
	fetch_clients
	rm -rf "$WORK/st"
	[[ ${BENCH:-0} != 0 || ${SELFTESTS:-1} == 0 ]] || build_selftests
	{
		initramfs_dirs
		cat <<LIST
file /init $WORK/init 0755 0 0
file /bin/pmcheck $WORK/pmcheck 0755 0 0
file /bin/mpcheck $WORK/mpcheck 0755 0 0
file /bin/mccheck $WORK/mccheck 0755 0 0
file /bin/dmcheck $WORK/dmcheck 0755 0 0
file /bin/mfcheck $WORK/mfcheck 0755 0 0
file /bin/crcheck $WORK/crcheck 0755 0 0
file /bin/dxcheck $WORK/dxcheck 0755 0 0
file /bin/criu $WORK/clients/criu 0755 0 0
file /bin/vmtouch $WORK/clients/vmtouch 0755 0 0
file /bin/pmap $WORK/clients/pmap 0755 0 0
file $LD_SO $WORK/clients/ld.so 0755 0 0
LIST
		for lib in "$WORK"/clients/lib/*; do
			echo "file /lib/${lib##*/} $lib 0755 0 0"
		done
	} >"$WORK/initramfs.list"
	if [[ -f $WORK/st/list ]]; then
		echo "dir /bin/st 0755 0 0"
		for boot in "${BOOTS[@]}"; do
			list=$(boot_list "$boot")
			echo "file /bin/st/$list $WORK/st/$list 0644 0 0"
		done
		while read -r _ _ prog _; do
			echo "file /bin/st/$prog $WORK/st/$prog 0755 0 0"
		done < <(cat "$WORK"/st/list* | sort -u -k3,3)
	fi >>"$WORK/initramfs.list"
	make_initramfs "$WORK/initramfs.list" "$WORK/initramfs.cpio" \
		"$OUT/compare-stock-$ARCH"

	for side in stock patched; do
		kout=$OUT/compare-$side-$ARCH
		[[ ${BENCH:-0} == 0 || $side == stock ]] ||
			kout=$OUT/compare-patched-bench-$ARCH
		: >"$LOGS/compare-$side-$ARCH.selftests"
		for boot in "${BOOTS[@]}"; do
			# The first boot: pmcheck, the selftests of the
			# architecture and (patched) KUnit; the others only
			# their selftests, with their default hugetlb size.
			name=$side-$ARCH${boot:+-$boot}
			log=$LOGS/compare-$name.log
			append="$APPEND $HUGE"
			if [[ -n $boot ]]; then
				append="$APPEND ${BOOT_HUGE[$boot]} pmcheck=none"
				append+=" selftests=$boot kunit.enable=0"
			fi
			t0=$SECONDS
			boot_guest "$kout/$IMAGE" "$WORK/initramfs.cpio" "$log" \
				"$append" || true
			selftest_results "$log" "$boot" \
				>>"$LOGS/compare-$side-$ARCH.selftests"
			if [[ -z $boot ]]; then
				sed -n '/^PMCHECK: BEGIN$/,/^PMCHECK: END$/p
					/^MPCHECK: BEGIN$/,/^MPCHECK: END$/p
					/^MCCHECK: BEGIN$/,/^MCCHECK: END$/p
					/^DMCHECK: BEGIN$/,/^DMCHECK: END$/p
					/^CRCHECK: BEGIN$/,/^CRCHECK: END$/p
					/^DXCHECK: BEGIN$/,/^DXCHECK: END$/p
					/^MFCHECK: BEGIN$/,/^MFCHECK: END$/p' \
					"$log" >"$LOGS/compare-$side-$ARCH.out"
				step "$ARCH: $side guest ran for $((SECONDS - t0))s: $(wc -l <"$LOGS/compare-$side-$ARCH.out") lines, $(selftest_results "$log" | grep -c ': exit \|: signal \|: lost') selftests"
				for check in PMCHECK MPCHECK CRCHECK DXCHECK MFCHECK; do
					[[ $check == PMCHECK || ${BENCH:-0} == 0 ]] ||
						continue
					grep -q "^$check: END" "$log" && continue
					warn "$ARCH: ${check,,} did not finish on the $side kernel (see $log)"
					ok=0
				done
			else
				step "$ARCH: $side guest with default_hugepagesz=$boot ran for $((SECONDS - t0))s: $(selftest_results "$log" | grep -c ': exit \|: signal \|: lost') selftests"
			fi
			# Each test of the boot's list ran (none of them
			# lost to a missing list or a guest that stopped).
			list=$WORK/st/$(boot_list "$boot")
			if [[ -f $list ]] &&
			   (($(grep -c '^SELFTEST: END ' "$log") != $(grep -c '' "$list"))); then
				warn "$ARCH: the $side guest${boot:+ ($boot)} ran $(grep -c '^SELFTEST: END ' "$log") of the $(grep -c '' "$list") selftests of its list (see $log)"
				ok=0
			fi
			if ! grep -q '^init: done$' "$log"; then
				warn "$ARCH: the $side guest${boot:+ ($boot)} did not get to its end (see $log)"
				ok=0
			fi
			if grep -qE "$SPLAT_RE" "$log"; then
				warn "$ARCH: the $side kernel${boot:+ ($boot)} logged a problem:"
				grep -E "$SPLAT_RE" "$log" | head -10 | sed 's/^/  ! /' >&2
				ok=0
			fi
		done
	done
	if [[ ${BENCH:-0} != 0 ]]; then
		# layout file stock patched ratio
		join -j1 <(awk '/^PMBENCH:/ { print $2 "/" $3, $4 }' \
			       "$LOGS/compare-stock-$ARCH.out" | sort) \
			 <(awk '/^PMBENCH:/ { print $2 "/" $3, $4 }' \
			       "$LOGS/compare-patched-$ARCH.out" | sort) |
		awk -v arch="$ARCH" '{ split($1, k, "/");
			printf "%-8s %-16s %-14s %12d %12d %7.3f\n", arch, k[1],
			       k[2], $2, $3, $3 / $2 }' >>"$LOGS/compare-bench.txt"
		if ((ok)); then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
		continue
	fi
	# Known stock bugs that the series fixes are masked in both outputs.
	for side in stock patched; do
		awk -v arch="$ARCH" -f "$CMP/stock-bugs.awk" \
			"$LOGS/compare-$side-$ARCH.out" \
			>"$LOGS/compare-$side-$ARCH.masked" 2>/dev/null
	done
	# What the patched kernel must print in the fields masked above.
	if ! awk -v arch="$ARCH" -f "$CMP/expect.awk" \
		"$LOGS/compare-patched-$ARCH.out" \
		>"$LOGS/compare-$ARCH.expect" 2>&1; then
		warn "$ARCH: the patched kernel's output fails expect.awk (build/logs/compare-$ARCH.expect):"
		head -20 "$LOGS/compare-$ARCH.expect" >&2
		ok=0
	fi
	if ! diff -u "$LOGS/compare-stock-$ARCH.masked" \
		"$LOGS/compare-patched-$ARCH.masked" >"$LOGS/compare-$ARCH.diff"; then
		warn "$ARCH: /proc differs between stock and patched (build/logs/compare-$ARCH.diff):"
		head -40 "$LOGS/compare-$ARCH.diff" >&2
		ok=0
	fi
	if ! diff -u "$LOGS/compare-stock-$ARCH.selftests" \
		"$LOGS/compare-patched-$ARCH.selftests" \
		>"$LOGS/compare-$ARCH.selftests.diff"; then
		warn "$ARCH: the selftests differ between stock and patched (build/logs/compare-$ARCH.selftests.diff):"
		head -40 "$LOGS/compare-$ARCH.selftests.diff" >&2
		ok=0
	fi
	# pmcheck's shmem-64k layout tests mm/0014 only if stock shows its
	# bug there: 64K swap entries, each counted again per empty PTE.
	if [[ $(shmem_swap "$LOGS/compare-stock-$ARCH.out") == \
	      "$(shmem_swap "$LOGS/compare-patched-$ARCH.out")" ]]; then
		warn "$ARCH: smaps Swap of shmem-64k-private is the same on both kernels: no 64K folio was swapped out, the layout tests nothing"
		ok=0
	fi
	# Stock's output and ours where they differ: the stock bugs the
	# series fixes, each line with its mask in the .masked files.
	diff -u "$LOGS/compare-stock-$ARCH.out" "$LOGS/compare-patched-$ARCH.out" \
		>"$LOGS/compare-$ARCH.stock-bugs.diff" || true
	if ((ok)); then
		step "$ARCH: stock bugs fixed: $(grep -c '^+[^+]' "$LOGS/compare-$ARCH.stock-bugs.diff") lines of ours differ from stock's, all masked (bug: lines $(grep -o 'stock bug [0-9]*' "$LOGS/compare-patched-$ARCH.masked" | sort | uniq -c | awk '{ printf "%s%s: %d", n++ ? ", " : "", $4, $1 }'); both outputs in build/logs/compare-$ARCH.stock-bugs.diff)"
		step "$ARCH: selftests: $(grep -c ': \(not \)\?ok ' "$LOGS/compare-stock-$ARCH.selftests") TAP results and $(grep -c ': exit \|: signal \|: lost' "$LOGS/compare-stock-$ARCH.selftests") exit statuses the same on both kernels"
		step "$ARCH: identical ($(sed -n '/^PMCHECK: BEGIN$/,/^PMCHECK: END$/p' "$LOGS/compare-stock-$ARCH.out" | grep -c '^= ') dumps, $(grep -c '^  \(mbind\|move_pages\|migrate_pages\)(' "$LOGS/compare-stock-$ARCH.out") NUMA calls, $(grep -c '^! ' "$LOGS/compare-stock-$ARCH.out") catalogue steps unavailable, $(grep -c 'masked, stock bug' "$LOGS/compare-stock-$ARCH.masked") stock-bug lines masked, $(tail -1 "$LOGS/compare-$ARCH.expect" | sed 's/^expect.awk: //'))"
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
[[ ${BENCH:-0} == 0 ]] || cat "$LOGS/compare-bench.txt"
echo "$passed passed, $failed failed"
((failed == 0))

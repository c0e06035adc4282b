#!/usr/bin/env bash
# make cross: cross-build the series for every architecture it must compile
# on, with a small configuration that enables what the page-table helpers of
# the series depend on (HUGETLBFS, TRANSPARENT_HUGEPAGE, USERFAULTFD,
# MEM_SOFT_DIRTY, MIGRATION, MEMORY_FAILURE, where the architecture has
# them), and print one line per configuration.
#
# For each configuration: the arch's defconfig plus those options in
# build/out/cross-NAME, "make prepare", then a W=1 build of the objects that
# use what the series adds or changes (the pt_iter objects and the mm/ and
# fs/proc/ objects that include the changed page-table headers).  A
# configuration fails if an object does not build, or if W=1 warns about a
# line of a file the series adds or patches.  Warnings about other files are
# counted, not fatal: they are upstream's.
#
# Besides the nine full configurations (one per architecture, everything
# on), the variants that the full ones never see:
#   - without the huge leaves: x86_64-tiny (tinyconfig: no THP, no hugetlb,
#     so no CONFIG_PGTABLE_HAS_HUGE_LEAVES) is linked to vmlinux, which is
#     what catches a call to a function that only exists with some option;
#     x86_64-nohuge is the full x86_64 configuration without THP and hugetlb;
#   - with only one of them: arm64-nothp (hugetlb, no THP), arm64-nohugetlb
#     (THP, no hugetlb);
#   - folded PMD (two-level page tables, PMD_SIZE == PUD_SIZE == PGDIR_SIZE):
#     i386-2level (no PAE), arm64-64k42 (64K pages, 42-bit VA), riscv32
#     (rv32_defconfig, Sv32).
# Each one also checks, after olddefconfig, that its configuration is what
# its name says (REQUIRE below), so that a Kconfig change cannot silently
# turn it into a copy of another one.
#
#   make cross                    every configuration
#   make cross CROSS_ARCHS="riscv64 x86_64-tiny"
#
# The cross compilers are installed on first use (Debian packages; clang-19
# and lld-19 for loongarch64, built with LLVM=1).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ALL_ARCHS="x86_64 i386 arm64 armhf riscv64 ppc64le s390x mips64el loongarch64"
ALL_ARCHS+=" x86_64-tiny x86_64-nohuge arm64-nothp arm64-nohugetlb"
ALL_ARCHS+=" i386-2level arm64-64k42 riscv32"

# Options every configuration gets, if the architecture offers them.
OPTIONS=(
	HUGETLBFS HUGETLB_PAGE TRANSPARENT_HUGEPAGE USERFAULTFD
	CHECKPOINT_RESTORE MEM_SOFT_DIRTY MIGRATION MEMORY_FAILURE
	DEBUG_FS PT_ITER_DEBUGFS PROC_PAGE_MONITOR NUMA
	KUNIT PT_ITER_KUNIT_TEST PT_ITER_KUNIT_BENCH
)

# arch_setup NAME: sets KARCH (kbuild ARCH), MAKEVARS (cross compiler
# selection), DEFCONFIG (the make target that writes the base .config), OPTS
# (the options to enable, normally OPTIONS), EXTRA (more options to enable),
# DISABLE (options to turn off afterwards), REQUIRE (what the final .config
# must have: "SYM" is =y, "!SYM" is unset, "SYM=VAL"), LINK (1: build
# vmlinux too) and PKGS.
arch_setup() {
	OPTS=("${OPTIONS[@]}") EXTRA=() DISABLE=() REQUIRE=() LINK=0
	case $1 in
	x86_64*|i386*) PKGS=() ;;
	arm64*)	PKGS=(gcc-aarch64-linux-gnu) ;;
	riscv*)	PKGS=(gcc-riscv64-linux-gnu) ;;
	esac
	case $1 in
	x86_64)	KARCH=x86_64; MAKEVARS=(); DEFCONFIG=x86_64_defconfig ;;
	i386)	KARCH=i386; MAKEVARS=(); DEFCONFIG=i386_defconfig
		EXTRA=(X86_PAE HIGHMEM64G); REQUIRE=(X86_PAE PGTABLE_LEVELS=3) ;;
	arm64)	KARCH=arm64; MAKEVARS=(CROSS_COMPILE=aarch64-linux-gnu-)
		DEFCONFIG=defconfig ;;
	armhf)	KARCH=arm; MAKEVARS=(CROSS_COMPILE=arm-linux-gnueabihf-)
		DEFCONFIG=multi_v7_defconfig; EXTRA=(ARM_LPAE); REQUIRE=(ARM_LPAE)
		PKGS=(gcc-arm-linux-gnueabihf) ;;
	riscv64) KARCH=riscv; MAKEVARS=(CROSS_COMPILE=riscv64-linux-gnu-)
		DEFCONFIG=defconfig ;;
	ppc64le) KARCH=powerpc; MAKEVARS=(CROSS_COMPILE=powerpc64le-linux-gnu-)
		DEFCONFIG=ppc64le_defconfig; PKGS=(gcc-powerpc64le-linux-gnu) ;;
	s390x)	KARCH=s390; MAKEVARS=(CROSS_COMPILE=s390x-linux-gnu-)
		DEFCONFIG=defconfig; PKGS=(gcc-s390x-linux-gnu) ;;
	mips64el) KARCH=mips; MAKEVARS=(CROSS_COMPILE=mips64el-linux-gnuabi64-)
		DEFCONFIG=64r2el_defconfig; PKGS=(gcc-mips64el-linux-gnuabi64) ;;
	loongarch64) KARCH=loongarch; MAKEVARS=(LLVM=-19)
		DEFCONFIG=defconfig; PKGS=(clang-19 lld-19 llvm-19) ;;
	# tinyconfig as it is: pt_iter.o is obj-y with MMU, which x86 always
	# has; no THP and no hugetlb, so no PGTABLE_HAS_HUGE_LEAVES.  Linked.
	x86_64-tiny) KARCH=x86_64; MAKEVARS=(); DEFCONFIG=tinyconfig
		OPTS=(); REQUIRE=(MMU 64BIT !PGTABLE_HAS_HUGE_LEAVES); LINK=1 ;;
	x86_64-nohuge) KARCH=x86_64; MAKEVARS=(); DEFCONFIG=x86_64_defconfig
		DISABLE=(TRANSPARENT_HUGEPAGE HUGETLBFS HUGETLB_PAGE)
		REQUIRE=(!PGTABLE_HAS_HUGE_LEAVES USERFAULTFD MIGRATION NUMA) ;;
	arm64-nothp) KARCH=arm64; MAKEVARS=(CROSS_COMPILE=aarch64-linux-gnu-)
		DEFCONFIG=defconfig; DISABLE=(TRANSPARENT_HUGEPAGE)
		REQUIRE=(!TRANSPARENT_HUGEPAGE HUGETLB_PAGE) ;;
	arm64-nohugetlb) KARCH=arm64; MAKEVARS=(CROSS_COMPILE=aarch64-linux-gnu-)
		DEFCONFIG=defconfig; DISABLE=(HUGETLBFS HUGETLB_PAGE)
		REQUIRE=(TRANSPARENT_HUGEPAGE !HUGETLB_PAGE) ;;
	# Folded PMD: two-level page tables.
	i386-2level) KARCH=i386; MAKEVARS=(); DEFCONFIG=i386_defconfig
		DISABLE=(X86_PAE HIGHMEM64G)
		REQUIRE=(!X86_PAE PGTABLE_LEVELS=2 TRANSPARENT_HUGEPAGE HUGETLB_PAGE) ;;
	arm64-64k42) KARCH=arm64; MAKEVARS=(CROSS_COMPILE=aarch64-linux-gnu-)
		DEFCONFIG=defconfig; EXTRA=(ARM64_64K_PAGES ARM64_VA_BITS_42)
		DISABLE=(ARM64_4K_PAGES ARM64_VA_BITS_48 ARM64_VA_BITS_52)
		REQUIRE=(ARM64_64K_PAGES ARM64_VA_BITS_42 PGTABLE_LEVELS=2
			 TRANSPARENT_HUGEPAGE HUGETLB_PAGE) ;;
	# Sv32; riscv has THP only on 64-bit, so this is hugetlb (4M) only.
	riscv32) KARCH=riscv; MAKEVARS=(CROSS_COMPILE=riscv64-linux-gnu-)
		DEFCONFIG=rv32_defconfig
		REQUIRE=(32BIT PGTABLE_LEVELS=2 HUGETLB_PAGE) ;;
	*)	die "unknown configuration '$1' (known: $ALL_ARCHS)" ;;
	esac
}

# check_config CONFIG: print what REQUIRE asks for that CONFIG lacks.
check_config() {
	local r
	for r in "${REQUIRE[@]}"; do
		case $r in
		!*)	if grep -q "^CONFIG_${r#!}=" "$1"; then
				echo "cross.sh: error: CONFIG_${r#!} is set"
			fi ;;
		*=*)	grep -qx "CONFIG_$r" "$1" ||
				echo "cross.sh: error: CONFIG_$r is not set" ;;
		*)	grep -qx "CONFIG_$r=y" "$1" ||
				echo "cross.sh: error: CONFIG_$r=y is not set" ;;
		esac
	done
}

# The files the series adds or patches, relative to the tree: W=1 warnings
# about them fail the build.
series_files() {
	series_new_files | awk '{ print $2 }'
	local p
	for p in $(series_patches); do
		sed -n 's|^+++ b/||p' "$REPO/$p"
	done
}

RESULTS=()
FAILURES=0

cross_arch() {
	local arch=$1 out=$OUT/cross-$1 log=$LOGS/cross-$1.log
	local rc=0 objs=() o sym ours others start=$SECONDS opt bad what
	arch_setup "$arch"
	install_packages "${PKGS[@]}"
	local mk=(make -C "$TREE" O="$out" ARCH="$KARCH" "${MAKEVARS[@]}")

	mkdir -p "$out"
	: >"$log"
	{
		"${mk[@]}" "$DEFCONFIG" &&
		for opt in "${OPTS[@]}" "${EXTRA[@]}"; do
			"$TREE/scripts/config" --file "$out/.config" --enable "$opt"
		done &&
		for opt in "${DISABLE[@]}"; do
			"$TREE/scripts/config" --file "$out/.config" --disable "$opt"
		done &&
		"${mk[@]}" olddefconfig
	} >>"$log" 2>&1 || rc=$?
	if ((rc == 0)); then
		bad=$(check_config "$out/.config")
		if [[ -n $bad ]]; then
			echo "$bad" >>"$log"
			rc=1
		fi
	fi
	((rc)) || "${mk[@]}" -j"$(nproc)" prepare >>"$log" 2>&1 || rc=$?

	if ((rc == 0)); then
		for o in "${SERIES_OBJECTS[@]}"; do
			sym=${o#* }
			grep -q "^CONFIG_$sym=y" "$out/.config" && objs+=("${o% *}")
		done
		# Rebuild the objects every time, so that their warnings are seen;
		# -k: every object that fails, not only the first one.
		(cd "$out" && rm -f "${objs[@]}")
		"${mk[@]}" -k -j"$(nproc)" W=1 "${objs[@]}" >>"$log" 2>&1 || rc=$?
	fi
	# Only a link sees a call to a function that this configuration lacks.
	if ((rc == 0 && LINK)); then
		"${mk[@]}" -j"$(nproc)" vmlinux >>"$log" 2>&1 || rc=$?
	fi

	ours=$(grep -E 'warning:|error:' "$log" |
		grep -cFf <(series_files | sed 's|^|/|; s|$|:|') || true)
	others=$(grep -E 'warning:' "$log" | grep -vcFf <(series_files | sed 's|^|/|; s|$|:|') || true)
	if ((rc || ours)); then
		FAILURES=$((FAILURES + 1))
		RESULTS+=("$(printf 'FAIL  %-16s %s' "$arch" "(log: ${log#"$REPO"/})")")
		log "$arch: FAILED (log: ${log#"$REPO"/}):"
		# The compiler's and the linker's lines; make's only if none.
		{ grep -E 'error:|warning:|undefined reference|multiple definition|[Ii]n function|inlined from' "$log" ||
		  grep -E 'Error [0-9]' "$log" || true; } | head -n 30 | sed 's/^/    /'
	else
		what=$(printf '%2d objects' "${#objs[@]}")
		if ((LINK)); then what+=" + vmlinux"; fi
		RESULTS+=("$(printf 'ok    %-16s %s, W=1 clean on the series%s, %ds' \
			"$arch" "$what" \
			"$( ((others)) && echo " ($others upstream warnings)")" \
			$((SECONDS - start)))")
	fi
}

main() {
	local archs=${CROSS_ARCHS:-$ALL_ARCHS} a
	take_lock cross
	bash "$REPO/harness/setup.sh" >/dev/null
	use_ccache
	mkdir -p "$LOGS"
	for a in $archs; do
		log "$a: building ..."
		cross_arch "$a"
	done
	printf '%s\n' "${RESULTS[@]}"
	if ((FAILURES)); then
		log "$FAILURES configuration(s) failed"
		exit 1
	fi
	log "all configurations built"
}

main "$@"

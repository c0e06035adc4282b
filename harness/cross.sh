#!/usr/bin/env bash
# make cross: cross-build the series for every architecture it must compile
# on, with a small configuration that enables what the page-table helpers of
# the series depend on (HUGETLBFS, TRANSPARENT_HUGEPAGE, USERFAULTFD,
# MEM_SOFT_DIRTY, MIGRATION, MEMORY_FAILURE, where the architecture has
# them), and print one line per architecture.
#
# For each architecture: the arch's defconfig plus those options in
# build/out/cross-ARCH, "make prepare", then a W=1 build of the objects that
# use what the series adds or changes (the pt_iter objects and the mm/ and
# fs/proc/ objects that include the changed page-table headers).  An
# architecture fails if an object does not build, or if W=1 warns about a
# line of a file the series adds or patches.  Warnings about other files are
# counted, not fatal: they are upstream's.
#
#   make cross                    every architecture
#   make cross CROSS_ARCHS="riscv64 s390x"
#
# The cross compilers are installed on first use (Debian packages; clang-19
# and lld-19 for loongarch64, built with LLVM=1).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ALL_ARCHS="x86_64 i386 arm64 armhf riscv64 ppc64le s390x mips64el loongarch64"

# Options every configuration gets, if the architecture offers them.
OPTIONS=(
	HUGETLBFS HUGETLB_PAGE TRANSPARENT_HUGEPAGE USERFAULTFD
	CHECKPOINT_RESTORE MEM_SOFT_DIRTY MIGRATION MEMORY_FAILURE
	DEBUG_FS PT_ITER_DEBUGFS PROC_PAGE_MONITOR NUMA
	KUNIT PT_ITER_KUNIT_TEST PT_ITER_KUNIT_BENCH
)

# arch_setup ARCH: sets KARCH (kbuild ARCH), MAKEVARS (cross compiler
# selection), DEFCONFIG, EXTRA (arch-specific options) and PKGS.
arch_setup() {
	EXTRA=()
	case $1 in
	x86_64)	KARCH=x86_64; MAKEVARS=(); DEFCONFIG=x86_64_defconfig; PKGS=() ;;
	i386)	KARCH=i386; MAKEVARS=(); DEFCONFIG=i386_defconfig
		EXTRA=(X86_PAE HIGHMEM64G); PKGS=() ;;
	arm64)	KARCH=arm64; MAKEVARS=(CROSS_COMPILE=aarch64-linux-gnu-)
		DEFCONFIG=defconfig; PKGS=(gcc-aarch64-linux-gnu) ;;
	armhf)	KARCH=arm; MAKEVARS=(CROSS_COMPILE=arm-linux-gnueabihf-)
		DEFCONFIG=multi_v7_defconfig; EXTRA=(ARM_LPAE)
		PKGS=(gcc-arm-linux-gnueabihf) ;;
	riscv64) KARCH=riscv; MAKEVARS=(CROSS_COMPILE=riscv64-linux-gnu-)
		DEFCONFIG=defconfig; PKGS=(gcc-riscv64-linux-gnu) ;;
	ppc64le) KARCH=powerpc; MAKEVARS=(CROSS_COMPILE=powerpc64le-linux-gnu-)
		DEFCONFIG=ppc64le_defconfig; PKGS=(gcc-powerpc64le-linux-gnu) ;;
	s390x)	KARCH=s390; MAKEVARS=(CROSS_COMPILE=s390x-linux-gnu-)
		DEFCONFIG=defconfig; PKGS=(gcc-s390x-linux-gnu) ;;
	mips64el) KARCH=mips; MAKEVARS=(CROSS_COMPILE=mips64el-linux-gnuabi64-)
		DEFCONFIG=64r2el_defconfig; PKGS=(gcc-mips64el-linux-gnuabi64) ;;
	loongarch64) KARCH=loongarch; MAKEVARS=(LLVM=-19)
		DEFCONFIG=defconfig; PKGS=(clang-19 lld-19 llvm-19) ;;
	*)	die "unknown architecture '$1' (known: $ALL_ARCHS)" ;;
	esac
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
	local rc=0 objs=() o sym ours others start=$SECONDS opt
	arch_setup "$arch"
	install_packages "${PKGS[@]}"
	local mk=(make -C "$TREE" O="$out" ARCH="$KARCH" "${MAKEVARS[@]}")

	mkdir -p "$out"
	: >"$log"
	{
		"${mk[@]}" "$DEFCONFIG" &&
		for opt in "${OPTIONS[@]}" "${EXTRA[@]}"; do
			"$TREE/scripts/config" --file "$out/.config" --enable "$opt"
		done &&
		"${mk[@]}" olddefconfig &&
		"${mk[@]}" -j"$(nproc)" prepare
	} >>"$log" 2>&1 || rc=$?

	if ((rc == 0)); then
		for o in "${SERIES_OBJECTS[@]}"; do
			sym=${o#* }
			grep -q "^CONFIG_$sym=y" "$out/.config" && objs+=("${o% *}")
		done
		# Rebuild the objects every time, so that their warnings are seen.
		(cd "$out" && rm -f "${objs[@]}")
		"${mk[@]}" -j"$(nproc)" W=1 "${objs[@]}" >>"$log" 2>&1 || rc=$?
	fi

	ours=$(grep -E 'warning:|error:' "$log" |
		grep -cFf <(series_files | sed 's|^|/|; s|$|:|') || true)
	others=$(grep -E 'warning:' "$log" | grep -vcFf <(series_files | sed 's|^|/|; s|$|:|') || true)
	if ((rc || ours)); then
		FAILURES=$((FAILURES + 1))
		RESULTS+=("$(printf 'FAIL  %-12s %s' "$arch" "(log: ${log#"$REPO"/})")")
		log "$arch: FAILED (log: ${log#"$REPO"/}):"
		grep -E 'error:|Error [0-9]|warning:' "$log" | head -n 20 | sed 's/^/    /'
	else
		RESULTS+=("$(printf 'ok    %-12s %2d objects, W=1 clean on the series%s, %ds' \
			"$arch" "${#objs[@]}" \
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
		log "$FAILURES architecture(s) failed"
		exit 1
	fi
	log "all architectures built"
}

main "$@"

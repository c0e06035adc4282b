#!/usr/bin/env bash
# make bench: for each architecture in $ARCHS (default: x86_64 arm64), build
# the KUnit kernel of "make test" without its checking options (lockdep,
# DEBUG_VM, PAGE_TABLE_CHECK) in build/out/bench-ARCH, boot it with QEMU's
# "-icount shift=0,sleep=off", run the pt_iter_bench suite and print, per
# kind of memory, the time of one walk with walk_page_range() callbacks and
# with a pt_iter loop, and their ratio.
#
# Under -icount the guest clock counts executed instructions (1 ns each), so
# the numbers are the same from run to run and from machine to machine; they
# are instruction counts of the guest, not wall-clock times.  The suite also
# checks that both walkers gather the same statistics; a disagreement, a
# kernel splat or a run that does not finish makes the exit status non-zero.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ICOUNT="-icount shift=0,sleep=off"
FAILED=0
TABLE=()

# The options of mm/tests/.kunitconfig that only check things; the
# benchmark kernel goes without them, as a production kernel would.
DEBUG_OPTIONS='DEBUG_VM|PROVE_LOCKING|DEBUG_ATOMIC_SLEEP|PAGE_TABLE_CHECK|PAGE_TABLE_CHECK_ENFORCED'

bench_arch() {
	local arch=$1 out=$OUT/bench-$1 log=$LOGS/bench-$1.log
	local rc=0 line kind pages cb pi ratio cbp pip n=0 src
	kunit_config_args "$arch"
	# The architecture's kunitconfig, without the checking options.
	src=${KUNIT_CONFIG_ARGS[0]#--kunitconfig=}
	[[ $src == /* ]] || src=$TREE/$src
	grep -Ev "^CONFIG_($DEBUG_OPTIONS)=" "$src" >"$OUT/bench-$arch.kunitconfig"
	KUNIT_CONFIG_ARGS[0]=--kunitconfig=$OUT/bench-$arch.kunitconfig

	log "$arch: booting the KUnit kernel with $ICOUNT (log: ${log#"$REPO"/})"
	(cd "$TREE" && PYTHONUNBUFFERED=1 python3 tools/testing/kunit/kunit.py run \
		--build_dir="$out" "${KUNIT_CONFIG_ARGS[@]}" --qemu_args="$ICOUNT" \
		--kernel_args="$(kunit_kernel_args "$arch")" \
		--jobs="$(nproc)" --timeout=1800 --raw_output=all \
		pt_iter_bench) >"$log" 2>&1 || rc=$?

	if ((rc != 0)) || grep -qE "not ok|$SPLAT_RE" "$log"; then
		log "$arch: FAILED (kunit.py exit $rc):"
		grep -E "not ok|EXPECTATION|Expected|$SPLAT_RE" "$log" |
			head -n 20 | sed 's/^/  | /'
		FAILED=$((FAILED + 1))
	fi
	while IFS= read -r line; do
		# "... bench KIND: N pages (...); callbacks X ns, pt_iter Y ns per walk"
		[[ $line =~ bench\ ([^:]+):\ ([0-9]+)\ pages.*callbacks\ ([0-9]+)\ ns,\ pt_iter\ ([0-9]+)\ ns ]] ||
			continue
		kind=${BASH_REMATCH[1]} pages=${BASH_REMATCH[2]}
		cb=${BASH_REMATCH[3]} pi=${BASH_REMATCH[4]}
		ratio=$(awk -v a="$pi" -v b="$cb" 'BEGIN { printf "%.3f", b ? a / b : 0 }')
		cbp=$(awk -v a="$cb" -v n="$pages" 'BEGIN { printf "%.1f", n ? a / n : 0 }')
		pip=$(awk -v a="$pi" -v n="$pages" 'BEGIN { printf "%.1f", n ? a / n : 0 }')
		TABLE+=("$(printf '%-8s %-22s %8s %12s %12s %9s %9s %7s' \
			"$arch" "$kind" "$pages" "$cb" "$pi" "$cbp" "$pip" "$ratio")")
		n=$((n + 1))
	done < <(grep -o 'bench .*per walk' "$log")
	if ((n == 0)); then
		log "$arch: no benchmark result in the log"
		FAILED=$((FAILED + 1))
	fi
}

main() {
	local arch
	kunit_archs

	take_lock kunit
	bash "$REPO/harness/setup.sh" || die "setup failed"
	mkdir -p "$LOGS" "$OUT"
	use_ccache

	for arch in "${KUNIT_ARCHS[@]}"; do
		bench_arch "$arch"
	done

	echo
	echo "one walk, guest instructions (ns under -icount); cb/page and pi/page:"
	echo "per page of the pages column; ratio = pt_iter / callbacks (below 1:"
	echo "pt_iter is faster)"
	printf '%-8s %-22s %8s %12s %12s %9s %9s %7s\n' arch memory pages \
		callbacks pt_iter cb/page pi/page ratio
	printf '%s\n' "${TABLE[@]}"
	if ((FAILED)); then
		echo "bench: $FAILED architecture(s) failed"
		exit 1
	fi
}

main "$@"

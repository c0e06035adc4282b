#!/usr/bin/env bash
# make check-bisect: check that every prefix of the series builds.
# For k = 1..N, the scratch tree build/bisect gets patch k and the new files
# it introduces (copies from the repository), and the objects that use what
# the series changes (SERIES_OBJECTS in lib.sh) are rebuilt for each
# architecture in $ARCHS, in build/out/bisect-$ARCH, with the KUnit
# configuration of "make test".  BISECT_FULL=1 builds vmlinux instead (slow:
# most patches change headers that the whole kernel includes).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BISECT=$BUILD/bisect
RESULTS=()
FAILURES=0

# The .config fragment "make test" starts from: the QEMU configuration of
# kunit.py for the architecture, the kunitconfig, and the --kconfig_add
# options.  make olddefconfig completes it at every step, so options that
# the first patches do not define yet are simply dropped.
config_fragment() {
	local arch=$1 a
	python3 - "$TREE/tools/testing/kunit/qemu_configs/$arch.py" <<'EOF'
import re
import sys

with open(sys.argv[1]) as f:
    m = re.search(r"kconfig='''(.*?)'''", f.read(), re.S)
print(m.group(1).strip() if m else "")
EOF
	cat "$REPO/$KUNITCONFIG"
	kunit_config_args "$arch"
	for a in "${KUNIT_CONFIG_ARGS[@]}"; do
		[[ $a != --kconfig_add=* ]] || echo "${a#--kconfig_add=}"
	done
}

# What to build at each step: vmlinux with BISECT_FULL=1, otherwise the
# objects of SERIES_OBJECTS that exist at this step and are configured
# (fast: the first patches change headers that most of the kernel includes).
bisect_targets() {
	local out=$1 o
	if [[ ${BISECT_FULL-} == 1 ]]; then
		echo vmlinux
		return
	fi
	for o in "${SERIES_OBJECTS[@]}"; do
		[[ -e $BISECT/${o%.o *}.c ]] || continue
		grep -q "^CONFIG_${o#* }=y" "$out/.config" && echo "${o% *}"
	done
}

build_step() {
	local k=$1 patch=$2 arch=$3 out=$OUT/bisect-$3 log rc=0 warnings note=
	log=$LOGS/bisect-$k-$arch.log
	make_arch_vars "$arch"
	mkdir -p "$out"
	cp "$LOGS/bisect-$arch.config" "$out/.config"
	{
		make -C "$BISECT" O="$out" "${MAKE_ARCH[@]}" olddefconfig &&
		make -C "$BISECT" O="$out" "${MAKE_ARCH[@]}" -j"$(nproc)" \
			$(bisect_targets "$out")
	} >"$log" 2>&1 || rc=$?
	warnings=$(grep -c 'warning:' "$log" || true)
	if ((rc)); then
		FAILURES=$((FAILURES + 1))
		RESULTS+=("$(printf "FAIL  %-7s %s %s" "$arch" "$k" "$patch")")
		log "$arch: build FAILED after $patch (log: ${log#"$REPO"/}):"
		grep -E 'error:|Error [0-9]' "$log" | head -n 20 | sed 's/^/    /'
	else
		if ((warnings)); then
			note=" ($warnings warnings)"
			grep 'warning:' "$log" | head -n 20 | sed 's/^/    /'
		fi
		RESULTS+=("$(printf "ok    %-7s %s %s%s" "$arch" "$k" "$patch" "$note")")
	fi
}

main() {
	local archs arch patches k=0 patch file
	read -r -a archs <<<"${ARCHS:-$DEFAULT_ARCHS}"
	for arch in "${archs[@]}"; do make_arch_vars "$arch"; done

	take_lock bisect
	bash "$REPO/harness/setup.sh" >/dev/null
	mapfile -t patches < <(series_patches)
	mkdir -p "$LOGS" "$OUT"
	use_ccache
	for arch in "${archs[@]}"; do
		config_fragment "$arch" >"$LOGS/bisect-$arch.config"
	done

	log "resetting build/bisect to build/base ..."
	rsync -rlp --checksum --delete "$BASE/" "$BISECT/"

	for patch in "${patches[@]}"; do
		k=$((k + 1))
		log "[$k/${#patches[@]}] $patch"
		(cd "$BISECT" && patch -p1 -s --fuzz=0 --batch --no-backup-if-mismatch -i "$REPO/$patch") ||
			die "$patch does not apply (run make setup for the details)"
		while read -r _ file; do
			if [[ ! -e $REPO/$file ]]; then
				warn "$file is not in the repository yet: skipped"
				continue
			fi
			mkdir -p "$(dirname "$BISECT/$file")"
			rsync -p --checksum "$REPO/$file" "$BISECT/$file"
		done < <(series_new_files "$patch")
		for arch in "${archs[@]}"; do
			build_step "$k" "$patch" "$arch"
		done
		log "[$k/${#patches[@]}] done at $(elapsed)"
	done

	printf '%s\n' "${RESULTS[@]}"
	if ((FAILURES)); then
		log "$FAILURES build(s) failed"
		exit 1
	fi
	log "every prefix of the series builds (${archs[*]}) in $(elapsed)"
}

main "$@"

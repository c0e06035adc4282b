#!/usr/bin/env bash
# make check: static checks of the series.
#  0. every patch applies to build/base exactly: no fuzz, no offset (a
#     patch whose hunks land at an offset was made against another state
#     of the files it changes, and is refreshed);
#  1. scripts/checkpatch.pl --strict on every patch of the series;
#  2. scripts/checkpatch.pl --strict -f on every new .c/.h file;
#  3. scripts/kernel-doc -Wall on include/linux/pt_iter.h and mm/pt_iter*.c,
#     and on the functions the series adds to existing files;
#  4. a W=1 C=1 (gcc extra warnings + sparse) build of the pt_iter objects
#     and of the pt_iter users fs/proc/task_mmu.o and mm/mincore.o, in the
#     x86_64 KUnit build directory (mm/mempolicy.o needs NUMA, which that
#     kernel lacks; mm/damon/vaddr.o, built by make test and bisect, has
#     sparse warnings of 6.12's own: its KUnit file's "missing braces", and
#     the lock context of folio_walk_start()/folio_walk_end(), which sparse
#     cannot follow, as in mm/migrate.c and mm/ksm.c; mm/memory-failure.o,
#     clean with W=1, has one of 6.12's own: the lock context of
#     dev_pagemap_mapping_shift());
#  5. no indirect call in the walk: objdump of mm/pt_iter.o (x86_64, built
#     with retpolines) must show no indirect call or jump and no reference
#     to a retpoline thunk.
# Any warning or error fails the check.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ARCH=x86_64
OBJS=(mm/pt_iter.o mm/pt_iter_debugfs.o mm/tests/pt_iter_kunit.o mm/tests/pt_iter_bench.o
      fs/proc/task_mmu.o mm/mincore.o)
BAD=()

# step NAME OUTPUT-FILE STATUS: report one step; its output only if it failed.
step() {
	if [[ $3 -eq 0 ]]; then
		log "ok:   $1"
	else
		log "FAIL: $1"
		sed 's/^/    /' "$2"
		BAD+=("$1")
	fi
}

applies_exactly() {
	local stage out rc=0
	stage=$(mktemp -d)
	out=$(mktemp)
	cp -al "$BASE/." "$stage"
	ln -s "$REPO" "$stage/patches"
	(cd "$stage" && QUILTRC=$QUILTRC_FILE quilt push -a --fuzz=0) >"$out" 2>&1 || rc=$?
	if ((rc == 0)) && grep -q 'offset' "$out"; then
		grep -E '^Applying patch|offset' "$out" >"$out.offsets"
		mv "$out.offsets" "$out"
		rc=1
	fi
	step "every patch applies with no fuzz and no offset" "$out" "$rc"
	rm -rf "$stage" "$out"
}

checkpatch_series() {
	local p out rc
	out=$(mktemp)
	for p in "${PATCHES[@]}"; do
		rc=0
		# The series carries no Signed-off-by; the author adds it when posting.
		# build/linux has no upstream history to look a Fixes: commit up
		# in (its form is still checked, GIT_COMMIT_ID).
		scripts/checkpatch.pl --strict --no-signoff --show-types \
			--ignore UNKNOWN_COMMIT_ID "$REPO/$p" >"$out" 2>&1 || rc=$?
		step "checkpatch $p" "$out" "$rc"
	done
	rm -f "$out"
}

checkpatch_new_files() {
	local f out rc
	out=$(mktemp)
	for f in "${NEW_FILES[@]}"; do
		[[ $f == *.[ch] ]] || continue
		rc=0
		scripts/checkpatch.pl --strict --show-types -f "$f" >"$out" 2>&1 || rc=$?
		step "checkpatch -f $f" "$out" "$rc"
	done
	rm -f "$out"
}

kernel_doc() {
	local files=() f out rc=0
	for f in include/linux/pt_iter.h mm/pt_iter*.c; do
		[[ -e $f ]] && files+=("$f")
	done
	((${#files[@]})) || return 0
	out=$(mktemp)
	scripts/kernel-doc -Wall -none "${files[@]}" >"$out" 2>&1 || rc=$?
	if grep -qiE 'warning|error' "$out"; then rc=1; fi
	step "kernel-doc -Wall ${files[*]}" "$out" "$rc"
	rm -f "$out"
}

# Functions the series adds to existing files ("file:function"): each must
# have a kernel-doc comment, and kernel-doc -Wall must not warn about it
# (the rest of such a file is upstream's business).
PATCHED_FUNCTIONS=(mm/memory.c:vm_normal_page_pud)

kernel_doc_patched() {
	local fn file name out rc
	for fn in "${PATCHED_FUNCTIONS[@]}"; do
		file=${fn%%:*} name=${fn#*:} rc=0
		out=$(mktemp)
		{
			scripts/kernel-doc -Wall -none "$file" 2>&1 |
				grep -E "'$name'|\b$name\b" || true
			scripts/kernel-doc -rst -function "$name" "$file" 2>/dev/null |
				grep -q "$name" ||
				echo "$file: no kernel-doc comment for $name()"
		} >"$out"
		[[ -s $out ]] && rc=1
		step "kernel-doc -Wall $file: $name()" "$out" "$rc"
		rm -f "$out"
	done
}

# Compile the objects with W=1 C=1 in the KUnit build directory.  The
# objects kbuild had there are put back afterwards, so the next "make test"
# does not rebuild them.
sparse_build() {
	local out=$OUT/kunit-$ARCH objs=() o save rc=0 result
	for o in "${OBJS[@]}"; do
		[[ -e ${o%.o}.c ]] && objs+=("$o")
	done
	((${#objs[@]})) || return 0

	make_arch_vars "$ARCH"
	kunit_config_args "$ARCH"
	# (Re)configure: the options of the objects may be newer than the
	# build; an unchanged configuration rebuilds nothing.
	python3 tools/testing/kunit/kunit.py config --build_dir="$out" \
		"${KUNIT_CONFIG_ARGS[@]}" >/dev/null

	save=$(mktemp -d)
	for o in "${objs[@]}"; do
		mkdir -p "$save/$(dirname "$o")"
		cp -p "$out/$o" "$out/$(dirname "$o")/.$(basename "$o").cmd" \
			"$save/$(dirname "$o")/" 2>/dev/null || true
		rm -f "$out/$o"
	done
	result=$(mktemp)
	make -s O="$out" "${MAKE_ARCH[@]}" W=1 C=1 -j"$(nproc)" "${objs[@]}" >"$result" 2>&1 || rc=$?
	for o in "${objs[@]}"; do
		[[ -e $out/$o ]] || rc=1     # not built: not enabled in the .config?
	done
	if grep -qE 'warning:|error:' "$result"; then rc=1; fi
	# Put back what the KUnit build had (files and mtimes).
	(cd "$save" && find . -type f -print0 | xargs -0r cp -p --parents -t "$out")
	rm -rf "$save"
	step "W=1 C=1 build of ${objs[*]} (${out#"$REPO"/})" "$result" "$rc"
	rm -f "$result"
}

# The walk must make no indirect call: with CONFIG_MITIGATION_RETPOLINE an
# indirect call or jump is compiled as a call of an __x86_indirect_* thunk,
# without it as "call *"/"jmp *".  (__x86_return_thunk is a return.)
no_indirect_calls() {
	local obj=$OUT/kunit-$ARCH/mm/pt_iter.o out rc=0
	out=$(mktemp)
	if [[ ! -f $obj ]]; then
		echo "$obj: not built" >"$out"
		rc=1
	elif ! grep -q '^CONFIG_MITIGATION_RETPOLINE=y' "$OUT/kunit-$ARCH/.config"; then
		echo "the x86_64 KUnit config has no CONFIG_MITIGATION_RETPOLINE" >"$out"
		rc=1
	else
		objdump -dr "$obj" |
			grep -E '(call|jmp)q? +\*|__x86_indirect_' >"$out" && rc=1
	fi
	step "no indirect call or retpoline thunk in mm/pt_iter.o" "$out" "$rc"
	rm -f "$out"
}

main() {
	take_lock kunit
	bash "$REPO/harness/setup.sh" >/dev/null
	mapfile -t PATCHES < <(series_patches)
	mapfile -t NEW_FILES < <(series_new_files | awk '{ print $2 }')
	use_ccache
	cd "$TREE"

	applies_exactly
	checkpatch_series
	checkpatch_new_files
	kernel_doc
	kernel_doc_patched
	sparse_build
	no_indirect_calls

	if ((${#BAD[@]})); then
		log "${#BAD[@]} check(s) failed:"
		printf '    %s\n' "${BAD[@]}"
		exit 1
	fi
	log "all checks passed"
}

main "$@"

#!/usr/bin/env bash
# make test: the KUnit tests and the stock-versus-patched guest.
#
# For x86_64 and arm64 (the default $ARCHS), `make compare`
# (harness/compare.sh): the patched kernel of that guest has the KUnit
# tests of mm/tests/.kunitconfig built in and runs them at boot, so one
# kernel build per architecture serves both.  Its KUnit results (copied to
# build/logs/kunit-$ARCH.log) count case by case, the comparison of /proc
# and of the selftests as one check.
#
# Then `make lpae` (harness/lpae.sh): stock versus patched on 32-bit ARM
# with LPAE, one check (LPAE=0 leaves it out).
#
# With COMPARE=0, and for the other architectures of $ARCHS (riscv64,
# arm64-64k), kunit.py instead builds the KUnit kernel from build/linux with
# mm/tests/.kunitconfig and boots it under QEMU.
#
# An architecture whose kernel does not build or boot, that runs no test,
# or whose log shows a kernel splat (warning, BUG, lockdep, RCU, KASAN/UBSAN
# report ...) counts as one more failure.  The last line of output is
# "N passed, N failed[, N skipped]"; the exit status is non-zero if
# anything failed.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"


PASSED=0 FAILED=0 SKIPPED=0
# What failed, in a few lines each: repeated just before the last line, so
# that the tail of a run (all a CI report may keep) says what failed.
RECAP=()

# The one line that ends every run.
finish() {
	local line="$PASSED passed, $FAILED failed"
	((SKIPPED == 0)) || line+=", $SKIPPED skipped"
	if ((${#RECAP[@]})); then
		log "what failed (the full output is above and in build/logs/):"
		printf '%s\n' "${RECAP[@]}" | head -n 40 | sed 's/^/  > /'
	fi
	echo "$line"
	((FAILED == 0))
}

# Count the leaf test cases of a kunit.py JSON file: prints
# "PASSED FAILED SKIPPED", then one line per failed case.
count_json() {
	python3 - "$1" <<'EOF'
import json
import sys

def leaves(group, path):
    for case in group.get("test_cases", []):
        yield path + [case["name"]], case["status"]
    for sub in group.get("sub_groups", []):
        yield from leaves(sub, path + [sub["name"]])

with open(sys.argv[1]) as f:
    top = json.load(f)
passed = failed = skipped = 0
bad = []
for path, status in leaves(top, []):
    if status == "PASS":
        passed += 1
    elif status == "SKIP":
        skipped += 1
    else:
        failed += 1
        bad.append("%s (%s)" % (".".join(path), status))
print(passed, failed, skipped)
for name in bad:
    print(name)
EOF
}

# Build the KUnit kernel of one architecture with kunit.py, boot it and
# count its results.
test_arch() {
	local arch=$1 out=$OUT/kunit-$1 log=$LOGS/kunit-$1.log
	local rcfile=$LOGS/.kunit-$1.rc rc start=$SECONDS
	kunit_config_args "$arch"

	log "$arch: building and booting the KUnit kernel (log: ${log#"$REPO"/})"
	rm -f "$log" "$rcfile"
	# kunit.py's own progress lines go to the terminal, everything to the log.
	{
		rc=0
		(cd "$TREE" && PYTHONUNBUFFERED=1 python3 tools/testing/kunit/kunit.py run \
			--build_dir="$out" "${KUNIT_CONFIG_ARGS[@]}" \
			--kernel_args="$(kunit_kernel_args "$arch")" \
			--jobs="$(nproc)" --timeout=600 --raw_output=all \
			pt_iter) || rc=$?
		echo "$rc" >"$rcfile"
	} 2>&1 | tee "$log" | sed -un 's/^\[[0-9:]\{8\}\] /  &/p'
	rc=$(<"$rcfile")
	rm -f "$rcfile"

	if ! grep -q 'Starting KUnit Kernel' "$log"; then
		count_kunit "$arch" "$log" "$start" \
			"the kernel was not built or not booted (kunit.py exit $rc)"
		tail -n 40 "$log" | sed 's/^/  | /'
	elif ((rc)); then
		count_kunit "$arch" "$log" "$start" "kunit.py exited with $rc"
	else
		count_kunit "$arch" "$log" "$start"
	fi
}

# Count the KUnit results of $1 in log $2 (which began at $SECONDS $3):
# the cases, and one more failure if the log has a splat, no result, or
# if $4 (a problem found before) is given.  Adds to the totals.
count_kunit() {
	local arch=$1 log=$2 start=$3 json=$LOGS/kunit-$1.json
	local p=0 f=0 s=0 problems=() splats
	[[ -z ${4-} ]] || problems+=("$4")

	rm -f "$json"
	if grep -q 'KTAP version' "$log"; then
		# The parsed results, as kunit.py prints them, and their JSON.
		(cd "$TREE" && python3 tools/testing/kunit/kunit.py parse \
			--json="$json" "$log") | sed 's/^/  /' || true
		if [[ -s $json ]]; then
			local counts=()
			mapfile -t counts < <(count_json "$json" || true)
			if [[ ${counts[0]-} =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]]; then
				read -r p f s <<<"${counts[0]}"
			else
				problems+=("${json#"$REPO"/} could not be read")
			fi
			if ((f)); then
				log "$arch: failed test cases:"
				printf '    %s\n' "${counts[@]:1}"
				RECAP+=("$arch: KUnit: failed: ${counts[*]:1}")
			fi
		else
			problems+=("no results could be parsed")
		fi
		((p + f + s > 0)) || problems+=("no test ran")

		splats=$(awk 'k { print } /Starting KUnit Kernel|^KUNIT: BEGIN$/ { k = 1 }' "$log" |
			 grep -E "$SPLAT_RE" || true)
		if [[ -n $splats ]]; then
			problems+=("the kernel log has warnings or splats ($(wc -l <<<"$splats") lines)")
			log "$arch: kernel log lines that indicate a problem:"
			head -n 40 <<<"$splats" | sed 's/^/  ! /'
		fi
	elif ((${#problems[@]} == 0)); then
		problems+=("no KUnit results in ${log#"$REPO"/}")
	fi

	PASSED=$((PASSED + p)) FAILED=$((FAILED + f)) SKIPPED=$((SKIPPED + s))
	local line="$arch: KUnit: $p passed, $f failed"
	((s == 0)) || line+=", $s skipped"
	line+=" ($((SECONDS - start))s)"
	if ((${#problems[@]})); then
		FAILED=$((FAILED + 1))
		local why
		line+=" - FAILED:"
		for why in "${problems[@]}"; do line+=" $why;"; done
		line=${line%;}
		RECAP+=("$line")
		[[ -z ${splats-} ]] || RECAP+=("$(head -n 5 <<<"$splats")")
	fi
	log "$line"
}

# Count the checks of harness/$1.sh, whose output is in the file $3 and
# ends with "N passed, N failed" (anything else is one failure); repeat
# its own lines but the build steps, and on a failure its tail, and its
# warnings in the recap under the name $2.
tally() {
	local script=$1.sh name=$2 out last p=0 f=1
	out=$(cat "$3")
	last=$(tail -n 1 <<<"$out")
	if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]}
		((p + f > 0)) || f=1
	fi
	PASSED=$((PASSED + p)) FAILED=$((FAILED + f))
	grep -E "^$script: " <<<"$out" | grep -vE 'building|built in' |
		sed "s/^$script: /test.sh: $1: /" || true
	if ((f)); then
		tail -n 45 <<<"$out" | sed 's/^/  | /'
		# Its warnings, each with the first lines it showed.
		RECAP+=("$name: failed; its warnings:")
		RECAP+=("$(grep -A 8 -E "^$script: (warning|error): " <<<"$out" |
			   head -n 30 || true)")
	fi
}

# The stock-versus-patched guest of $1 (harness/compare.sh): one check,
# and the KUnit tests, which the patched kernel runs at boot.
compare_arch() {
	local arch=$1 start=$SECONDS
	local klog=$LOGS/kunit-$1.log glog=$LOGS/compare-patched-$1.log
	log "$arch: stock versus patched /proc, and KUnit in the patched guest (make compare; output: build/logs/compare-$arch.txt)"
	rm -f "$glog"
	ARCHS=$arch bash "$REPO/harness/compare.sh" >"$LOGS/compare-$arch.txt" 2>&1 || true
	tally compare "$arch: compare" "$LOGS/compare-$arch.txt"
	# What /init copied from the kernel log of the patched guest.
	if [[ -f $glog ]]; then
		sed -n '/^KUNIT: BEGIN$/,/^KUNIT: END$/p' "$glog" >"$klog"
		count_kunit "$arch" "$klog" "$start"
	else
		: >"$klog"
		count_kunit "$arch" "$klog" "$start" "the patched guest did not run"
	fi
}

# The stock-versus-patched guest of 32-bit ARM with LPAE
# (harness/lpae.sh): one check.
lpae_check() {
	log "arm (LPAE): stock versus patched /proc of a PROT_NONE THP and a THP's PSS (make lpae; output: build/logs/lpae.txt)"
	bash "$REPO/harness/lpae.sh" >"$LOGS/lpae.txt" 2>&1 || true
	tally lpae "arm (LPAE): lpae" "$LOGS/lpae.txt"
}

main() {
	local arch
	kunit_archs

	take_lock kunit
	if ! bash "$REPO/harness/setup.sh"; then
		log "setup failed; no test was run"
		FAILED=1
		finish
	fi
	mkdir -p "$LOGS" "$OUT"
	use_ccache

	for arch in "${KUNIT_ARCHS[@]}"; do
		if [[ ${COMPARE:-1} != 0 && ($arch == x86_64 || $arch == arm64) ]]; then
			compare_arch "$arch"
		else
			test_arch "$arch"
		fi
	done
	if [[ ${COMPARE:-1} != 0 && ${LPAE:-1} != 0 ]]; then
		lpae_check
	fi
	finish
}

main "$@"

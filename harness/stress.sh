#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make stress`: the page-table walkers under concurrent mm churn and
# syscall fuzzing, on the stock and the patched kernel.  For each
# architecture, build both kernels with one configuration: that of `make
# compare` (harness/compare/compare*.config) with the checking options of
# harness/stress/stress.config (generic KASAN, PROVE_LOCKING, DEBUG_VM,
# DEBUG_VM_PGTABLE, PAGE_TABLE_CHECK_ENFORCED, DEBUG_ATOMIC_SLEEP, the
# hung-task and soft-lockup detectors).  Boot each under QEMU (TCG, 2
# vCPUs, one found on x86_64: see guest_machine() in lib.sh; 8G in two NUMA
# nodes, hugetlb of every size of the architecture reserved)
# with harness/stress/init.c as /init, which swaps to zram, sets THP to
# "always" at every size with khugepaged scanning fast, and runs for
# STRESS_TIME seconds: stress-ng's memory stressors and its procfs reader,
# harness/stress/pmstress (our reader, which checks the values it reads),
# and trinity on the mm syscalls and /proc/self, unprivileged.  stress-ng
# and trinity are Debian's packages, with their shared libraries.
#
# A kernel fails on any splat in its console log (BUG, WARNING, KASAN,
# lockdep, page_table_check, bad page state, hung task, soft lockup, RCU
# stall), on a guest that does not reach its end, and on a value pmstress
# found wrong.  Both kernels must be clean: a splat of both kernels is
# stock's, one of the patched kernel only is ours.  The one exception is
# the 6.12 warning /init makes happen on purpose at start on both kernels
# (KNOWN_STOCK_RE below), which on arm64 must happen.
#
# Usage: harness/stress.sh            (ARCHS="x86_64 arm64", the default)
# Environment:
#   ARCHS        architectures (x86_64, arm64)
#   STRESS_TIME  seconds of stress per kernel (default 600)
#   STRESS_SEED  seed of stress-ng, pmstress and trinity (default 1)
#   SIDES        kernels to run (default "stock patched")
#   JOBS         parallel build jobs (default: nproc)
#
# Output: build/out/stress-{stock,patched}-$ARCH/ (kernel builds),
# build/out/stress-$ARCH/ (guest programs, initramfs),
# build/logs/stress-{stock,patched}-$ARCH.log (consoles).  The last line is
# "N passed, N failed" (one check per kernel and architecture).

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CMP=$REPO/harness/compare
STR=$REPO/harness/stress
ARCHS=${ARCHS:-$DEFAULT_ARCHS}
JOBS=${JOBS:-$(nproc)}
STRESS_TIME=${STRESS_TIME:-600}
STRESS_SEED=${STRESS_SEED:-1}
SIDES=${SIDES:-stock patched}
# Boot (KASAN zeroes its shadow of 8G), the end of stress-ng and trinity,
# and the power-off, beyond the stress itself.
TIMEOUT=$((STRESS_TIME + 900))

step() { printf '%s: %s\n' "$PROG" "$*"; }

[[ -f $BASE/Makefile && -f $TREE/mm/pt_iter.c ]] ||
	die "no build/base or build/linux: run 'make setup' first"

# The splats of a stress guest: those of every check (lib.sh), but a call
# trace alone is not one: the OOM killer and allocation failures print
# theirs, and memory stress makes both happen.
STRESS_SPLAT_RE=${SPLAT_RE//'|Call [Tt]race:'/}
STRESS_SPLAT_RE+='|Bad page state|Bad page map|Bad rss-counter'
STRESS_SPLAT_RE+='|page_table_check|rcu_preempt detected stalls|blocked for more than'
[[ $STRESS_SPLAT_RE != "$SPLAT_RE" ]] || die "SPLAT_RE has no call trace to drop"

# The warning 6.12 itself prints under this load (on arm64 with DEBUG_VM),
# which /init makes happen once, on purpose, on both kernels, between the
# lines "STRESS: stock warning: begin" and "STRESS: stock warning: end"
# (stock_warning() in init.c): its message, and the function of 6.12 its
# call trace must go through.
KNOWN_STOCK_RE='__check_safe_pte_update: racy access flag clearing'
KNOWN_STOCK_FN='do_wp_page'

# The console log $1 without the warning that /init made happen: a block
# from a "cut here" line that begins between the trigger's two lines, has
# KNOWN_STOCK_RE and goes through KNOWN_STOCK_FN.  Of such a block, the
# lines of another splat (another CPU's, printed in the middle of it) are
# kept; its message line is written to $2.  Every other warning stays,
# this one's message included: __check_safe_pte_update() is a static
# inline of each file that sets PTEs, with a warn-once flag of its own,
# and a later one comes from a file the trigger did not go through.  A
# block that does not end within 80 lines is kept whole.
drop_known_stock() {
	awk -v re="$KNOWN_STOCK_RE" -v fn="$KNOWN_STOCK_FN" \
	    -v splat="$STRESS_SPLAT_RE" -v known="$2" '
		function flush(ended,	i, drop) {
			drop = ended && msg != "" && infn
			if (drop)
				print msg > known
			for (i = 1; i <= n; i++)
				if (!drop || (buf[i] ~ splat &&
				    buf[i] !~ /WARNING:.*__check_safe_pte_update/))
					print buf[i]
			n = 0
			msg = ""
			infn = 0
			inblock = 0
		}
		/^STRESS: stock warning: begin/ { trigger = 1 }
		/^STRESS: stock warning: end/ { trigger = 0 }
		/-+\[ cut here \]-+/ {
			flush(0)
			inblock = trigger
		}
		inblock {
			buf[++n] = $0
			if ($0 ~ re)
				msg = $0
			if (index($0, fn))
				infn = 1
			if ($0 ~ /---\[ end trace/)
				flush(1)
			else if (n == 80)
				flush(0)
			next
		}
		{ print }
		END { flush(0) }' "$1"
}

# The DT_NEEDED libraries of the ELF files of $WORK/root.
needed_libs() {
	local f
	for f in "$WORK"/root/bin/* "$WORK"/root/lib/*; do
		[[ -e $f ]] && readelf -d "$f"
	done | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u
}

# stress-ng and trinity for $ARCH, from Debian's packages, with the shared
# libraries they load (the package of a library is the one that holds it
# on this machine, whose stress-ng make setup installed), into
# $WORK/root/{bin,lib} and $WORK/root/ld.so.  The .debs stay in
# build/out/debs.
fetch_tools() {
	local debarch=${DEB_ARCH[$ARCH]} dir=$OUT/debs root=$WORK/root
	local stage=$WORK/stage host triplet pkg lib path changed debs
	local pkgs=(stress-ng trinity) fetched=" "
	host=$(dpkg --print-architecture)
	triplet=$(gcc -print-multiarch)
	mkdir -p "$dir"
	if [[ $debarch != "$host" ]] &&
	   ! dpkg --print-foreign-architectures | grep -qx "$debarch"; then
		dpkg --add-architecture "$debarch"
		apt-get update -q >/dev/null
	fi
	rm -rf "$root" "$stage"
	mkdir -p "$root/bin" "$root/lib" "$stage"
	while ((${#pkgs[@]})); do
		for pkg in "${pkgs[@]}"; do
			debs=("$dir/${pkg}_"*"_$debarch.deb")
			if [[ ! -f ${debs[0]} ]]; then
				(cd "$dir" && apt-get download -q "$pkg:$debarch") \
					>"$WORK/apt.log" 2>&1 || {
					cat "$WORK/apt.log" >&2
					die "$ARCH: apt-get download $pkg:$debarch failed"
				}
				debs=("$dir/${pkg}_"*"_$debarch.deb")
			fi
			dpkg-deb -x "${debs[0]}" "$stage"
			fetched+="$pkg "
		done
		pkgs=()
		cp -L "$stage/usr/bin/stress-ng" "$stage/usr/bin/trinity" \
			"$root/bin/"
		# Copy what the packages fetched have, until nothing more is
		# needed from them; then fetch the packages of the rest.
		changed=1
		while ((changed)); do
			changed=0
			for lib in $(needed_libs); do
				# The loader goes to its own path, below.
				[[ -e $root/lib/$lib || $lib == "${LD_SO##*/}" ]] &&
					continue
				path=$(find "$stage" -name "$lib" | head -1)
				if [[ -n $path ]]; then
					cp -L "$path" "$root/lib/$lib"
					changed=1
					continue
				fi
				pkg=$({ dpkg -S "*/$lib" 2>/dev/null || true; } |
				      awk -v p="/lib/$triplet/$lib" \
					  'index($0, p) { sub(/[:,].*/, ""); print; exit }')
				[[ -n $pkg ]] || die "$ARCH: no package has $lib"
				[[ $fetched == *" $pkg "* ]] &&
					die "$ARCH: $pkg has no $lib"
				[[ " ${pkgs[*]} " == *" $pkg "* ]] || pkgs+=("$pkg")
			done
		done
	done
	path=$(find "$stage" -name "${LD_SO##*/}" | head -1)
	[[ -n $path ]] || die "$ARCH: no ${LD_SO##*/} in the packages"
	cp -L "$path" "$root/ld.so"
	rm -rf "$stage"
}
declare -A DEB_ARCH=([x86_64]=amd64 [arm64]=arm64)

passed=0
failed=0
use_ccache
take_lock stress
mkdir -p "$LOGS"
for ARCH in $ARCHS; do
	guest_machine "$ARCH"
	HUGE="hugepagesz=1G hugepages=1 hugepagesz=2M hugepages=64"
	[[ $ARCH != arm64 ]] ||
		HUGE+=" hugepagesz=64K hugepages=64 hugepagesz=32M hugepages=4"
	# The host's stress-ng says which packages hold its libraries.
	install_packages stress-ng trinity
	# Warnings and worse reach the console.  TCG runs the guest at a
	# fraction of native speed, more so with KASAN: the detectors get
	# longer timeouts than on hardware (a soft lockup after 60 s, an RCU
	# stall after 60 s, a hung task after 240 s).
	APPEND+=" panic=-1 loglevel=5 watchdog_thresh=30"
	APPEND+=" rcupdate.rcu_cpu_stall_timeout=60"
	APPEND+=" sysctl.kernel.hung_task_timeout_secs=240"
	APPEND+=" stress.time=$STRESS_TIME stress.seed=$STRESS_SEED $HUGE"
	WORK=$OUT/stress-$ARCH
	mkdir -p "$WORK"

	for side in $SIDES; do
		src=$BASE
		[[ $side == patched ]] && src=$TREE
		build_kernel "$src" "$OUT/stress-$side-$ARCH" "stress-$side-$ARCH" \
			"$CMP/compare.config" "$CMP/compare-$ARCH.config" \
			"$STR/stress.config"
	done

	CFLAGS_USER=(-static -O2 -Wall -Wextra -Werror)
	"$CC_USER" "${CFLAGS_USER[@]}" -o "$WORK/init" "$STR/init.c"
	"$CC_USER" "${CFLAGS_USER[@]}" -pthread -o "$WORK/pmstress" \
		"$STR/pmstress.c"
	# Its checks catch the values they are there for (on this machine).
	gcc "${CFLAGS_USER[@]}" -pthread -o "$WORK/pmstress-host" \
		"$STR/pmstress.c"
	"$WORK/pmstress-host" selftest || die "pmstress's checks are broken"
	fetch_tools
	{
		initramfs_dirs
		echo "file /init $WORK/init 0755 0 0"
		echo "file /bin/pmstress $WORK/pmstress 0755 0 0"
		echo "file $LD_SO $WORK/root/ld.so 0755 0 0"
		for f in "$WORK"/root/bin/*; do
			echo "file /bin/${f##*/} $f 0755 0 0"
		done
		for f in "$WORK"/root/lib/*; do
			echo "file /lib/${f##*/} $f 0755 0 0"
		done
	} >"$WORK/initramfs.list"
	make_initramfs "$WORK/initramfs.list" "$WORK/initramfs.cpio" \
		"$OUT/stress-${SIDES%% *}-$ARCH"

	for side in $SIDES; do
		kout=$OUT/stress-$side-$ARCH
		log=$LOGS/stress-$side-$ARCH.log
		step "$ARCH: $side guest: $STRESS_TIME s of stress ($log)"
		t0=$SECONDS
		boot_guest "$kout/$IMAGE" "$WORK/initramfs.cpio" "$log" \
			"$APPEND" || true
		ok=1
		step "$ARCH: $side guest ran for $((SECONDS - t0))s"
		# What ran: stress-ng's stressors and how its run ended,
		# pmstress's counts, trinity's syscalls.
		echo "  stress-ng: $(grep -cE '^stress-ng: metrc: \[[0-9]+\] [a-z-]+ +[0-9]+ ' "$log") stressors ($(grep -E '^stress-ng: metrc: \[[0-9]+\] [a-z-]+ +[0-9]+ ' "$log" |
			awk '{ printf "%s%s %s", n++ ? ", " : "", $4, $5 }'))"
		grep -E '^stress-ng: (warn|fail|info): .*(run completed|aborted|failed)' "$log" |
			sed 's/^stress-ng: [a-z]*: *\[[0-9]*\] */  stress-ng: /' || true
		grep -E '^PMSTRESS: done' "$log" | sed 's/^PMSTRESS: done: /  pmstress: /' || true
		# trinity's count at its end, or the last it printed on the
		# way (it counts every 10000 syscalls) if it had to be killed.
		grep -E 'Ran [0-9]+ syscalls|\] [0-9]+ iterations\.' "$log" |
			tail -1 | sed 's/^.*\] /  trinity: /' || true
		step "$ARCH: $side: $(grep -c 'Out of memory: Killed process' "$log") OOM kills, $(grep -c 'page allocation failure' "$log") allocation failures (not splats)"
		if ! grep -q '^init: done$' "$log"; then
			warn "$ARCH: the $side guest did not get to its end (see $log)"
			ok=0
		fi
		if ! grep -q '^PMSTRESS: done' "$log" ||
		   grep -q '^PMSTRESS: FAIL' "$log"; then
			warn "$ARCH: pmstress found wrong values, or did not finish, on the $side kernel:"
			{ grep '^PMSTRESS: FAIL' "$log" || true; } | sort |
				uniq -c | sort -rn | sed -n '1,10s/^/  ! /p' >&2
			ok=0
		fi
		# The warning /init made happen is stock's; on arm64 it must
		# have happened (else the trigger is broken and says nothing).
		: >"$log.known"
		drop_known_stock "$log" "$log.known" >"$log.checked"
		if [[ -s $log.known ]]; then
			echo "  stock warning made to happen at start: $(sed 's/^.*\] //' "$log.known")"
		elif [[ $ARCH == arm64 ]]; then
			warn "$ARCH: /init's trigger did not make 6.12's uffd-wp warning happen on the $side kernel"
			ok=0
		fi
		echo "  splats: $(grep -cE "$STRESS_SPLAT_RE" "$log.checked") lines"
		if grep -qE "$STRESS_SPLAT_RE" "$log.checked"; then
			warn "$ARCH: the $side kernel logged a problem:"
			grep -E "$STRESS_SPLAT_RE" "$log.checked" |
				sed -n '1,10s/^/  ! /p' >&2
			ok=0
		fi
		if ((ok)); then
			step "$ARCH: $side: clean"
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	done
done
echo "$passed passed, $failed failed"
((failed == 0))

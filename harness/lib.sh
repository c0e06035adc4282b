# shellcheck shell=bash
# Definitions shared by the harness scripts.  Source it; don't run it.
# shellcheck disable=SC2034 # the variables are used by the scripts

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
BUILD=$REPO/build
BASE=$BUILD/base          # pristine linux-source-6.12, never modified
TREE=$BUILD/linux         # base + series + symlinks to the new files
OUT=$BUILD/out            # kbuild output directories (O=)
LOGS=$BUILD/logs
STAMPS=$BUILD/stamps
SERIES=$REPO/series
QUILTRC_FILE=$REPO/harness/quiltrc

LINUX_SOURCE_PKG=linux-source-6.12
LINUX_SOURCE_TARBALL=/usr/src/linux-source-6.12.tar.xz

# The configuration every KUnit build uses, relative to the kernel tree.
KUNITCONFIG=mm/tests/.kunitconfig
DEFAULT_ARCHS="x86_64 arm64"
# Also accepted in ARCHS (make test ARCHS=riscv64), not run by default:
# riscv64 runs the suite where the PUD helpers of other architectures live;
# arm64-64k is arm64 with 64K pages and 42-bit VA, two-level page tables
# (the PMD is folded: PMD_SIZE == PUD_SIZE == 512M).
EXTRA_ARCHS="riscv64 arm64-64k"

PROG=${0##*/}
log()  { printf '%s: %s\n' "$PROG" "$*"; }
warn() { printf '%s: warning: %s\n' "$PROG" "$*" >&2; }
die()  { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }

# Print the patches of the series, in order (paths relative to $REPO).
series_patches() {
	awk '!/^[[:space:]]*(#|$)/ { print $1 }' "$SERIES"
}

# Print "PATCH FILE" for every new file a "#+ FILE..." line names, in
# series order.  With an argument, only the files of that patch.
# shellcheck disable=SC2120 # the argument is optional
series_new_files() {
	awk -v want="${1-}" '
		/^#\+/ {
			sub(/^#\+[[:space:]]*/, "")
			if (cur == "" || (want != "" && want != cur))
				next
			for (i = 1; i <= NF; i++)
				print cur, $i
			next
		}
		/^[[:space:]]*(#|$)/ { next }
		{ cur = $1 }' "$SERIES"
}

# The kernel version of a tree, from its Makefile: e.g. 6.12.118.
tree_kernelversion() {
	awk '$2 == "=" && $1 ~ /^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)$/ {
		v[$1] = $3
	} END {
		printf "%s.%s.%s%s\n", v["VERSION"], v["PATCHLEVEL"], v["SUBLEVEL"], v["EXTRAVERSION"]
	}' "$1/Makefile"
}

tree_sublevel() {
	awk '$1 == "SUBLEVEL" && $2 == "=" { print $3; exit }' "$1/Makefile"
}

# Route the compilers through ccache.  CCACHE_BASEDIR makes the absolute
# paths under build/ relative, so clones at other paths share the cache.
use_ccache() {
	if [[ -d /usr/lib/ccache ]]; then
		export PATH=/usr/lib/ccache:$PATH
	fi
	export CCACHE_BASEDIR=$BUILD
	export CCACHE_NOHASHDIR=true
	export CCACHE_MAXSIZE=8G
}

# make variables that select an architecture (for direct kbuild calls).
# Sets the array MAKE_ARCH.
make_arch_vars() {
	case $1 in
	x86_64)	MAKE_ARCH=(ARCH=x86_64) ;;
	arm64|arm64-64k) MAKE_ARCH=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-) ;;
	riscv64) MAKE_ARCH=(ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu-) ;;
	arm)	MAKE_ARCH=(ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf-) ;;
	*)	die "unknown architecture '$1' (known: $DEFAULT_ARCHS $EXTRA_ARCHS)" ;;
	esac
}

# Kernel log lines that mean something went wrong even if every test passed.
SPLAT_RE='WARNING:|BUG:|kernel BUG|Kernel panic|Oops|Internal error:'
SPLAT_RE+='|Unable to handle kernel|general protection fault|Call [Tt]race:'
SPLAT_RE+='|possible circular locking|possible recursive locking'
SPLAT_RE+='|inconsistent lock state|suspicious RCU usage|lockdep is turned off'
SPLAT_RE+='|DEBUG_LOCKS_WARN_ON|turning off the locking correctness validator'
SPLAT_RE+='|held when returning to user space|bad unlock balance'
SPLAT_RE+='|trying to register non-static key|INFO: task .* blocked for more than'
SPLAT_RE+='|soft lockup|hard LOCKUP|self-detected stall|detected stalls? on CPU'
SPLAT_RE+='|KASAN|UBSAN|KFENCE|list_(add|del) corruption|refcount_t:'
SPLAT_RE+='|page dumped because'
# The huge pages the command line reserves did not all come: the tests of
# that size would skip (alike on both kernels of make compare).
SPLAT_RE+='|HugeTLB: allocating .* failed'

# The KUnit architectures of $ARCHS (default $DEFAULT_ARCHS), checked, with
# what an architecture beyond the defaults needs installed (make setup
# installs what the default ones need).  Sets the array KUNIT_ARCHS.
kunit_archs() {
	local arch
	read -r -a KUNIT_ARCHS <<<"${ARCHS:-$DEFAULT_ARCHS}"
	((${#KUNIT_ARCHS[@]})) || die "ARCHS is empty"
	for arch in "${KUNIT_ARCHS[@]}"; do
		make_arch_vars "$arch"    # dies on an unknown architecture
		if [[ $arch == riscv64 ]]; then
			install_packages gcc-riscv64-linux-gnu qemu-system-misc \
				qemu-system-data
		fi
	done
}

# kunit.py options that select the architecture and the configuration
# (valid for "kunit.py config", "build" and "run").  Sets KUNIT_CONFIG_ARGS.
# The debugfs view is enabled too, so that every object of the series is
# built (and booted) by "make test" and checked by "make check".
kunit_config_args() {
	# DAMON: its vaddr access check is a pt_iter walk, with a suite.
	KUNIT_CONFIG_ARGS=(--kunitconfig="$KUNITCONFIG"
			   --kconfig_add=CONFIG_DEBUG_FS=y
			   --kconfig_add=CONFIG_PT_ITER_DEBUGFS=y
			   --kconfig_add=CONFIG_DAMON=y
			   --kconfig_add=CONFIG_DAMON_VADDR=y
			   --kconfig_add=CONFIG_DAMON_VADDR_KUNIT_TEST=y)
	case $1 in
	riscv64)
		# riscv has no CONFIG_MEMORY_FAILURE in 6.12; kunit.py refuses a
		# configuration that lacks an option the kunitconfig asks for.
		mkdir -p "$OUT"
		grep -v '^CONFIG_MEMORY_FAILURE=' "$TREE/$KUNITCONFIG" \
			>"$OUT/riscv64.kunitconfig"
		KUNIT_CONFIG_ARGS[0]=--kunitconfig=$OUT/riscv64.kunitconfig
		KUNIT_CONFIG_ARGS+=(--arch=riscv)
		;;
	arm64-64k) KUNIT_CONFIG_ARGS+=(--arch=arm64) ;;
	*)	KUNIT_CONFIG_ARGS+=(--arch="$1") ;;
	esac
	case $1 in
	x86_64)
		KUNIT_CONFIG_ARGS+=(--kconfig_add=CONFIG_MEM_SOFT_DIRTY=y
				    --kconfig_add=CONFIG_CHECKPOINT_RESTORE=y
				    --qemu_args="-cpu max -smp 2 -m 3G")
		;;
	arm64)
		KUNIT_CONFIG_ARGS+=(--cross_compile=aarch64-linux-gnu-
				    --qemu_args="-smp 2 -m 3G")
		;;
	arm64-64k)
		# PGTABLE_LEVELS=2: pgd -> pte, p4d/pud/pmd folded.  8G: a
		# PMD is 512M (order 13, a whole pageblock), and with the two
		# 512M hugetlb pages reserved, 3G and 4G leave no free 512M
		# block for debug_vm_pgtable's order-13 allocation at boot (a
		# warn_alloc() splat) nor for the PMD THPs of the tests.
		KUNIT_CONFIG_ARGS+=(--cross_compile=aarch64-linux-gnu-
				    --kconfig_add=CONFIG_ARM64_64K_PAGES=y
				    --kconfig_add=CONFIG_ARM64_VA_BITS_42=y
				    --kconfig_add=CONFIG_PGTABLE_LEVELS=2
				    --qemu_args="-smp 2 -m 8G")
		;;
	riscv64)
		KUNIT_CONFIG_ARGS+=(--cross_compile=riscv64-linux-gnu-
				    --kconfig_add=CONFIG_SPARSEMEM_MANUAL=y
				    --kconfig_add=CONFIG_STRICT_DEVMEM=y
				    --qemu_args="-smp 2 -m 3G")
		;;
	*)	die "unknown architecture '$1' (known: $DEFAULT_ARCHS $EXTRA_ARCHS)" ;;
	esac
}

# The objects that use what the series adds or changes, as "object
# config-symbol" (an object is built when its symbol is y): the pt_iter
# objects, and mm/ and fs/proc/ objects that include the page-table headers
# the series patches.  make cross and make check-bisect build these.
SERIES_OBJECTS=(
	"mm/pt_iter.o MMU"
	"mm/pt_iter_debugfs.o PT_ITER_DEBUGFS"
	"mm/tests/pt_iter_kunit.o PT_ITER_KUNIT_TEST"
	"mm/tests/pt_iter_bench.o PT_ITER_KUNIT_BENCH"
	"mm/memory.o MMU"
	"mm/hugetlb.o HUGETLB_PAGE"
	"mm/huge_memory.o TRANSPARENT_HUGEPAGE"
	"mm/userfaultfd.o USERFAULTFD"
	"mm/migrate.o MIGRATION"
	"mm/mempolicy.o NUMA"
	"mm/mincore.o MMU"
	"mm/shmem.o SHMEM"
	"mm/damon/vaddr.o DAMON_VADDR"
	"mm/memory-failure.o MEMORY_FAILURE"
	"mm/mprotect.o MMU"
	"mm/pagewalk.o MMU"
	"arch/s390/mm/gmap.o PGSTE"
	"mm/hmm.o HMM_MIRROR"
	"fs/proc/task_mmu.o PROC_PAGE_MONITOR"
)

# Kernel command line for the test kernel: reserve huge pages of every
# size the architecture maps (PUD, PMD and, on arm64, cont-PTE/cont-PMD).
# arm64 with 64K pages: 2M is cont-PTE (32 x 64K) and 512M the PMD; the
# 16G cont-PMD does not fit in the guest, and there is no PUD level.
kunit_kernel_args() {
	case $1 in
	x86_64)	echo "hugepagesz=1G hugepages=1 hugepagesz=2M hugepages=8" ;;
	arm64)	echo "hugepagesz=1G hugepages=1 hugepagesz=2M hugepages=8 hugepagesz=64K hugepages=8 hugepagesz=32M hugepages=2" ;;
	riscv64) echo "hugepagesz=1G hugepages=1 hugepagesz=2M hugepages=8" ;;
	arm64-64k) echo "hugepagesz=2M hugepages=8 hugepagesz=512M hugepages=2" ;;
	*)	die "unknown architecture '$1' (known: $DEFAULT_ARCHS $EXTRA_ARCHS)" ;;
	esac
}

# The machine a guest of architecture $1 (x86_64, arm64; arm for make
# lpae) boots on under QEMU (TCG): 2 vCPUs (an x86_64 kernel finds the
# second one in the ACPI MADT only), 8G in two NUMA nodes (arm: 1G, one
# node).  Sets CC_USER (a C compiler for its static programs), IMAGE (the
# kernel image in a build directory), QEMU and QEMU_ARGS, APPEND (its
# console and NUMA options), LD_SO (its C library's loader) and MAKE_ARCH.
guest_machine() {
	case $1 in
	x86_64)
		CC_USER=gcc
		IMAGE=arch/x86/boot/bzImage
		QEMU=qemu-system-x86_64
		QEMU_ARGS=(-M pc -cpu max -m 8G -smp 2)
		# tsc=reliable: no clocksource watchdog, whose complaint
		# that TCG's TSC is skewed (a loaded host, a long
		# allocation) lands in the middle of the console output.
		APPEND="console=ttyS0 numa=fake=2 tsc=reliable"
		LD_SO=/lib64/ld-linux-x86-64.so.2
		;;
	arm64)
		CC_USER=aarch64-linux-gnu-gcc
		IMAGE=arch/arm64/boot/Image
		QEMU=qemu-system-aarch64
		QEMU_ARGS=(-M virt -cpu max -m 8G -smp 2
			   -object memory-backend-ram,id=m0,size=4G
			   -object memory-backend-ram,id=m1,size=4G
			   -numa node,nodeid=0,cpus=0,memdev=m0
			   -numa node,nodeid=1,cpus=1,memdev=m1)
		APPEND="console=ttyAMA0"
		LD_SO=/lib/ld-linux-aarch64.so.1
		install_packages qemu-system-arm gcc-aarch64-linux-gnu \
			libc6-dev-arm64-cross
		;;
	arm)
		# 32-bit ARM with LPAE (make lpae): one node of 1G.
		CC_USER=arm-linux-gnueabihf-gcc
		IMAGE=arch/arm/boot/zImage
		QEMU=qemu-system-arm
		QEMU_ARGS=(-M virt -cpu cortex-a15 -m 1G -smp 2)
		APPEND="console=ttyAMA0"
		LD_SO=/lib/ld-linux-armhf.so.3
		install_packages qemu-system-arm gcc-arm-linux-gnueabihf \
			libc6-dev-armhf-cross
		;;
	*)
		die "unknown architecture '$1' (x86_64, arm64 or arm)"
		;;
	esac
	make_arch_vars "$1"
}

# Configure the kernel of tree $1 in the build directory $2 from the
# config fragments $4... (configure_kernel) and build its $IMAGE with $JOBS
# jobs, logging to build/logs/build-$3.log.  guest_machine() first.
build_kernel() {
	local src=$1 kout=$2 name=$3 t0=$SECONDS
	shift 3
	log "building the $name kernel (build/logs/build-$name.log)"
	configure_kernel "$src" "$kout" "$@"
	if ! make -C "$src" O="$kout" "${MAKE_ARCH[@]}" -j"$JOBS" \
		"${IMAGE##*/}" >"$LOGS/build-$name.log" 2>&1; then
		grep -E 'error|Error' "$LOGS/build-$name.log" | head -20 >&2
		die "the $name kernel does not build"
	fi
	log "the $name kernel built in $((SECONDS - t0))s"
}

# Boot the kernel image $1 with the initramfs $2 and the command line $4,
# for at most $TIMEOUT seconds; console, without control characters, to
# $3.  Returns QEMU's (or timeout's) status.  guest_machine() first.
boot_guest() {
	local image=$1 initrd=$2 log=$3 append=$4 rc
	set +e
	timeout --foreground -k 10 "$TIMEOUT" \
		"$QEMU" "${QEMU_ARGS[@]}" -accel tcg -nographic -no-reboot \
		-nic none -kernel "$image" -initrd "$initrd" \
		-append "$append" </dev/null 2>&1 |
		sed -u 's/\r$//; s/\x1bc//g; s/\x1b\[[0-9;?]*[A-Za-z]//g' >"$log"
	rc=${PIPESTATUS[0]}
	set -e
	return "$rc"
}

# The first lines of a guest's gen_init_cpio list: /dev with the console,
# the mount points, /tmp, /bin, /lib and /lib64.
initramfs_dirs() {
	printf '%s\n' "dir /dev 0755 0 0" "nod /dev/console 0600 0 0 c 5 1" \
		"dir /proc 0755 0 0" "dir /sys 0755 0 0" "dir /tmp 01777 0 0" \
		"dir /bin 0755 0 0" "dir /lib 0755 0 0" "dir /lib64 0755 0 0"
}

# Write the initramfs $2 from the gen_init_cpio list $1 with the
# gen_init_cpio of the kernel build directory $3 of build/base (built
# there first if it is not).  guest_machine() first.
make_initramfs() {
	local gen=$3/usr/gen_init_cpio
	[[ -x $gen ]] ||
		make -C "$BASE" O="$3" "${MAKE_ARCH[@]}" usr/gen_init_cpio \
			>/dev/null
	"$gen" "$1" >"$2"
}

# Serialise the scripts that write to the same place: lock NAME.
take_lock() {
	mkdir -p "$BUILD"
	exec {lock_fd}>"$BUILD/.$1.lock"
	if ! flock -n "$lock_fd"; then
		log "waiting for another '$1' to finish ..."
		flock "$lock_fd"
	fi
}

# Seconds since the script started, for timing messages.
elapsed() { printf '%ds' "$SECONDS"; }

# Install the Debian packages given as arguments that are missing.
install_packages() {
	local missing=() p
	for p in "$@"; do
		if ! dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii'; then
			missing+=("$p")
		fi
	done
	if ((${#missing[@]})); then
		[[ $(id -u) -eq 0 ]] ||
			die "missing packages: ${missing[*]} (run as root, or install them)"
		log "installing: ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -q
		apt-get install -y -q --no-install-recommends "${missing[@]}"
	fi
	# ccache's compiler links for cross compilers installed after ccache.
	if [[ $(id -u) -eq 0 ]] && command -v update-ccache-symlinks >/dev/null &&
	   { ((${#missing[@]})) || [[ ! -e /usr/lib/ccache/aarch64-linux-gnu-gcc ]]; }; then
		update-ccache-symlinks
	fi
}

# Configure a kernel: allnoconfig plus the config fragments $3..., in the
# output directory $2, from the kernel tree $1 (absolute paths; MAKE_ARCH
# must be set).
# The old .config (and its timestamp) is kept when nothing changed, so
# that rebuilds stay incremental.  Every option the fragments want =y (the
# last fragment that names it decides) must stick (merge_config.sh only
# warns): dies otherwise.
configure_kernel() {
	local src=$1 out=$2 cfg line bad=0
	shift 2
	cfg=$out/.config
	mkdir -p "$out"
	[[ -f $cfg ]] && cp -p "$cfg" "$cfg.prev"
	(
		cd "$src"
		export "${MAKE_ARCH[@]}"
		scripts/kconfig/merge_config.sh -n -O "$out" "$@"
	) >"$out/config.log" 2>&1 || {
		cat "$out/config.log"
		die "configuring $out failed"
	}
	if [[ -f $cfg.prev ]] && cmp -s "$cfg" "$cfg.prev"; then
		mv "$cfg.prev" "$cfg"
	else
		rm -f "$cfg.prev"
	fi
	# What the fragments want, the last one that names an option winning
	# (merge_config.sh's rule): each option wanted =y must be so.
	declare -A want=()
	while read -r line; do
		if [[ $line == CONFIG_*=* ]]; then
			want[${line%%=*}]=${line#*=}
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set ]]; then
			want[${BASH_REMATCH[1]}]=n
		fi
	done < <(cat "$@")
	for line in "${!want[@]}"; do
		[[ ${want[$line]} == y ]] || continue
		grep -qx "$line=y" "$cfg" && continue
		warn "$out: $line=y did not stick; .config has:" \
		     "'$(grep -E "^(# )?$line[= ]" "$cfg" || echo nothing)'"
		bad=1
	done
	((bad == 0)) || die "the configuration of $out lacks wanted options"
}

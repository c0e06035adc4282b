#!/usr/bin/env bash
# make trace: where the instructions of one walk go.  Boots the x86_64
# kernel of "make bench" (build/out/bench-x86_64, built by "make bench")
# under QEMU with its gdb stub and "-icount shift=0,sleep=off", stops at
# TRACE_FUNC (default pt_bench_iter, the pt_iter side of the smaps-shaped
# rows; walk_page_vma is the callback side) for a VMA of TRACE_LEN bytes,
# single-steps that call to its return and prints the instructions executed
# per function, then per instruction of TRACE_ANNOTATE (if set).
#
#   make trace TRACE_LEN=0x1000000                       # hugetlb2M-16M
#   make trace TRACE_LEN=0x4000000 TRACE_AFTER="bench mthp64K-64M"   # thp
#   make trace TRACE_FUNC=walk_page_vma TRACE_LEN=0x1000000
#
# TRACE_LEN=0 takes the first call after TRACE_AFTER whatever its first
# argument (TRACE_MINLEN=N: a VMA of at least N bytes), TRACE_SKIP=N skips
# the first N calls that match, and TRACE_PARTIAL=1 keeps the first
# TRACE_MAX instructions of a longer call (a sample of a walk of small
# pages):
#
#   make trace TRACE_FUNC=pt_bench_pagemap_walk TRACE_LEN=0 TRACE_PARTIAL=1 \
#	TRACE_MAX=20000 TRACE_SKIP=1 TRACE_AFTER="bench vmas-2000x1-4p"
#
# Stepping runs at about a thousand instructions a second: trace walks of
# THP or hugetlb (thousands of instructions), not of 64M of small pages.
#
# TRACE_ARCH=arm64 does the same with the arm64 kernels (of "make bench
# ARCHS=arm64", or of "make compare BENCH=1 ARCHS=arm64"), under
# gdb-multiarch.
#
# TRACE_KERNEL=stock or TRACE_KERNEL=patched traces a kernel of
# "make compare BENCH=1 ARCHS=x86_64" instead (the stock one, or the
# patched one built without debug options), booted as that bench boots it,
# with the real /proc code: TRACE_FUNC is then a kernel function such as
# pagemap_walk_vma or pagemap_pmd_range, usually with TRACE_LEN=0 and
# TRACE_AFTER a "PMBENCH: ..." line of the layout before, e.g. one 2M
# window of pagemap's read of small pages on each kernel:
#
#   make trace TRACE_KERNEL=patched TRACE_FUNC=pagemap_walk_vma TRACE_LEN=0 \
#	TRACE_SKIP=8 TRACE_AFTER="small-512M numa_maps" TRACE_MAX=100000
#   make trace TRACE_KERNEL=stock TRACE_FUNC=pagemap_pmd_range TRACE_LEN=0 \
#	TRACE_SKIP=8 TRACE_AFTER="small-512M numa_maps" TRACE_MAX=100000
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FUNC=${TRACE_FUNC:-pt_bench_iter}
LEN=${TRACE_LEN:-0x1000000}
ARCH=${TRACE_ARCH:-x86_64}
case $ARCH in
x86_64)
	IMAGE=arch/x86/boot/bzImage
	GDB=gdb
	OBJDUMP=objdump
	install_packages gdb
	;;
arm64)
	IMAGE=arch/arm64/boot/Image
	GDB=gdb-multiarch
	OBJDUMP=aarch64-linux-gnu-objdump
	install_packages gdb-multiarch qemu-system-arm binutils-aarch64-linux-gnu
	;;
*)
	die "TRACE_ARCH is x86_64 or arm64"
	;;
esac
case ${TRACE_KERNEL:-bench} in
bench)
	KDIR=$OUT/bench-$ARCH
	HINT="make bench ARCHS=$ARCH"
	;;
stock | patched)
	KDIR=$OUT/compare-${TRACE_KERNEL/patched/patched-bench}-$ARCH
	HINT="make compare BENCH=1 ARCHS=$ARCH"
	[[ -f $OUT/compare-$ARCH/initramfs.cpio ]] ||
		die "no bench initramfs: run '$HINT' first"
	;;
*)
	die "TRACE_KERNEL is bench, stock or patched"
	;;
esac
[[ -f $KDIR/vmlinux && -f $KDIR/$IMAGE ]] ||
	die "no $KDIR: run '$HINT' first"
WORK=$(mktemp -d)
trap 'kill "$QEMU_PID" 2>/dev/null || true; rm -rf "$WORK"' EXIT
PORT=$((20000 + RANDOM % 10000))

# The command line of "make bench" (kunit.py's, for arm64) or of
# compare.sh's bench mode, without KASLR (gdb needs the addresses of
# vmlinux).
KUNIT_APPEND="nokaslr $(kunit_kernel_args "$ARCH") kunit.filter_glob=pt_iter_bench kunit.enable=1 kunit_shutdown=poweroff"
PMBENCH_APPEND="nokaslr pmcheck=bench panic=-1 loglevel=5 hugepagesz=1G hugepages=1 hugepagesz=2M hugepages=136"
case $ARCH-${TRACE_KERNEL:-bench} in
x86_64-bench)
	qemu-system-x86_64 -nodefaults -kernel "$KDIR/$IMAGE" \
		-append "$KUNIT_APPEND console=ttyS0" \
		-no-reboot -nographic -serial "file:$WORK/serial.log" -bios qboot.rom \
		-cpu max -smp 2 -m 3G -icount shift=0,sleep=off \
		-gdb "tcp::$PORT" >/dev/null 2>&1 &
	;;
x86_64-*)
	qemu-system-x86_64 -M pc -cpu max -m 8G -smp 2 -accel tcg \
		-nographic -no-reboot -nic none \
		-kernel "$KDIR/$IMAGE" \
		-initrd "$OUT/compare-x86_64/initramfs.cpio" \
		-append "console=ttyS0 numa=fake=2 $PMBENCH_APPEND" \
		-serial "file:$WORK/serial.log" -monitor none \
		-icount shift=0,sleep=off -gdb "tcp::$PORT" >/dev/null 2>&1 &
	;;
arm64-bench)
	qemu-system-aarch64 -nodefaults -machine virt -cpu max,pauth-impdef=on \
		-smp 2 -m 3G -kernel "$KDIR/$IMAGE" \
		-append "$KUNIT_APPEND console=ttyAMA0" \
		-no-reboot -nographic -serial "file:$WORK/serial.log" \
		-icount shift=0,sleep=off -gdb "tcp::$PORT" >/dev/null 2>&1 &
	;;
arm64-*)
	qemu-system-aarch64 -M virt -cpu max -m 8G -smp 2 \
		-object memory-backend-ram,id=m0,size=4G \
		-object memory-backend-ram,id=m1,size=4G \
		-numa node,nodeid=0,cpus=0,memdev=m0 \
		-numa node,nodeid=1,cpus=1,memdev=m1 \
		-accel tcg -nographic -no-reboot -nic none \
		-kernel "$KDIR/$IMAGE" \
		-initrd "$OUT/compare-arm64/initramfs.cpio" \
		-append "console=ttyAMA0 $PMBENCH_APPEND" \
		-serial "file:$WORK/serial.log" -monitor none \
		-icount shift=0,sleep=off -gdb "tcp::$PORT" >/dev/null 2>&1 &
	;;
esac
QEMU_PID=$!
sleep 1

TRACE_FUNC=$FUNC TRACE_LEN=$LEN TRACE_MINLEN=${TRACE_MINLEN:-0} TRACE_AFTER=${TRACE_AFTER:-} \
TRACE_MAX=${TRACE_MAX:-40000} TRACE_PARTIAL=${TRACE_PARTIAL:-} TRACE_SKIP=${TRACE_SKIP:-0} TRACE_OUT=$WORK/pcs TRACE_SERIAL=$WORK/serial.log \
TRACE_ARCH=$ARCH TRACE_PORT=$PORT timeout 1800 "$GDB" -nx -batch -ex "source $REPO/harness/trace.py" \
	"$KDIR/vmlinux" 2>&1 | grep '^trace.py:' || true
[[ -s $WORK/pcs ]] || die "nothing traced (see the arguments above)"

nm "$KDIR/vmlinux" >"$WORK/nm"
python3 - "$WORK/nm" "$WORK/pcs" "$KDIR/vmlinux" "${TRACE_ANNOTATE:-}" "$OBJDUMP" <<'PY'
import bisect, collections, subprocess, sys
syms = sorted((int(a, 16), n) for a, t, n in
              (l.split()[:3] for l in open(sys.argv[1]) if len(l.split()) >= 3)
              if t in 'tTwW' and not n.startswith('$'))  # arm64's $x, $d
addrs = [a for a, _ in syms]
pcs = [int(x, 16) for x in open(sys.argv[2]).read().split()]
per_fn = collections.Counter(syms[bisect.bisect_right(addrs, p) - 1][1] for p in pcs)
print('%d instructions' % len(pcs))
for name, n in per_fn.most_common():
    print('%8d  %s' % (n, name))
if sys.argv[4]:
    per_pc = collections.Counter(pcs)
    dis = subprocess.run([sys.argv[5], '-d', '--no-show-raw-insn', sys.argv[3],
                          '--disassemble=' + sys.argv[4]],
                         capture_output=True, text=True).stdout
    print('\n%s, per instruction:' % sys.argv[4])
    for line in dis.splitlines():
        head = line.split(':')[0].strip()
        if line.startswith('ffff') and ' ' not in head:
            n = per_pc[int(head, 16)]
            if n:
                print('%6d %s' % (n, line.split(':', 1)[1]))
PY

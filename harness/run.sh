#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run`: build a small kernel with pt_iter and its debugfs view from the
# work tree (build/linux), boot it under QEMU (TCG) with hugetlb pages of
# every size reserved, and run harness/demo/ptdemo in it: for each kind of
# mapping it prints what pt_iter sees next to /proc/self/smaps.
#
# Usage: harness/run.sh            (ARCH=x86_64, the default)
#        ARCH=arm64 harness/run.sh
# Environment:
#   ARCH      x86_64 (default) or arm64
#   KSRC      kernel source tree (default: build/linux, made by `make setup`)
#   JOBS      parallel build jobs (default: nproc)
#   TIMEOUT   seconds the guest may run (default: 900)
#   NO_INSTALL=1  fail instead of apt-get installing missing packages
#
# Output: build/out/run-$ARCH/ (kernel build, initramfs, ptdemo binaries),
# build/logs/run-$ARCH.log (guest console).  Exits non-zero unless the demo
# printed its end marker.

set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HARNESS=$REPO/harness
ARCH=${ARCH:-x86_64}
[[ $ARCH == aarch64 ]] && ARCH=arm64
KSRC=${KSRC:-$TREE}
JOBS=${JOBS:-$(nproc)}
TIMEOUT=${TIMEOUT:-900}
RUN_OUT=$OUT/run-$ARCH
LOG=$LOGS/run-$ARCH.log
END_MARKER="PTDEMO: END"

step() { printf '==> %s\n' "$*"; }

case $ARCH in
x86_64)
	CC_USER=gcc
	IMAGE=arch/x86/boot/bzImage
	IMAGE_TARGET=bzImage
	QEMU=qemu-system-x86_64
	# 5G, not 4G: with 4G (or 3G) no 1G-aligned gigabyte is free when
	# hugetlb reserves its boot-time page (the initrd sits below 2G, the
	# early allocations at the top of the memory above 4G).
	QEMU_ARGS=(-M pc -cpu max -m 5G -smp 2)
	CONSOLE=ttyS0
	PKGS=(gcc make flex bison bc libelf-dev cpio qemu-system-x86)
	;;
arm64)
	CC_USER=aarch64-linux-gnu-gcc
	IMAGE=arch/arm64/boot/Image
	IMAGE_TARGET=Image
	QEMU=qemu-system-aarch64
	QEMU_ARGS=(-M virt -cpu max -m 4G -smp 2)
	CONSOLE=ttyAMA0
	PKGS=(gcc make flex bison bc libelf-dev cpio qemu-system-arm
	      gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
	;;
*)
	die "unknown ARCH=$ARCH (x86_64 or arm64)"
	;;
esac
make_arch_vars "$ARCH"
HUGE=$(kunit_kernel_args "$ARCH")

if [[ ! -f $KSRC/Makefile || ! -d $KSRC/mm ]]; then
	printf '%s: error: no kernel tree at %s\n' "$PROG" "$KSRC" >&2
	printf "%s: run 'make setup' first (or set KSRC=/path/to/linux)\n" \
		"$PROG" >&2
	exit 1
fi
[[ -f $KSRC/mm/pt_iter.c ]] || die "$KSRC has no mm/pt_iter.c: not a pt_iter tree"

# Packages: `make setup` installs them all; check again here, so that a
# fresh machine works even without it.
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' ||
		missing+=("$p")
done
if ((${#missing[@]})); then
	[[ -z ${NO_INSTALL:-} && $(id -u) -eq 0 ]] ||
		die "missing packages: ${missing[*]} (run as root, or install them)"
	step "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

take_lock "run-$ARCH"
use_ccache
mkdir -p "$RUN_OUT/kernel" "$LOGS"
KMAKE=(make -C "$KSRC" O="$RUN_OUT/kernel" "${MAKE_ARCH[@]}" -j"$JOBS")

step "configuring the $ARCH kernel in build/out/run-$ARCH/kernel"
configure_kernel "$KSRC" "$RUN_OUT/kernel" "$HARNESS/run.config" \
	"$HARNESS/run-$ARCH.config"

step "building the kernel ($IMAGE_TARGET); log in build/logs/build-run-$ARCH.log"
t0=$SECONDS
if ! "${KMAKE[@]}" "$IMAGE_TARGET" >"$LOGS/build-run-$ARCH.log" 2>&1; then
	grep -E "error|Error" "$LOGS/build-run-$ARCH.log" | head -40 >&2
	die "kernel build failed (see build/logs/build-run-$ARCH.log)"
fi
log "kernel built in $((SECONDS - t0))s"

# Guest programs: static, so the initramfs needs no libc (and no busybox).
step "building ptdemo and init for $ARCH"
CFLAGS_USER=(-static -O2 -Wall -Wextra -Werror)
"$CC_USER" "${CFLAGS_USER[@]}" -o "$RUN_OUT/ptdemo" "$HARNESS/demo/ptdemo.c"
"$CC_USER" "${CFLAGS_USER[@]}" -o "$RUN_OUT/init" "$HARNESS/demo/init.c"

step "building the initramfs"
GEN_CPIO=$RUN_OUT/kernel/usr/gen_init_cpio
[[ -x $GEN_CPIO ]] || "${KMAKE[@]}" usr/gen_init_cpio >/dev/null
cat >"$RUN_OUT/initramfs.list" <<LIST
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
nod /dev/null 0666 0 0 c 1 3
dir /proc 0755 0 0
dir /sys 0755 0 0
dir /tmp 01777 0 0
dir /bin 0755 0 0
file /init $RUN_OUT/init 0755 0 0
file /bin/ptdemo $RUN_OUT/ptdemo 0755 0 0
LIST
"$GEN_CPIO" "$RUN_OUT/initramfs.list" >"$RUN_OUT/initramfs.cpio"

step "booting $QEMU (TCG, timeout ${TIMEOUT}s); console saved to build/logs/run-$ARCH.log"
APPEND="console=$CONSOLE panic=-1 loglevel=5 $HUGE"
t0=$SECONDS
set +e
timeout --foreground -k 10 "$TIMEOUT" \
	"$QEMU" "${QEMU_ARGS[@]}" -accel tcg -nographic -no-reboot -nic none \
	-kernel "$RUN_OUT/kernel/$IMAGE" -initrd "$RUN_OUT/initramfs.cpio" \
	-append "$APPEND" </dev/null 2>&1 |
	sed -u 's/\r$//; s/\x1bc//g; s/\x1b\[[0-9;?]*[A-Za-z]//g' | tee "$LOG"
rc=${PIPESTATUS[0]}
set -e
log "the guest ran for $((SECONDS - t0))s (exit status $rc)"

if ! grep -q "^$END_MARKER" "$LOG"; then
	[[ $rc == 124 ]] && warn "the guest timed out"
	die "the demo did not complete (no '$END_MARKER' in build/logs/run-$ARCH.log)"
fi
if grep -qE "^PTDEMO: FAIL|BUG:|WARNING:|Oops|Kernel panic" "$LOG"; then
	die "the demo completed, but the log shows failures or kernel warnings"
fi
log "demo complete (build/logs/run-$ARCH.log)"

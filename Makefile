# pt_iter developer workspace.  Every target is a thin wrapper over a script
# in harness/; see README.md.
#
#   make setup          install packages, unpack the base, build/linux = base + series
#   make test           KUnit on x86_64 and arm64 under QEMU (ARCHS="x86_64" to restrict)
#   make check          checkpatch, kernel-doc, W=1 + sparse build of the pt_iter objects
#   make check-bisect   build every prefix of the series (slow)
#   make cross          cross-build the series: 9 architectures, 7 reduced configs (CROSS_ARCHS=)
#   make series         export a git-am-able series with a cover letter to build/series/
#   make run, make bench
#   make trace          instructions per function of one walk (bench kernel, gdb)
#   make compare        stock vs patched kernel in QEMU: /proc of a catalogue of mappings, byte for byte
#   make lpae           stock vs patched on 32-bit ARM with LPAE: a PROT_NONE THP, the PSS of a THP
#   make stress         stock and patched kernels (KASAN, lockdep) under mm churn, /proc readers and trinity
#   make clean          remove build/out (kernel builds)
#   make distclean      remove build/ entirely

SHELL := /bin/bash

.PHONY: help setup test check check-bisect cross series run bench trace compare lpae stress clean distclean

help:
	@sed -n 's/^#   make/make/p' Makefile

setup:
	@bash harness/setup.sh

test:
	@bash harness/test.sh

check:
	@bash harness/check.sh

check-bisect:
	@bash harness/bisect.sh

cross:
	@bash harness/cross.sh

series:
	@bash harness/series.sh

run bench trace compare lpae stress:
	@if [ -f harness/$@.sh ]; then \
		exec bash harness/$@.sh; \
	else \
		echo "make $@: harness/$@.sh does not exist (yet)" >&2; exit 1; \
	fi

clean:
	rm -rf build/out

distclean:
	rm -rf build

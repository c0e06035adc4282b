#!/usr/bin/env bash
# make setup: install the packages the project needs, unpack the pristine
# kernel source to build/base, and (re)create the work tree build/linux:
# base + the patches of the series (applied with quilt) + symlinks to the
# new files that live in this repository.
#
# Fast and side-effect free when nothing changed.  FORCE=1 discards
# changes in build/linux that were not refreshed into a patch.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PACKAGES=(
	build-essential make gcc patch xz-utils git rsync perl python3
	flex bison bc libelf-dev libssl-dev cpio kmod dwarves
	ccache quilt sparse busybox-static
	"$LINUX_SOURCE_PKG"
	qemu-system-x86 qemu-system-arm
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
)

STAGE=$BUILD/stage        # scratch tree where the series is applied
MANIFEST=$STAMPS/linux.files

# build/base: the tarball of the installed linux-source-6.12, unpacked once
# per package version.
unpack_base() {
	[[ -f $LINUX_SOURCE_TARBALL ]] ||
		die "$LINUX_SOURCE_TARBALL is missing (is $LINUX_SOURCE_PKG installed?)"
	DEB_VERSION=$(dpkg-query -W -f='${Version}' "$LINUX_SOURCE_PKG")
	BASE_ID="$LINUX_SOURCE_PKG $DEB_VERSION $(stat -c '%s %Y' "$LINUX_SOURCE_TARBALL")"

	if [[ ! -d $BASE || ! -f $STAMPS/base || $(<"$STAMPS/base") != "$BASE_ID" ]]; then
		log "unpacking $LINUX_SOURCE_TARBALL ($DEB_VERSION) to build/base ..."
		rm -rf "$BASE.tmp" "$STAMPS/base"
		mkdir -p "$BASE.tmp" "$STAMPS"
		tar -xf "$LINUX_SOURCE_TARBALL" -C "$BASE.tmp" --strip-components=1
		rm -rf "$BASE"
		mv "$BASE.tmp" "$BASE"
		echo "$BASE_ID" >"$STAMPS/base"
	fi
	KERNELVERSION=$(tree_kernelversion "$BASE")
	log "base: $LINUX_SOURCE_PKG $DEB_VERSION, Linux $KERNELVERSION (SUBLEVEL $(tree_sublevel "$BASE"))"
}

# What build/linux is made from: the base, the series, the patches and the
# scripts that apply them.
tree_key() {
	local p
	{
		echo "$BASE_ID"
		cat "$SERIES" "${BASH_SOURCE[0]}" "$REPO/harness/lib.sh" "$QUILTRC_FILE"
		for p in "${PATCHES[@]}"; do
			echo "== $p"
			cat "$REPO/$p"
		done
	} | sha256sum | cut -d' ' -f1
}

# Relative symlink target for the repository file $1 placed at the same
# path under build/<dir>/.
link_target() {
	local up=../.. rest=$1
	while [[ $rest == */* ]]; do
		up=../$up
		rest=${rest#*/}
	done
	echo "$up/$1"
}

# Make each new file of the series a symlink (in tree $1) to the file in the
# repository, so edits in the repository rebuild incrementally.  Files the
# repository does not have yet are skipped (with a warning if $2 is "warn").
link_new_files() {
	local dir=$1 mode=${2-} patch file target linked=0 absent=0
	while read -r patch file; do
		target=$(link_target "$file")
		if [[ ! -e $REPO/$file ]]; then
			absent=$((absent + 1))
			[[ $mode == warn ]] &&
				warn "$file (new in $patch) is not in the repository yet: skipped"
			# Drop a link left from when the file existed.
			if [[ -L $dir/$file ]]; then rm -f "$dir/$file"; fi
			continue
		fi
		linked=$((linked + 1))
		if [[ -L $dir/$file && $(readlink "$dir/$file") == "$target" ]]; then
			continue
		fi
		if [[ -e $dir/$file && ! -L $dir/$file ]]; then
			die "$file (new in $patch) already exists in the kernel tree; a new file must be new"
		fi
		mkdir -p "$(dirname "$dir/$file")"
		ln -sfn "$target" "$dir/$file"
	done < <(series_new_files)
	NEW_LINKED=$linked NEW_MISSING=$absent
}

# The files quilt tracks in tree $1 (those it keeps a backup of in .pc).
quilt_files() {
	local p
	[[ -f $1/.pc/applied-patches ]] || return 0
	while read -r p; do
		[[ -d $1/.pc/$p ]] || continue
		(cd "$1/.pc/$p" && find . -type f ! -name .timestamp ! -name .needs_refresh) |
			sed 's|^\./||'
	done <"$1/.pc/applied-patches"
}

sha_of() {
	if [[ -f $1 ]]; then sha256sum <"$1" | cut -d' ' -f1; else echo missing; fi
}

# Refuse to overwrite work in build/linux that is not in a patch: every file
# quilt tracks there (or that setup patched) must be in a state the series
# produces (before or after any of its patches), or as setup left it.
check_local_edits() {
	local f sha cur p dirty=()
	local -A left=()
	[[ -d $TREE ]] || return 0
	if [[ -f $MANIFEST ]]; then
		while read -r sha f; do left[$f]=$sha; done <"$MANIFEST"
	fi
	while read -r f; do
		cur=$(sha_of "$TREE/$f")
		[[ $cur != "$(sha_of "$STAGE/$f")" ]] || continue
		if [[ -v left[$f] ]]; then
			[[ $cur != "${left[$f]}" ]] || continue
		else
			[[ $cur != "$(sha_of "$BASE/$f")" ]] || continue
		fi
		while read -r p; do
			if [[ $cur == "$(sha_of "$STAGE/.pc/$p/$f")" ]]; then
				continue 2
			fi
		done <"$STAGE/.pc/applied-patches"
		dirty+=("$f")
	done < <({ quilt_files "$TREE"; printf '%s\n' "${!left[@]}"; } | sed '/^$/d' | sort -u)

	if ((${#dirty[@]})); then
		warn "build/linux has changes that are not in any patch:"
		printf '    %s\n' "${dirty[@]}" >&2
		if [[ ${FORCE:-0} == 1 ]]; then
			warn "FORCE=1: discarding them"
		else
			die "refresh them into their patch first (cd build/linux && quilt refresh, see README.md), or run 'make setup FORCE=1' to discard them"
		fi
	fi
}

# The patch quilt could not apply in $STAGE: name it, show its rejects, stop.
report_failed_patch() {
	local qlog=$1 failed rej
	failed=$(cd "$STAGE" && QUILTRC=$QUILTRC_FILE quilt next 2>/dev/null) || failed=
	echo >&2
	if [[ -z $failed ]]; then
		cat "$qlog" >&2
		die "quilt push failed (see above)"
	fi
	printf '%s: error: patch %s does not apply to %s %s (Linux %s):\n' \
		"$PROG" "$failed" "$LINUX_SOURCE_PKG" "$DEB_VERSION" "$KERNELVERSION" >&2
	grep -E 'FAILED|fuzz|offset|can.t find file|No file to patch|malformed|Reversed' "$qlog" | sed 's/^/    /' >&2 || true
	rej=$(mktemp)
	(cd "$STAGE" && patch -p1 --fuzz=0 --forward --batch --no-backup-if-mismatch \
		--reject-file="$rej" -i "$REPO/$failed" >/dev/null 2>&1) || true
	if [[ -s $rej ]]; then
		printf '%s: rejected hunk(s) of %s:\n' "$PROG" "$failed" >&2
		cat "$rej" >&2
	fi
	rm -f "$rej"
	rm -rf "$STAGE"
	die "stopped at $failed; build/linux was left as it was"
}

# Build the patched tree in $STAGE (hard links to the base; patch and quilt
# replace files instead of writing through the links), then copy what differs
# into build/linux.  rsync runs without -t, so every file it writes gets a
# fresh mtime and kbuild rebuilds what depends on it; identical files are
# left alone.
rebuild_tree() {
	local qlog n f
	rm -rf "$STAGE"
	cp -al "$BASE" "$STAGE"
	ln -s ../.. "$STAGE/patches"
	link_new_files "$STAGE"

	qlog=$(mktemp)
	if ! (cd "$STAGE" && QUILTRC=$QUILTRC_FILE quilt push -a --fuzz=0) >"$qlog" 2>&1; then
		report_failed_patch "$qlog"
	fi
	n=$(grep -c '^Applying patch' "$qlog" || true)
	if grep -q 'offset' "$qlog"; then
		warn "some hunks applied at an offset (refresh the patch to update it):"
		grep -E '^Applying patch|offset' "$qlog" | sed 's/^/    /' >&2
	fi
	rm -f "$qlog"
	log "applied $n patch(es) in $(elapsed)"

	check_local_edits
	rm -f "$STAMPS/linux"
	mkdir -p "$TREE"
	rsync -rlp --checksum --delete "$STAGE/" "$TREE/"

	# Remember what setup left in the files the series touches.
	quilt_files "$STAGE" | sort -u | while read -r f; do
		echo "$(sha_of "$TREE/$f") $f"
	done >"$MANIFEST"
	rm -rf "$STAGE"
	log "build/linux synced in $(elapsed)"
}

main() {
	local key
	take_lock setup
	trap 'rm -rf "$STAGE"' EXIT
	install_packages "${PACKAGES[@]}"
	mkdir -p "$STAMPS"
	unpack_base

	[[ -f $SERIES ]] || die "no series file at $SERIES"
	mapfile -t PATCHES < <(series_patches)
	local p
	for p in "${PATCHES[@]}"; do
		[[ -f $REPO/$p ]] || die "the series names $p, which does not exist"
	done

	key=$(tree_key)
	if [[ -d $TREE && -f $STAMPS/linux && $(<"$STAMPS/linux") == "$key" ]]; then
		log "build/linux is up to date (${#PATCHES[@]} patches)"
	else
		log "applying ${#PATCHES[@]} patch(es) to a copy of build/base ..."
		rebuild_tree
		echo "$key" >"$STAMPS/linux"
	fi

	link_new_files "$TREE" warn
	log "new files: $NEW_LINKED linked from the repository, $NEW_MISSING not written yet"
	log "ready: build/linux = Linux $KERNELVERSION ($LINUX_SOURCE_PKG $DEB_VERSION) + series"
}

main "$@"

#!/usr/bin/env bash
# make series: export the series as postable, git-am-able patches in
# build/series/.  A throwaway git repository of build/base (build/series-git,
# made once per base version) gets each patch with "git am" plus the new files
# its "#+" line names; "git format-patch --cover-letter" then writes the
# patches, and they are checked to apply again with "git am" onto the base.
# SERIES_ARGS is passed to git format-patch (e.g. SERIES_ARGS="-v2 --rfc").
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GITREPO=$BUILD/series-git
EXPORT=$BUILD/series

# Fixed identities and dates make the commits, and so the export,
# reproducible.  The patches keep their own author and date.
export GIT_COMMITTER_NAME="pt_iter series export" GIT_COMMITTER_EMAIL="pt-iter@localhost"
export GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"

git_() { git -C "$GITREPO" "$@"; }

make_base_repo() {
	local id
	id=$(<"$STAMPS/base")
	if [[ -d $GITREPO/.git && -f $STAMPS/series-git && $(<"$STAMPS/series-git") == "$id" ]]; then
		return 0
	fi
	log "creating ${GITREPO#"$REPO"/}, a git repository of build/base (takes a minute or two) ..."
	rm -rf "$GITREPO" "$STAMPS/series-git"
	rsync -a "$BASE/" "$GITREPO/"
	git_ init -q
	git_ config core.autocrlf false
	git_ config gc.auto 0
	# -f: the tree as shipped, including files a .gitignore would hide.
	git_ add -A -f
	GIT_AUTHOR_NAME=$LINUX_SOURCE_PKG GIT_AUTHOR_EMAIL=linux-source@localhost \
	GIT_AUTHOR_DATE=$GIT_COMMITTER_DATE \
		git_ commit -q -m "Linux $(tree_kernelversion "$BASE") ($id)"
	git_ tag -f base >/dev/null
	echo "$id" >"$STAMPS/series-git"
	log "base commit $(git_ rev-parse --short base) after $(elapsed)"
}

apply_series() {
	local patch file added date
	git_ checkout -q -f -B series base
	git_ clean -q -fdx
	for patch in "${PATCHES[@]}"; do
		if ! git_ am -q --committer-date-is-author-date "$REPO/$patch"; then
			git_ am --abort || true
			die "git am failed for $patch"
		fi
		added=0
		while read -r _ file; do
			[[ -e $REPO/$file ]] ||
				die "$file (new in $patch) is not in the repository: cannot export"
			mkdir -p "$(dirname "$GITREPO/$file")"
			cp "$REPO/$file" "$GITREPO/$file"
			git_ add -f "$file"
			added=1
		done < <(series_new_files "$patch")
		if ((added)); then
			date=$(git_ log -1 --format=%aI)
			GIT_COMMITTER_DATE=$date git_ commit -q --amend --no-edit --no-verify
		fi
		log "$(git_ log -1 --format='%h %s') ($(git_ diff --shortstat HEAD~ HEAD | sed 's/^ //'))"
	done
}

export_series() {
	local args=()
	read -r -a args <<<"${SERIES_ARGS:-}"
	rm -rf "$EXPORT"
	# The cover letter is from the author of the series, dated like its
	# last patch.
	GIT_COMMITTER_NAME=$(git_ log -1 --format=%an series) \
	GIT_COMMITTER_EMAIL=$(git_ log -1 --format=%ae series) \
	GIT_COMMITTER_DATE=$(git_ log -1 --format=%aI series) \
		git_ format-patch -q --cover-letter "${args[@]}" -o "$EXPORT" base..series >/dev/null
}

# Put the subject (first line) and blurb (the rest) of cover-letter.txt in
# the cover letter git format-patch wrote.
fill_cover_letter() {
	local cover
	cover=$(ls "$EXPORT"/0000-cover-letter.patch)
	[[ -f $REPO/cover-letter.txt ]] || return 0
	python3 - "$REPO/cover-letter.txt" "$cover" <<'PY'
import sys

subject, _, blurb = open(sys.argv[1]).read().partition("\n")
path = sys.argv[2]
text = open(path).read()
for placeholder, value in (("*** SUBJECT HERE ***", subject.strip()),
                           ("*** BLURB HERE ***", blurb.strip())):
    if placeholder not in text:
        sys.exit("%s: no %r" % (path, placeholder))
    text = text.replace(placeholder, value, 1)
open(path, "w").write(text)
PY
}

# The exported files must rebuild the same tree from the base with git am.
verify_export() {
	local p
	git_ checkout -q -f --detach base
	for p in "$EXPORT"/*.patch; do
		[[ $p == *0000-cover-letter.patch ]] && continue
		git_ am -q "$p" || { git_ am --abort || true; die "$p does not apply with git am"; }
	done
	[[ $(git_ rev-parse 'HEAD^{tree}') == $(git_ rev-parse 'series^{tree}') ]] ||
		die "the exported patches do not reproduce the series"
	git_ checkout -q -f series
}

main() {
	take_lock series
	bash "$REPO/harness/setup.sh" >/dev/null
	mapfile -t PATCHES < <(series_patches)
	make_base_repo
	apply_series
	export_series
	fill_cover_letter
	verify_export
	log "wrote ${EXPORT#"$REPO"/}/ (checked: applies with git am onto the base):"
	(cd "$EXPORT" && ls -1) | sed 's/^/    /'
	if [[ ! -f $REPO/cover-letter.txt ]]; then
		log "fill in the cover letter's subject and blurb (0000-cover-letter.patch) before posting"
	fi
}

main "$@"

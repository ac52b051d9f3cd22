#!/bin/sh
# docs_check.sh SRC - the repository explains itself: no file may point at documents that live
# outside it, and every docs page named in a file or linked from README/docs must exist.
# Exit 0 when clean; otherwise one line per problem and exit 1.
set -u
src=${1:?usage: docs_check.sh SOURCE_DIR}
cd "$src" || exit 2
self=tests/support/docs_check.sh

# Tracked and new (not ignored) files when this is a git checkout, else every file; in both
# cases minus build trees (any folder holding a CMakeCache.txt).
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    list=$(git ls-files --cached --others --exclude-standard | sort -u)
else
    list=$(find . -type f ! -path './.git/*' | sed 's#^\./##')
fi
for cache in $(printf '%s\n' "$list" | grep -E '(^|/)CMakeCache\.txt$'); do
    tree=$(dirname "$cache")
    list=$(printf '%s\n' "$list" | awk -v p="$tree/" 'index($0, p) != 1')
done
list=$(printf '%s\n' "$list" | grep -v -x -e "$self" | while read -r f; do
    [ -f "$f" ] && printf '%s\n' "$f"; done)

bad=0
# Documents of the project's private workspace (its shared folder, spec pages and design note),
# spelled with bracket classes so this file does not name them itself.
outside='\.\./shar[e]d|(^|[^A-Za-z0-9_.-])shar[e]d/|(^|[^A-Za-z0-9_./-])spe[c]/|flow\.md|'
outside="${outside}"'hcomm-data-plane|hccl-control-plane|acl-runtime\.md|DESIGN\.md|DESIGN §|spec §'
hits=$(printf '%s\n' "$list" | tr '\n' '\0' | xargs -0 grep -I -n -E "$outside" 2>/dev/null)
if [ -n "$hits" ]; then
    printf '%s\n' "$hits" | sed 's/^/outside document: /'
    bad=1
fi

# Every docs page a file names (docs/X.md, or a bare CAPS.md) must exist.
for ref in $(printf '%s\n' "$list" | tr '\n' '\0' |
             xargs -0 grep -I -o -h -E '(docs/)?[A-Z][A-Z_]*\.md' 2>/dev/null | sort -u); do
    name=${ref#docs/}
    if [ ! -f "docs/$name" ] && [ ! -f "$name" ]; then
        echo "missing page: $ref (named in $(printf '%s\n' "$list" | tr '\n' '\0' |
              xargs -0 grep -l -F "$ref" 2>/dev/null | head -n 3 | tr '\n' ' '))"
        bad=1
    fi
done

# Relative markdown links of README.md and docs/*.md must resolve.
for md in README.md docs/*.md; do
    [ -f "$md" ] || continue
    dir=$(dirname "$md")
    for link in $(grep -o -E '\]\([^)#[:space:]]+' "$md" | sed 's/^](//' | sort -u); do
        case $link in http://* | https://* | mailto:*) continue ;; esac
        if [ ! -e "$dir/$link" ]; then
            echo "broken link: $md -> $link"
            bad=1
        fi
    done
done
exit $bad

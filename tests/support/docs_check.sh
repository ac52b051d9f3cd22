#!/bin/sh
# docs_check.sh SRC - the repository explains itself, and its documentation agrees with the
# code: no file points at documents outside it; every docs page named and every link exists;
# every source file and build-tree program the docs name exists; every HCEMU_* variable the docs name is a setting
# (common/contract/settings.h), a CMake option or read by a script; README.md stays a front door (under
# 400 lines, the main plot shown); no file carries the name of a working period or a run's
# date (history is in git). Exit 0 when clean; otherwise one line per problem and exit 1.
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

# Relative markdown links of README.md, CONTRIBUTING.md and docs/**.md must resolve.
for md in README.md CONTRIBUTING.md docs/*.md docs/*/*.md; do
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

docs="README.md CONTRIBUTING.md $(ls docs/*.md 2>/dev/null)"

# README.md is the front door: under 400 lines, and it shows the benchmark report's main plot.
lines=$(wc -l <README.md)
if [ "$lines" -ge 400 ]; then
    echo "README.md has $lines lines: keep it under 400 (move detail into docs/)"
    bad=1
fi
if ! grep -q '](docs/perf/time.svg)' README.md || [ ! -f docs/perf/time.svg ]; then
    echo "README.md does not show docs/perf/time.svg (make bench-report writes it)"
    bad=1
fi

# Source files the documentation names (a path with an extension under a source folder).
for ref in $(cat $docs | grep -o -E '(^|[^A-Za-z0-9_./-])(common|host|device|loader|tools|bench|tests|scripts|collectives|shim|cmake|include|examples)/[A-Za-z0-9_./-]*\.(c|h|cc|cpp|sh|cmake|py|json|map|in)([^A-Za-z0-9_]|$)' |
             sed -E 's/^[^a-z]//; s/[^A-Za-z0-9_]$//' | sort -u); do
    if [ ! -e "$ref" ]; then
        echo "missing file: $ref (named in $(grep -l -F "$ref" $docs | tr '\n' ' '))"
        bad=1
    fi
done

# Programs the documentation runs from the build tree (build/bin/NAME) are targets of the build.
cmakes=$(printf '%s\n' "$list" | grep -E '(^|/)CMakeLists\.txt$|\.cmake$')
for name in $(cat $docs | grep -o -E '(^|[^A-Za-z0-9_/.-])(build/)?bin/[A-Za-z0-9_-]+' |
              sed 's#.*bin/##' | sort -u); do
    case $name in
    hcemu-example-*) [ -d "examples/${name#hcemu-example-}" ] && continue ;;
    test_*) grep -q -E "emu_add_test\(${name#test_}( |$)" $cmakes && continue ;;
    esac
    grep -q -E "add_executable\($name( |\)|$)" $cmakes && continue
    grep -q -E "[ (]$name=[0-9]" $cmakes && continue # hccl_test's tools (HT_TOOLS)
    echo "no such program: bin/$name (named in $(grep -l -w "$name" $docs | tr '\n' ' '))"
    bad=1
done

# Every HCEMU_* variable the documentation names exists: a row of the settings table, else a
# CMake option, else a variable a script reads.
for name in $(cat $docs | grep -o -E 'HCEMU_[A-Z0-9_]+' | sort -u); do
    grep -q "\"$name\"" common/contract/settings.h && continue
    grep -q "option($name " CMakeLists.txt && continue
    printf '%s\n' "$list" | grep '^scripts/' | tr '\n' '\0' | xargs -0 grep -l -w "$name" \
        >/dev/null 2>&1 && continue
    echo "unknown variable: $name (named in $(grep -l -w "$name" $docs | tr '\n' ' ')) is not in common/contract/settings.h"
    bad=1
done

# History lives in git: no working-period word (spelled with a bracket class so that this file
# does not carry it) and no date of a run anywhere.
hits=$(printf '%s\n' "$list" | tr '\n' '\0' |
       xargs -0 grep -I -n -i -E 'sessio[n]|20[0-9][0-9]-[01][0-9]-[0-3][0-9]' 2>/dev/null)
if [ -n "$hits" ]; then
    printf '%s\n' "$hits" | sed 's/^/history in a file: /'
    bad=1
fi
exit $bad

#!/usr/bin/env bash
# run_test.sh BUILD WORK - the miniature custom-op project against an installed hcemu: install
# the toolkit, source set_env.sh, build and install the project, refuse the package while the
# whitelist lacks it, run 2 ranks once it is listed; the program records only vendor names.
set -euo pipefail
build=$1 work=$2 src=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
cmake --install "$build" --prefix "$work/cann" >/dev/null
# shellcheck disable=SC1091
source "$work/cann/set_env.sh"
cmake -S "$src" -B "$work/build" >/dev/null
cmake --build "$work/build" >/dev/null
cmake --install "$work/build" --prefix "$ASCEND_HOME_PATH" >/dev/null
if readelf -d "$work/build/mini_op" | grep -q libhcemu; then
    echo "mini_op records libhcemu"; exit 1
fi
readelf -d "$work/build/mini_op" | grep -q 'libascendcl.so'
# Compile errors in .asc sources point at the user's file and line.
if hcemu-cc --lang=asc -c "$src/broken.asc" -o "$work/broken.o" 2>"$work/broken.log"; then
    echo "broken.asc compiled"; exit 1
fi
grep -q "broken.asc:8:.*undeclared_name" "$work/broken.log" || { cat "$work/broken.log"; exit 1; }
export HCEMU_DEVICES=2
if "$work/build/mini_op" >"$work/nolist.log" 2>&1; then
    echo "ran without the whitelist entry"; exit 1
fi
grep -q "ascend_package_load.ini does not list" "$work/nolist.log"
printf 'name:aicpu_mini.tar.gz\ninstall_path:2\noptional:true\npackage_path:opp/vendors/mini/aicpu/kernel\nload_as_per_soc:false\n' \
    >>"$ASCEND_HOME_PATH/conf/ascend_package_load.ini"
"$work/build/mini_op" | tee "$work/run.log"
grep -q "mini custom op: PASS - 2 ranks" "$work/run.log"
rm -rf "$work"

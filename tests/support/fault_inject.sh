#!/usr/bin/env bash
# fault_inject.sh - one HCEMU_FAULT rule against all_reduce_test (4 KiB, -c 1), as rank
# threads or rank processes, in a private job parent: the output must match every EXPECT
# regular expression, the exit status must be WANT (0 or "fail"), and once the job ended no
# folder and no executor of it may be left.
#   fault_inject.sh BIN threads|procs N ITERS WANT RULE EXPECT...
set -u
bin=$1 mode=$2 n=$3 iters=$4 want=$5 rule=$6
shift 6
parent=$(mktemp -d /dev/shm/hcemu-fi-XXXXXX)
trap 'rm -rf "$parent"' EXIT
args=(-b 4K -e 4K -n "$iters" -w 0 -c 1)
if [ "$mode" = threads ]; then
    cmd=("$bin/all_reduce_test" -t "$n" "${args[@]}")
else
    cmd=("$bin/hcemu-run" -n "$n" -- "$bin/all_reduce_test" "${args[@]}")
fi
out=$(HCEMU_JOB_DIR=$parent HCCL_BUFFSIZE=1 HCEMU_FAULT=$rule timeout 120 "${cmd[@]}" 2>&1)
rc=$?
bad=0
if { [ "$want" = 0 ] && [ $rc -ne 0 ]; } || { [ "$want" = fail ] && [ $rc -eq 0 ]; }; then
    echo "fault_inject: $rule ($mode, $n ranks): exit status $rc, want $want"
    bad=1
fi
for re in "$@"; do
    if ! grep -Eq -- "$re" <<<"$out"; then
        echo "fault_inject: $rule ($mode, $n ranks): no line matches: $re"
        bad=1
    fi
done
# Nothing left behind: the job's folders and executors go within 10 s of its end.
for _ in $(seq 100); do
    left=$(find "$parent" -mindepth 1 -maxdepth 1 | wc -l)
    execs=$(pgrep -fc -- "--job $parent/" || true)
    [ "$left" -eq 0 ] && [ "$execs" -eq 0 ] && break
    sleep 0.1
done
if [ "$left" -ne 0 ] || [ "$execs" -ne 0 ]; then
    echo "fault_inject: $rule ($mode, $n ranks): left $left folder(s) and $execs executor(s)"
    bad=1
fi
if [ $bad -ne 0 ]; then
    echo "--- output:"
    echo "$out" | tail -40
fi
exit $bad

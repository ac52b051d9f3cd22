#!/bin/sh
# run_slowed.sh BIN TOOL RUNS CALLS - 8 rank processes of a hccl_test TOOL (1 KiB, CALLS calls,
# every call's bytes checked), RUNS times, with every executor under valgrind --tool=none.
# The emulated CPU runs a thread's code 5-10x slower and switches threads at its own points,
# so a runner can be held for milliseconds between two steps that normally follow within
# nanoseconds: races in the job-wide run queue that a loaded machine meets once in a long
# while show up within seconds. (A runner that took back an entry it had just published
# went on from its old index after the device had published the stream anew: the 8-rank
# allgather deadlocked on notify parities in about a third of these runs.) Any hang report,
# internal error or failed check fails the test. 77 (skipped) without valgrind.
set -eu
BIN=$1 TOOL=$2 RUNS=$3 CALLS=$4
command -v valgrind >/dev/null 2>&1 || { echo "valgrind not installed: skipped"; exit 77; }
TMP=$(mktemp -d /tmp/hcemu-slowed-XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
cat >"$TMP/device" <<WRAP
#!/bin/sh
exec valgrind --tool=none -q "$BIN/hcemu-device" "\$@"
WRAP
chmod 700 "$TMP/device"
for r in $(seq "$RUNS"); do
    rc=0
    HCEMU_DEVICE_BIN="$TMP/device" HCEMU_HANG_MS=10000 HCCL_CONNECT_TIMEOUT=120 \
        timeout 300 "$BIN/hcemu-run" -n 8 -- "$BIN/$TOOL" -b 1K -e 1K -n "$CALLS" -w 10 -c 1 \
        >"$TMP/out" 2>&1 || rc=$?
    if [ "$rc" -ne 0 ] || grep -q "error: hang\|internal error" "$TMP/out" ||
        ! grep -q "^\[rank 0\] 1024 .*success" "$TMP/out"; then
        echo "run $r of $RUNS failed (exit $rc):"
        grep -v "^\[rank [0-9]*\] ==" "$TMP/out" | grep "error\|fail\|rank 0\] 1024" | head -20
        exit 1
    fi
    echo "run $r: $(grep "^\[rank 0\] 1024" "$TMP/out")"
done

#!/bin/bash
# comm_loop.sh - communicators made, used and destroyed in a loop by a job split 1+1 over two
# "hosts" on loopback (two hcemu-runs meeting through the root's rendezvous listener), as a
# program that builds one per phase does: tests/multihost/mh_comm_loop.c, ITERS rounds
# (default 1000) of HcclGetRootInfo, HcclCommInitRootInfo, a 4 KiB HcclAllReduce checked
# element by element, HcclCommDestroy. Prints each rank's resident memory and open
# descriptors after rounds 10, 100, 1000 (and the last): flat when the listener forgets each
# destroyed communicator (before, the 65th round failed).
# Usage: bench/comm_loop.sh [build-dir]   (ITERS overrides)
set -u
BUILD=${1:-build}
BIN=$BUILD/bin
ITERS=${ITERS:-1000}
TMP=$(mktemp -d /tmp/hcemu-commloop-XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
[ -x "$BIN/mh_comm_loop" ] || { echo "comm_loop: $BIN/mh_comm_loop is not built: skipped"; exit 0; }
"$BIN/hcemu-run" --make-key "$TMP/key" 2>/dev/null || exit 1
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
start=$(date +%s.%N)
for r in 0 1; do
    HCEMU_LOG_LEVEL=warn HCCL_BUFFSIZE=1 "$BIN/hcemu-run" -n 1 --world-size 2 --first-rank $r \
        --root 127.0.0.1:"$port" --key-file "$TMP/key" --timeout 1800 -- \
        "$BIN/mh_comm_loop" --iters "$ITERS" >"$TMP/$r" 2>&1 &
done
wait %1; ra=$?
wait %2; rb=$?
took=$(echo "$(date +%s.%N) - $start" | bc)
cat "$TMP/0" "$TMP/1" | grep -E "round|FAIL|error"
printf 'comm_loop: %s rounds in %.1f s (exit %s/%s)\n' "$ITERS" "$took" "$ra" "$rb"
[ "$ra" = 0 ] && [ "$rb" = 0 ]

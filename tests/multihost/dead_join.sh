#!/bin/bash
# dead_join.sh BIN PROBE - a host dies while the communicator is being made: a job of 4 ranks
# over two hcemu-runs (two job folders meeting through the root's TCP listener on host a);
# host a runs ranks 0 and 1, host b ("host-b") only rank 2, so rank 3 never comes and the
# joins wait. Once rank 2 has connected to the root's listener, host b is killed. The listener
# sees rank 2's connection close before the communicator is complete and marks it gone, so
# host a's HcclCommInitRootInfo calls fail with HCCL_E_REMOTE (21) and one line naming rank 2
# and host-b, long before HCCL_CONNECT_TIMEOUT (120 s here). Host a must exit non-zero by
# itself within DEAD_LIMIT seconds (hcemu-run's --timeout is the bound; no timing asserted).
set -u
bin=$1 probe=$2
out=$(mktemp -d)
pb=""
trap '[ -n "$pb" ] && kill -9 -- -"$pb" 2>/dev/null; rm -rf "$out"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
root=127.0.0.1:$port
"$bin/hcemu-run" --make-key "$out/key" 2>/dev/null || exit 1
export HCCL_CONNECT_TIMEOUT=120

env HCEMU_HOST=host-a HCEMU_LOG_LEVEL=${DEAD_LOG:-warn} "$bin/hcemu-run" -n 2 --world-size 4 \
    --first-rank 0 --root "$root" --key-file "$out/key" --timeout ${DEAD_LIMIT:-40} -- \
    "$probe" --servers 4 >"$out/a" 2>&1 &
pa=$!
# Host b detached by setsid, so one kill reaches all of it; info level for the line
# that says rank 2 reached the listener.
setsid env HCEMU_HOST=host-b HCEMU_LOG_LEVEL=info "$bin/hcemu-run" -n 1 --world-size 4 \
    --first-rank 2 --root "$root" --key-file "$out/key" --timeout 100 -- "$probe" --servers 4 \
    >"$out/b" 2>&1 &
pb=$!
for _ in $(seq 1 600); do
    grep -q "connected to the root's rendezvous listener" "$out/b" && break
    kill -0 $pa 2>/dev/null || break
    sleep 0.1
done
sleep 0.5 # rank 2 posts its row right after connecting (either way its loss is named)
kill -9 -- -"$pb" 2>/dev/null
wait $pb 2>/dev/null
pb=""
start=$(date +%s%N)
wait $pa; ra=$?
took=$(( ($(date +%s%N) - start) / 1000000 ))
cat "$out/a"
echo "dead_join: host a exited (status $ra) ${took} ms after host b was killed"
[ "$ra" != 0 ] || { echo "dead_join: FAILED: host a did not notice that host b died"; exit 1; }
# The first rank to fail ends host a's job (hcemu-run stops the others): one of each suffices.
for w in "HcclCommInitRootInfo returned 21" "rank 2 (host host-b) is gone before every rank had joined"; do
    grep -qF -- "$w" "$out/a" || { echo "dead_join: FAILED: no line of host a says: $w"; exit 1; }
done
if grep -q "HCCL_CONNECT_TIMEOUT\|hcemu-run: timeout" "$out/a"; then
    echo "dead_join: FAILED: host a ended by a timeout, not by the listener noticing rank 2 go"
    exit 1
fi
echo "dead_join: host a's joins failed at once, naming rank 2 and host-b"

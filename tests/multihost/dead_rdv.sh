#!/bin/bash
# dead_rdv.sh BIN PROBE - a host dies during the rendezvous: a job of 2+2 ranks over two
# hcemu-runs (two job folders, meeting through the root's TCP listener on host a); host b's
# ranks join the communicator and stall (mh_probe --stall), host a's ranks go on to make their
# channels, which wait for host b's halves. Then every process of host b is killed. The root's
# listener sees host b's connections close while its ranks are still members and marks them
# gone, so host a's channel waits end with HCCL_E_REMOTE and one line naming the rank, long
# before HCCL_CONNECT_TIMEOUT (120 s here); host a must exit non-zero by itself within
# DEAD_LIMIT seconds (hcemu-run's --timeout is the bound; no timing is asserted).
set -u
bin=$1 probe=$2
out=$(mktemp -d)
pb=""
trap '[ -n "$pb" ] && kill -9 -- -"$pb" 2>/dev/null; rm -rf "$out"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
root=127.0.0.1:$port
"$bin/hcemu-run" --make-key "$out/key" 2>/dev/null || exit 1
export HCCL_CONNECT_TIMEOUT=120

env HCEMU_LOG_LEVEL=${DEAD_LOG:-warn} "$bin/hcemu-run" -n 2 --world-size 4 --first-rank 0 --root "$root" \
    --key-file "$out/key" --timeout ${DEAD_LIMIT:-40} -- "$probe" --servers 4 --collectives 4096 \
    >"$out/a" 2>&1 &
pa=$!
# Host b detached by setsid, so one kill reaches all of it.
setsid env HCEMU_LOG_LEVEL=warn "$bin/hcemu-run" -n 2 --world-size 4 --first-rank 2 --root "$root" \
    --key-file "$out/key" --timeout 100 -- "$probe" --servers 4 --stall 90 >"$out/b" 2>&1 &
pb=$!
for _ in $(seq 1 600); do
    [ "$(grep -c "stalling" "$out/b")" -ge 2 ] && break
    kill -0 $pa 2>/dev/null || break
    sleep 0.1
done
sleep 1 # host a's ranks are in their channel waits by now (or soon: either way they fail)
kill -9 -- -"$pb" 2>/dev/null
wait $pb 2>/dev/null
pb=""
start=$(date +%s)
wait $pa; ra=$?
took=$(( $(date +%s) - start ))
cat "$out/a"
echo "dead_rdv: host a exited (status $ra) ${took}s after host b was killed"
if [ "$ra" = 0 ]; then
    echo "dead_rdv: FAILED: host a did not notice that host b died"; exit 1
fi
if ! grep -q "left the communicator" "$out/a"; then
    echo "dead_rdv: FAILED: no line naming the rank that left"; exit 1
fi
if grep -q "HCCL_CONNECT_TIMEOUT\|hcemu-run: timeout" "$out/a"; then
    echo "dead_rdv: FAILED: host a ended by a timeout, not by the listener noticing host b leave"
    exit 1
fi
echo "dead_rdv: host a's channel waits on the dead host failed at once"

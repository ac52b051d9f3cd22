#!/bin/bash
# dead_host.sh BIN TOOL - a job of 2+2 ranks over two "hosts" on this machine with the network
# path forced (HCEMU_HOST per host) runs a long allreduce (the algorithm from HCEMU_ALGO); once
# host b's ranks have joined, every process of host b is killed (SIGKILL: ranks and hcemu-run;
# its executors end with their hosts). Host a's waits on host b must end with the network's
# report (HCCL_E_REMOTE: "peer rank failed", "host is gone"), the host's synchronisation must
# return 507018, and host a must exit non-zero by itself within DEAD_LIMIT seconds (hcemu-run's
# --timeout is the bound; no timing is asserted). Neither the hang watchdog nor a wait's
# timeout may be what ended it: in the per-peer-thread algorithms (mesh, twoshot, hier) the
# main thread's join of a failed peer thread fails at once with that thread's error
# (device/dp/lost_record.h). Exit 77 (skip) without UCX.
# DEAD_BY=fault: nothing is killed from outside; both hosts run under
# HCEMU_FAULT=host-down:host=<b>,after_ms=1500, so host b's executors die 1.5 s after their first
# transfer with host a, and host b's output must carry the injection's line.
set -u
bin=$1 tool=$2
[ "${MH_HAVE_UCX:-1}" = 1 ] || { echo "hcemu was built without UCX: skipped"; exit 77; }
out=$(mktemp -d)
pb=""
trap '[ -n "$pb" ] && kill -9 -- -"$pb" 2>/dev/null; rm -rf "$out"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
root=127.0.0.1:$port
"$bin/hcemu-run" --make-key "$out/key" 2>/dev/null || exit 1
args=(-b 32M -e 32M -f 2 -n 3000 -w 0 -c 0) # far longer than the test lasts: it is killed first
by=${DEAD_BY:-kill}
if [ "$by" = fault ]; then
    export HCEMU_FAULT="host-down:host=dead-b-$$,after_ms=1500"
fi

env HCEMU_HOST=dead-a-$$ HCEMU_LOG_LEVEL=${DEAD_LOG:-warn} "$bin/hcemu-run" -n 2 --world-size 4 --first-rank 0 --root "$root" \
    --key-file "$out/key" --timeout ${DEAD_LIMIT:-60} -- "$tool" "${args[@]}" >"$out/a" 2>&1 &
pa=$!
# Host b detached by setsid, so one kill reaches all of it.
setsid env HCEMU_HOST=dead-b-$$ HCEMU_LOG_LEVEL=info "$bin/hcemu-run" -n 2 --world-size 4 \
    --first-rank 2 --root "$root" --key-file "$out/key" --timeout ${DEAD_LIMIT:-60} -- "$tool" "${args[@]}" \
    >"$out/b" 2>&1 &
pb=$!
if [ "$by" = fault ]; then
    # Host b goes down by itself; its hcemu-run ends once its ranks have failed.
    wait $pb 2>/dev/null
    pb=""
    if ! grep -q "HCEMU_FAULT host-down): host dead-b-$$ goes down" "$out/b"; then
        cat "$out/b"
        echo "dead_host: FAILED: host b did not report going down"; exit 1
    fi
else
    # Wait until host b's executors are connected to host a's (every channel made), then let
    # the transfers run a moment.
    for _ in $(seq 1 600); do
        [ "$(grep -c "connected to device .* of another host" "$out/b")" -ge 4 ] && break
        kill -0 $pa 2>/dev/null || break
        sleep 0.1
    done
    sleep 2
    kill -9 -- -"$pb" 2>/dev/null
    wait $pb 2>/dev/null
    pb=""
fi
start=$(date +%s)
seen=""
while kill -0 $pa 2>/dev/null; do
    [ -z "$seen" ] && grep -q "host is gone" "$out/a" && seen=$(( $(date +%s) - start ))
    sleep 0.2
done
wait $pa; ra=$?
took=$(( $(date +%s) - start ))
cat "$out/a"
echo "dead_host: the report came ${seen:-?}s and host a exited (status $ra) ${took}s after host b was killed"
if [ "$ra" = 0 ]; then
    echo "dead_host: FAILED: host a did not notice that host b died"; exit 1
fi
if ! grep -q "of host dead-b-$$ .*host is gone" "$out/a"; then
    echo "dead_host: FAILED: no report naming the dead host"; exit 1
fi
if grep -q "timed out\|hcemu-run: timeout\|hang: " "$out/a"; then
    echo "dead_host: FAILED: host a ended by a timeout or the hang watchdog, not by the network's report"
    exit 1
fi
if ! grep -q "failed: 507018" "$out/a"; then
    echo "dead_host: FAILED: no synchronisation of host a returned 507018"; exit 1
fi
echo "dead_host: host a's waits on the dead host failed with the network's report"

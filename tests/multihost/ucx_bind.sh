#!/bin/bash
# ucx_bind.sh BIN TOOL - the executors' UCX listeners are bound to the interface the job was
# given, not to every interface of the machine: a 1+1 job over loopback (root 127.0.0.1, one
# HCEMU_HOST per host, so the channel between them goes through UCX) runs an allreduce loop;
# once the executors are connected, every TCP socket their processes listen on must be on
# 127.0.0.1. (Before, they also listened on every other interface, e.g. eth0.) Exit 77
# without UCX or ss.
set -u
bin=$1 tool=$2
[ "${MH_HAVE_UCX:-1}" = 1 ] || { echo "hcemu was built without UCX: skipped"; exit 77; }
command -v ss >/dev/null || { echo "ss (iproute2) is not installed: skipped"; exit 77; }
out=$(mktemp -d)
pgs=""
trap 'for g in $pgs; do kill -9 -- -"$g" 2>/dev/null; done; rm -rf "$out"' EXIT
"$bin/hcemu-run" --make-key "$out/key" 2>/dev/null || exit 1
mkdir -m 700 "$out/jobs"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
for r in 0 1; do
    setsid env HCEMU_JOB_DIR="$out/jobs" HCEMU_HOST=bind-$r-$$ HCEMU_LOG_LEVEL=info \
        "$bin/hcemu-run" -n 1 --world-size 2 --first-rank $r --root 127.0.0.1:"$port" \
        --key-file "$out/key" --timeout 100 -- "$tool" -b 1M -e 1M -n 100000 -w 0 -c 0 \
        >"$out/$r" 2>&1 &
    pgs="$pgs $!"
done
for _ in $(seq 1 600); do
    [ "$(cat "$out/0" "$out/1" | grep -c "connected to device .* of another host")" -ge 2 ] && break
    sleep 0.1
done
# The executors of this job: their command line names a job folder under $out/jobs.
pids=$(for p in $(pgrep -f hcemu-device); do
    tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "$out/jobs" && echo "$p"; done)
[ -n "$pids" ] || { cat "$out/0" "$out/1"; echo "ucx_bind: FAILED: no executor found"; exit 1; }
listening=$(ss -ltnpH 2>/dev/null | grep -E "$(echo $pids | sed 's/ /|/g; s/[0-9][0-9]*/pid=&,/g')")
echo "$listening"
[ -n "$listening" ] || { echo "ucx_bind: FAILED: the executors listen nowhere (not connected?)"; exit 1; }
if echo "$listening" | awk '{print $4}' | grep -v '^127\.'; then
    echo "ucx_bind: FAILED: an executor listens beyond the job's interface (lo)"; exit 1
fi
echo "ucx_bind: the executors listen on the job's interface only"

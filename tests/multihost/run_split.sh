#!/bin/bash
# run_split.sh BIN LAUNCHER A B PROGRAM [ARGS...] - one job of A+B ranks split over two
# "hosts" on this machine (separate job folders), meeting over TCP on
# loopback. LAUNCHER: hcemu-run (one hcemu-run per host) or mpirun (one mpirun, two app
# contexts). Passes when every rank reports PASS (MH_EXPECT=success: the hccl_test tools'
# verdict line) and both hosts exit 0 (MH_EXPECT=refused: see below); exit 77 (skip) when
# mpirun is asked for and absent. MH_NET=1: each host gets its own HCEMU_HOST, so channels
# between the two hosts take the network (UCX) path instead of shared memory; exit 77 when
# this build has no UCX.
set -u
bin=$1 launcher=$2 a=$3 b=$4
shift 4
n=$((a + b))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# A free loopback port: the kernel picks one for a throw-away listener.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
root=127.0.0.1:$port
host_a="" host_b=""
if [ "${MH_NET:-0}" = 1 ]; then
    [ "${MH_HAVE_UCX:-1}" = 1 ] || { echo "hcemu was built without UCX: skipped"; exit 77; }
    host_a="HCEMU_HOST=mh-a-$$" host_b="HCEMU_HOST=mh-b-$$"
fi

case $launcher in
hcemu-run)
    env $host_a "$bin/hcemu-run" -n "$a" --world-size "$n" --first-rank 0 --root "$root" \
        --secret "split-$$" --timeout 200 -- "$@" >"$out/a" 2>&1 &
    pa=$!
    secret_b=split-$$
    [ "${MH_EXPECT:-}" = refused ] && secret_b=intruder-$$
    env $host_b "$bin/hcemu-run" -n "$b" --world-size "$n" --first-rank "$a" --root "$root" \
        --secret "$secret_b" --timeout 200 -- "$@" >"$out/b" 2>&1 &
    pb=$!
    wait $pa; ra=$?
    wait $pb; rb=$?
    cat "$out/a" "$out/b"
    ;;
mpirun)
    command -v mpirun >/dev/null || { echo "mpirun is not installed: skipped"; exit 77; }
    asroot=""
    [ "$(id -u)" = 0 ] && asroot="--allow-run-as-root"
    # Each app context is one host; -x would reach only the first, so env sets the variables.
    common="HCEMU_ROOT=$root HCEMU_SECRET=split-$$"
    timeout 200 mpirun $asroot --oversubscribe \
        -np "$a" env $common $host_a "$@" : -np "$b" env $common $host_b "$@" \
        >"$out/a" 2>&1
    ra=$? rb=0
    cat "$out/a"
    ;;
*)
    echo "unknown launcher $launcher"; exit 2 ;;
esac
# MH_EXPECT=refused: host b has another secret; the root's listener must refuse each of its
# ranks with one line, they fail, and host a's ranks give up at HCCL_CONNECT_TIMEOUT.
if [ "${MH_EXPECT:-}" = refused ]; then
    refused=$(grep -c "rendezvous listener: refused .*secret" "$out/a")
    if [ "$ra" != 0 ] && [ "$rb" != 0 ] && [ "$refused" -ge 1 ] && grep -q "refused us" "$out/b"; then
        echo "run_split: the ranks without the secret were refused"
        exit 0
    fi
    echo "run_split: FAILED: ranks without the secret were not refused (exit $ra/$rb)"
    exit 1
fi
# Examples print one PASS per rank; the hccl_test tools one "success" line per size on rank 0
# (their check already combines every rank's verdict with an allreduce).
if [ "${MH_EXPECT:-PASS}" = PASS ]; then
    need=$n
else
    need=1
fi
pass=$(cat "$out"/* | grep -c -- "${MH_EXPECT:-PASS}")
if [ "$ra" != 0 ] || [ "$rb" != 0 ] || [ "$pass" -lt "$need" ] || cat "$out"/* | grep -q "FAIL\|failed"; then
    echo "run_split: FAILED (exit $ra/$rb, $pass of $n ranks passed)"
    exit 1
fi
echo "run_split: $n ranks over two hosts ($a+$b) by $launcher passed"

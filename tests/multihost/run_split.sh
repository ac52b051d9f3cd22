#!/bin/bash
# run_split.sh BIN LAUNCHER A B PROGRAM [ARGS...] - one job of A+B ranks split over two
# "hosts" on this machine (separate job folders), meeting over TCP on
# loopback. LAUNCHER: hcemu-run (one hcemu-run per host) or mpirun (one mpirun, two app
# contexts). Passes when every rank reports PASS (MH_EXPECT=success: the hccl_test tools'
# verdict line) and both hosts exit 0 (MH_EXPECT=refused: see below); exit 77 (skip) when
# mpirun is asked for and absent. MH_NET=1: each host gets its own HCEMU_HOST, so channels
# between the two hosts take the network (UCX) path instead of shared memory; exit 77 when
# this build has no UCX. MH_HOSTS="NAME_A NAME_B": the HCEMU_HOST of each host by name (the
# rank graph and reports see two hosts; channels between them need the network path).
# MH_ENV_A, MH_ENV_B: more VAR=VALUE words for host a's (b's) processes only.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/verdict.sh"
bin=$1 launcher=$2 a=$3 b=$4
shift 4
n=$((a + b))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The job's key (and, for MH_EXPECT=refused, another one for host b).
"$bin/hcemu-run" --make-key "$out/key" 2>/dev/null &&
    "$bin/hcemu-run" --make-key "$out/intruder-key" 2>/dev/null || exit 1

host_a="" host_b=""
if [ "${MH_NET:-0}" = 1 ]; then
    [ "${MH_HAVE_UCX:-1}" = 1 ] || { echo "hcemu was built without UCX: skipped"; exit 77; }
    host_a=mh-a-$$ host_b=mh-b-$$
fi
[ -n "${MH_HOSTS:-}" ] && read -r host_a host_b <<<"$MH_HOSTS"
env_a=() env_b=()
[ -n "$host_a" ] && env_a=("HCEMU_HOST=$host_a")
[ -n "$host_b" ] && env_b=("HCEMU_HOST=$host_b")
read -r -a more_a <<<"${MH_ENV_A:-}"
read -r -a more_b <<<"${MH_ENV_B:-}"
env_a+=("${more_a[@]}") env_b+=("${more_b[@]}")

# One run of the job at root $root: sets ra, rb and the output files.
launch() {
    case $launcher in
    hcemu-run)
        env "${env_a[@]}" "$bin/hcemu-run" -n "$a" --world-size "$n" --first-rank 0 --root "$root" \
            --key-file "$out/key" --timeout 200 -- "$@" >"$out/a" 2>&1 &
        pa=$!
        key_b=$out/key
        [ "${MH_EXPECT:-}" = refused ] && key_b=$out/intruder-key
        env "${env_b[@]}" "$bin/hcemu-run" -n "$b" --world-size "$n" --first-rank "$a" --root "$root" \
            --key-file "$key_b" --timeout 200 -- "$@" >"$out/b" 2>&1 &
        pb=$!
        wait $pa; ra=$?
        wait $pb; rb=$?
        cat "$out/a" "$out/b"
        ;;
    mpirun)
        command -v mpirun >/dev/null || { echo "mpirun is not installed: skipped"; exit 77; }
        asroot=""
        [ "$(id -u)" = 0 ] && asroot="--allow-run-as-root"
        # rtc_hwloc_vmhole none: see run_netns.sh. Each app context is one host; -x would reach only the first, so env sets the variables.
        common="HCEMU_ROOT=$root HCEMU_KEY=$(cat "$out/key")"
        timeout 200 mpirun $asroot --oversubscribe --mca rtc_hwloc_vmhole none \
            -np "$a" env $common "${env_a[@]}" "$@" : -np "$b" env $common "${env_b[@]}" "$@" \
            >"$out/a" 2>&1
        ra=$? rb=0
        cat "$out/a"
        ;;
    *)
        echo "unknown launcher $launcher"; exit 2 ;;
    esac
}

# A free loopback port: the kernel picks one for a throw-away listener. Another test running
# beside this one (or its mpirun) may take it before the root listens on it, so a run whose
# root found its port taken is run again on a fresh one, up to three times.
for attempt in 1 2 3; do
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    root=127.0.0.1:$port
    launch "$@"
    grep -q "cannot listen on $root: Address already in use" "$out"/* || break
    echo "run_split: port $port was taken before the root listened on it (attempt $attempt)"
done
# MH_EXPECT=refused: host b has another key; its ranks find that the root's listener does
# not prove their key and send it nothing, they fail, and host a's ranks give up at
# HCCL_CONNECT_TIMEOUT.
if [ "${MH_EXPECT:-}" = refused ]; then
    if [ "$ra" != 0 ] && [ "$rb" != 0 ] && grep -q "does not prove the job's key" "$out/b"; then
        echo "run_split: the ranks with another key were refused"
        exit 0
    fi
    echo "run_split: FAILED: ranks with another key were not refused (exit $ra/$rb)"
    exit 1
fi
mh_verdict run_split "$ra" "$rb" "$n" "$out"/* || exit 1
echo "run_split: $n ranks over two hosts ($a+$b) by $launcher passed"

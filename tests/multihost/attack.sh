#!/bin/bash
# attack.sh BIN ATTACK PROBE MODE - the root's rendezvous listener under attack while a job of
# 1+1 ranks (two hcemu-runs on loopback, mh_probe) forms through it. The attacker is
# tests/multihost/rdv_attack.c, bounded in connections and time:
#   slow    20 greetings dribbled a byte at a time, for the job's life
#   idle    300 silent connections from 40 loopback addresses, kept open (reconnected when
#           dropped) until the job has ended: the root's process must not wait for them at
#           exit (HCCL_CONNECT_TIMEOUT is 100 s here, each host's --timeout 60 s)
#   proofs  before host b starts: a replayed greeting and a 256 MiB request, both refused
# The job must pass (both hosts exit 0, each rank prints PASS) in every mode.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/verdict.sh"
bin=$1 attack=$2 probe=$3 mode=$4
out=$(mktemp -d)
pat=""
trap '[ -n "$pat" ] && kill "$pat" 2>/dev/null; rm -rf "$out"' EXIT
"$bin/hcemu-run" --make-key "$out/key" 2>/dev/null || exit 1
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
root=127.0.0.1:$port
export HCCL_CONNECT_TIMEOUT=100

"$bin/hcemu-run" -n 1 --world-size 2 --first-rank 0 --root "$root" --key-file "$out/key" \
    --timeout 60 -- "$probe" --servers 2 >"$out/a" 2>&1 &
pa=$!
# Until the root listens (rank 0 asks for the root info at its start).
for _ in $(seq 1 300); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
done
case $mode in
slow | idle)
    "$attack" "$mode" "$root" 90 >"$out/attack" 2>&1 &
    pat=$!
    sleep 1 ;;
proofs)
    "$attack" replay "$root" "$out/key" >"$out/attack" 2>&1; rr=$?
    "$attack" bigreq "$root" "$out/key" >>"$out/attack" 2>&1; rq=$?
    cat "$out/attack"
    [ "$rr" = 0 ] && [ "$rq" = 0 ] || { echo "attack: FAILED: the listener went along"; exit 1; } ;;
*)
    echo "attack: unknown mode $mode"; exit 2 ;;
esac
"$bin/hcemu-run" -n 1 --world-size 2 --first-rank 1 --root "$root" --key-file "$out/key" \
    --timeout 60 -- "$probe" --servers 2 >"$out/b" 2>&1
rb=$?
wait $pa; ra=$?
cat "$out/a" "$out/b"
[ -n "$pat" ] && { kill "$pat"; wait "$pat"; pat=""; cat "$out/attack"; }
mh_verdict "attack $mode" "$ra" "$rb" 2 "$out/a" "$out/b" || exit 1
echo "attack $mode: the job formed and ended under the attack"

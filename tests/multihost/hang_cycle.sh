#!/bin/bash
# hang_cycle.sh BIN DIAG_HOST - hang reports across hosts, both watchdogs on (HCEMU_HANG_MS=1000
# on host "host-a" and host "host-b", one rank each, loopback; tests/kernels/diag_bugs.c):
#  - diag_cycle: each rank waits for the other's channel notify before recording its own.
#    Each host's report must describe the other host's stuck wait too (its call site), and
#    both must print the same cycle naming both ranks and hosts; the job fails as a hang does.
#  - diag_slow: rank 0 waits for a record rank 1 makes only after 6 s of computing; rank 1 is
#    alive and not waiting: host a's report (after 1 s) must say so and print no cycle.
set -u
[ "${MH_HAVE_UCX:-1}" = 1 ] || { echo "hang_cycle: skipped: hcemu was built without UCX"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
bin=$1 prog=$2
run() {
    DIAG_CASE=$1 MH_HOSTS="host-a host-b" MH_ENV_A=HCEMU_HANG_MS=1000 MH_ENV_B=HCEMU_HANG_MS=1000 \
        bash "$here/run_split.sh" "$bin" hcemu-run 1 1 "$prog" --bytes 64K --iters 1 2>&1
}
fail() { echo "hang_cycle: FAILED: $*"; exit 1; }

out=$(run diag_cycle); rc=$?
echo "$out"
[ "$rc" != 0 ] || fail "diag_cycle: the job did not fail"
cycle="deadlock cycle across hosts: rank 0 on host host-a waits rank 1 on host host-b waits rank 0 on host host-a"
for r in 0 1; do
    grep -qF -- "[rank $r] [hcemu dev0] error:   $cycle" <<<"$out" ||
        fail "diag_cycle: the report of rank $r's host does not print: $cycle"
    grep -F -- "[rank $r] [hcemu dev0] error:   failing these waits with HCCL_E_TIMEOUT" <<<"$out" >/dev/null ||
        fail "diag_cycle: rank $r's host did not fail its waits as a hang"
done
# Host a's report describes rank 1's wait on host b, with its source line, and vice versa.
grep -qE -- "^\[rank 0\].*wait [0-9]+: rank 1 thread 0 \(dev 0 stream [0-9]+\) on host host-b waits on channel notify 0 of rank 1's channel to rank 0 on host host-a .*, at diag_cycle \(diag_bugs.c:[0-9]+\)" <<<"$out" ||
    fail "diag_cycle: host a's report does not describe rank 1's wait on host b"
grep -qE -- "^\[rank 1\].*wait [0-9]+: rank 0 thread 0 \(dev 0 stream [0-9]+\) on host host-a waits on channel notify 0 of rank 0's channel to rank 1 on host host-b .*, at diag_cycle \(diag_bugs.c:[0-9]+\)" <<<"$out" ||
    fail "diag_cycle: host b's report does not describe rank 0's wait on host a"
echo "hang_cycle: both hosts report the cycle through rank 0 (host-a) and rank 1 (host-b)"

out=$(run diag_slow); rc=$?
echo "$out"
[ "$rc" != 0 ] || fail "diag_slow: the job did not fail"
grep -qF -- "host host-b reports no parked wait of rank 1: it runs, or finished without recording it" <<<"$out" ||
    fail "diag_slow: host a's report does not say that rank 1 is not waiting"
! grep -q "deadlock cycle:\|deadlock cycle across" <<<"$out" || fail "diag_slow: a cycle was reported"
echo "hang_cycle: a one-sided wait on a rank that is not waiting is no cycle"

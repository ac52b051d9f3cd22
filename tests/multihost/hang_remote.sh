#!/bin/bash
# hang_remote.sh BIN DIAG_HOST - a hang across hosts: rank 0 (host "host-a") and rank 1
# (host "host-b", HCEMU_HOST-forced, loopback) each wait for the other's channel notify before
# recording their own (tests/kernels/diag_bugs.c, diag_cycle). Host a's watchdog (host b's is
# off, so rank 1 stays parked until rank 0 is gone) must name the remote rank and its host in
# the wait and in who would record it, and fail the wait (the job fails).
set -u
[ "${MH_HAVE_UCX:-1}" = 1 ] || { echo "hang_remote: skipped: hcemu was built without UCX"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
bin=$1 prog=$2
out=$(DIAG_CASE=diag_cycle MH_HOSTS="host-a host-b" MH_ENV_A=HCEMU_HANG_MS=1000 \
      MH_ENV_B=HCEMU_HANG_MS=0 \
      bash "$here/run_split.sh" "$bin" hcemu-run 1 1 "$prog" --bytes 64K --iters 1 2>&1)
rc=$?
echo "$out"
want=("waits on channel notify 0 of rank 0's channel to rank 1 on host host-b"
      "the peer (rank 1 on host host-b, dev 0 there) records it"
      "look at the report of host host-b"
      "failing these waits with HCCL_E_TIMEOUT")
[ "$rc" != 0 ] || { echo "hang_remote: FAILED: the job did not fail"; exit 1; }
for w in "${want[@]}"; do
    grep -qF -- "$w" <<<"$out" || { echo "hang_remote: FAILED: no line with: $w"; exit 1; }
done
echo "hang_remote: the report names rank 1 and host host-b"

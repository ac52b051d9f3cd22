#!/bin/bash
# race_remote.sh BIN DIAG_HOST - the race detector across hosts: rank 0 (host "host-a") and
# rank 1 (host "host-b", HCEMU_HOST-forced, loopback: two job folders, the network path) run
# kernels of tests/kernels/diag_bugs.c under HCEMU_RACECHECK=1. The vector clocks travel with
# the messages, so:
#   diag_ok:        rank 1 reads rank 0's buffer after its READY record: no report;
#   diag_read_race: rank 1 writes into rank 0's buffer while rank 0 copies it out before
#                   waiting for READY: host a reports the race, naming rank 1 and host-b;
#   diag_reuse:     rank 0 rewrites its buffer before rank 1's read acknowledged (DONE): host
#                   a reports rank 1's read and rank 0's second write (in the order they came).
# Each report may name either access first: the later one is checked against the earlier.
# Then 8 ranks split 4+4 (every rank has a channel to every other):
#   diag_fan_ok:    ranks 1-7 read rank 0's buffer after its READY, acknowledge with DONE;
#   diag_fan_race:  ranks 4-7 (host b) read before waiting for READY: host a reports one of
#                   them, on host-b, against rank 0's staging copy.
set -u
[ "${MH_HAVE_UCX:-1}" = 1 ] || { echo "race_remote: skipped: hcemu was built without UCX"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
bin=$1 prog=$2
run() {
    DIAG_CASE=$1 MH_HOSTS="host-a host-b" MH_ENV_A=HCEMU_RACECHECK=1 MH_ENV_B=HCEMU_RACECHECK=1 \
        bash "$here/run_split.sh" "$bin" hcemu-run "${2:-1}" "${2:-1}" "$prog" --bytes 64K \
        --iters 1 2>&1
}
fail() { echo "race_remote: FAILED: $*"; exit 1; }

out=$(run diag_ok); rc=$?
echo "$out"
[ "$rc" = 0 ] || fail "diag_ok did not pass"
grep -q "data race\|race checker stopped" <<<"$out" && fail "diag_ok: a report or a stop"

out=$(run diag_read_race)
echo "$out"
want=("data race on HCCL buffer of device 0 at offset 0 (65536 bytes overlap)"
      "write of [0x200000020000, +65536) by rank 1 thread 0 on host host-b (dev 0 stream 2 there) at diag_read_race (diag_bugs.c:"
      "by rank 0 thread 0 (dev 0 stream 2) at diag_read_race (diag_bugs.c:"
      "missing edge: no channel notify record->wait")
for w in "${want[@]}"; do
    grep -qF -- "$w" <<<"$out" || fail "diag_read_race: no line with: $w"
done

out=$(run diag_reuse)
echo "$out"
want=("read of [0x200000020000, +32768) by rank 1 thread 0 on host host-b (dev 0 stream 2 there) at diag_reuse (diag_bugs.c:"
      "of [0x200000020000, +32768) by rank 0 thread 0 (dev 0 stream 2) at diag_reuse (diag_bugs.c:"
      "the buffer is reused before the reader acknowledged it")
for w in "${want[@]}"; do
    grep -qF -- "$w" <<<"$out" || fail "diag_reuse: no line with: $w"
done
grep -q "race checker stopped" <<<"$out" && fail "diag_reuse: the checker stopped"
out=$(run diag_fan_ok 4); rc=$?
echo "$out"
[ "$rc" = 0 ] || fail "diag_fan_ok 4+4 did not pass"
grep -q "data race\|race checker stopped" <<<"$out" && fail "diag_fan_ok 4+4: a report or a stop"

out=$(run diag_fan_race 4)
echo "$out"
grep -qF "data race on HCCL buffer of device 0 at offset 0 (65536 bytes overlap)" <<<"$out" ||
    fail "diag_fan_race 4+4: no report"
grep -qE "read of \[0x200000020000, \+65536\) by rank [4-7] thread 0 on host host-b \(dev [0-3] stream 2 there\) at fan \(diag_bugs.c:" <<<"$out" ||
    fail "diag_fan_race 4+4: the report does not name a reader of host-b"
grep -q "race checker stopped" <<<"$out" && fail "diag_fan_race 4+4: the checker stopped"
echo "race_remote: the clocks crossed the hosts (1+1 and 4+4: no report for the ordered kernels, the races name a rank of host-b)"

#!/bin/bash
# model_shm_refused.sh BIN MH_MODEL_AG KERNELS_JSON - the modelled clock where it cannot be
# right: the held-out ring AllGather kernel at 8 ranks split 4+4 over two job folders of one
# host (no HCEMU_HOST, so the channels between them are shared memory, which carries no
# graph nodes). Each folder's graph lacks the other's tasks, so no figure may be printed:
# the executors say once why (a channel to another job folder of this host), every
# aclrtEventElapsedTime fails instead of returning a made-up time, and the data still
# arrives (every rank checks its bytes; the run fails only on the elapsed-time check).
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=$1 prog=$2 json=$3
export HCEMU_TIME=model HCCL_BUFFSIZE=16
fail() { echo "model_shm_refused: FAILED: $*"; exit 1; }

out=$(MH_EXPECT=PASS bash "$here/run_split.sh" "$bin" hcemu-run 4 4 "$prog" "$json" 2>&1)
echo "$out"
grep -q "model_ring_ag .* ms" <<<"$out" && fail "a rank printed a modelled time"
grep -q "reaches device [0-9]* of another job folder of this host" <<<"$out" ||
    fail "no executor said why modelled times stopped"
n=$(grep -c "aclrtEventElapsedTime (" <<<"$out")
[ "$n" = 8 ] || fail "$n ranks, not 8, failed their elapsed-time check"
grep -q "floats of the gathered buffer are wrong" <<<"$out" && fail "wrong data"
echo "model_shm_refused: 8 ranks over two folders of one host: no modelled time, one reason"

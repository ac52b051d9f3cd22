#!/bin/bash
# model_split.sh BIN MH_MODEL_AG KERNELS_JSON - the modelled clock across hosts: the held-out
# ring AllGather kernel at 8 ranks (tests/multihost/mh_model_ag.c) under HCEMU_TIME=model,
#   - in one job folder whose devices HCEMU_TOPOLOGY puts on two servers of four, and
#   - split 4+4 over two hosts (two job folders, HCEMU_HOST each: the network path),
# must give every rank the same modelled elapsed time, bit for bit: the split job's graph
# travels with its messages and each host simulates the whole of it, and another host is
# another server (its ring steps to the other host cross the inter-server ports), as the
# topology says for the one-folder run. Both runs check every byte. Skipped without UCX.
set -u
[ "${MH_HAVE_UCX:-1}" = 1 ] || { echo "model_split: skipped: hcemu was built without UCX"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
bin=$1 prog=$2 json=$3
export HCEMU_TIME=model HCCL_BUFFSIZE=16 # 8 blocks of 1 MiB
fail() { echo "model_split: FAILED: $*"; exit 1; }
figures() { grep -o 'rank [0-9]*: model_ring_ag [^ ]* ms' | sed 's/^.*rank //' | sort -n; }

one=$(HCEMU_TOPOLOGY=$here/topo_4_4.json timeout 200 "$bin/hcemu-run" -n 8 --timeout 200 -- \
      "$prog" "$json" 2>&1)
rc=$?
echo "$one"
[ "$rc" = 0 ] || fail "the one-folder run failed"
split=$(MH_NET=1 MH_EXPECT=PASS bash "$here/run_split.sh" "$bin" hcemu-run 4 4 "$prog" "$json" 2>&1)
rc=$?
echo "$split"
[ "$rc" = 0 ] || fail "the split run failed"
a=$(figures <<<"$one") b=$(figures <<<"$split")
[ "$(wc -l <<<"$a")" = 8 ] || fail "the one-folder run gave $(wc -l <<<"$a") figures, not 8"
[ "$a" = "$b" ] || fail "the figures differ: one folder:
$a
split 4+4:
$b"
grep -q "modelled time" <<<"$one$split" && fail "a modelled-time warning or error"
echo "model_split: the 8 ranks' modelled times split 4+4 over two hosts equal the one-folder run's on two servers"

# verdict.sh - sourced by run_split.sh and run_netns.sh: the pass/fail rule of a job split over
# two hosts, from both hosts' exit codes and their combined output.
#   mh_verdict NAME RA RB N OUTPUT...
# MH_EXPECT (default PASS) is the line each rank prints when its checks held: examples and
# mh_probe print one PASS per rank (N needed); the hccl_test tools print one "success" line
# per size on rank 0, after combining every rank's verdict (1 needed).
mh_verdict() {
    local name=$1 ra=$2 rb=$3 n=$4 need pass
    shift 4
    if [ "${MH_EXPECT:-PASS}" = PASS ]; then need=$n; else need=1; fi
    pass=$(cat "$@" | grep -c -- "${MH_EXPECT:-PASS}")
    # UCX's own log lines are not verdicts: it logs a refused TCP connect as an ERROR line
    # ("connect(...) failed: Connection refused"), seen when a peer's executor had already
    # finished its part and exited; a transfer that fails is reported by hcemu itself, with
    # the peer's host, and fails the rank.
    if [ "$ra" != 0 ] || [ "$rb" != 0 ] || [ "$pass" -lt "$need" ] ||
        cat "$@" | grep -v " UCX  \(ERROR\|WARN\)" | grep -q "FAIL\|failed"; then
        echo "$name: FAILED (exit $ra/$rb, $pass of $need verdict lines)"
        return 1
    fi
    return 0
}


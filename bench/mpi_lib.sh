# mpi_lib.sh - what the scripts that time hcemu beside OpenMPI or itself share (collectives.sh,
# choice.sh, versus.sh, direct.sh); sourced, not run. BENCH is the folder of the scripts.

# The median of the numbers on stdin, one per line (0 when there are none).
median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }

# row_calls BYTES [TARGET_MS [WARM_MS]]: "calls warm-up" for a row of BYTES per call: enough
# calls for about TARGET_MS (60) of work at a rough 5 us + 1 us per 4 KiB a call, at least 50
# and at most 5000, and warm-up calls first for about WARM_MS (300; at least a tenth of the
# calls, at most 20000). A job's first tenths of a second run slower: its start-up pauses
# the executors' polls job-wide for up to 100 ms (docs/PERFORMANCE.md, "The cliffs left"),
# and a 4-rank 128 KiB allgather measured 52-74 us a call after a tenth as many warm-up calls
# against 25-31 after 300 ms of them, OpenMPI 30-34 either way.
row_calls() {
    rc_est=$((5 + $1 / 4096))
    rc_calls=$((${2:-60} * 1000 / rc_est))
    [ "$rc_calls" -ge 50 ] || rc_calls=50
    [ "$rc_calls" -le 5000 ] || rc_calls=5000
    rc_warm=$((${3:-300} * 1000 / rc_est))
    [ "$rc_warm" -ge $((rc_calls / 10 + 5)) ] || rc_warm=$((rc_calls / 10 + 5))
    [ "$rc_warm" -le 20000 ] || rc_warm=20000
    echo "$rc_calls $rc_warm"
}

# row_parse ROW: "ar:RANKS:SIZE" (allreduce) or "ag:RANKS:SIZE" (allgather) into row_op,
# row_n, row_size, row_bytes, row_tool (the hccl_test tool) and row_mop (bench/mpi_coll.c's
# name of the operator); false for another operator.
row_parse() {
    row_op=${1%%:*} row_rest=${1#*:}
    row_n=${row_rest%%:*} row_size=${row_rest#*:}
    row_bytes=$(bytes_of "$row_size")
    case $row_op in
    ar) row_tool=all_reduce_test row_mop=allreduce ;;
    ag) row_tool=all_gather_test row_mop=allgather ;;
    *) return 1 ;;
    esac
}

# hcemu_time RANKS TOOL BYTES CALLS WARM-UP: one job of TOOL under hcemu-run (BIN: the build's
# bin folder) and rank 0's time per call, hccl_test's column, in us.
hcemu_time() {
    "$BIN/hcemu-run" -n "$1" "$BIN/$2" -b "$3" -e "$3" -n "$4" -w "$5" -c 0 2>/dev/null |
        awk '/^\[rank 0\] [0-9]/ { print $5; exit }'
}

# row_print OP RANKS SIZE CALLS FILE1 FILE2 NAME1 NAME2 NUM: one table row, the medians of the
# runs in FILE1 and FILE2, the ratio of the NUM-th (1 or 2) over the other, then every run.
row_print() {
    rp_1=$(median <"$5") rp_2=$(median <"$6")
    if [ "$9" = 1 ]; then rp_num=$rp_1 rp_den=$rp_2; else rp_num=$rp_2 rp_den=$rp_1; fi
    printf '%-4s %5s %6s %6s %10s %10s %7s  %s %s| %s %s\n' "$1" "$2" "$3" "$4" "$rp_1" "$rp_2" \
        "$(awk -v a="$rp_num" -v b="$rp_den" 'BEGIN { print (b > 0 ? sprintf("%.2f", a / b) : "-") }')" \
        "$7" "$(tr '\n' ' ' <"$5")" "$8" "$(tr '\n' ' ' <"$6")"
}

# "4K", "1M", "2G" or a byte count -> bytes.
bytes_of() {
    case $1 in
    *K) echo $((${1%K} * 1024)) ;;
    *M) echo $((${1%M} * 1048576)) ;;
    *G) echo $((${1%G} * 1073741824)) ;;
    *) echo "$1" ;;
    esac
}

# mpi_build OUT ERRORS: bench/mpi_coll.c compiled with mpicc into OUT (the compiler's messages
# into ERRORS); false when OpenMPI's mpicc or mpirun is missing or the build fails. The
# baseline is never part of the CMake build.
mpi_build() {
    command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1 &&
        mpicc -O2 -o "$1" "$BENCH/mpi_coll.c" 2>"$2"
}

# mpi_time MPI_COLL N OP BYTES CALLS WARM-UP: OpenMPI's time of a call of BYTES (OP: allreduce
# or allgather) at N ranks, in a run of that size alone (MPI_COLL: mpi_build's program; at most
# 300 s); empty when it failed.
mpi_time() {
    mpi_run 300 "$2" "$1" "$4" "$5" "$6" "$4" "$5" "$6" 4 "$4" 2>/dev/null |
        awk -v o="$3" -v b="$4" '$1 == o && $2 == b { print $3; exit }'
}

# mpi_run SECONDS RANKS COMMAND [ARGS...]: mpirun with RANKS processes on however many cores
# there are, ended after SECONDS. OpenMPI refuses to start as root unless told; the benchmarks
# run as whoever runs make.
mpi_run() {
    mpi_secs=$1 mpi_ranks=$2
    shift 2
    mpi_root=""
    [ "$(id -u)" -ne 0 ] || mpi_root=--allow-run-as-root
    timeout "$mpi_secs" mpirun $mpi_root --oversubscribe --mca rtc_hwloc_vmhole none -n "$mpi_ranks" "$@"
}

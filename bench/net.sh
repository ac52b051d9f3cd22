#!/bin/bash
# net.sh - the data plane between hosts (UCX over TCP on loopback) against the same link's
# limits, measured in the same run:
#   - hcemu: send_recv_test between two "hosts" (one hcemu-run each, HCEMU_HOST per host, so
#     the channel goes through UCX): each message is a write-with-notify plus one notify back,
#     1 MiB ... 256 MiB, and 8 B for the hand-off (kernel launch + both notifies + host sync);
#   - ucx_perftest -t ucp_put_bw at the same sizes and -t ucp_am_lat at 8 B, with the UCX
#     settings hcemu's executors use (UCX_TLS=tcp, 512 KiB TCP segments);
#   - iperf3 on the same loopback link;
#   - bench_net (bench/bench_net.c, devices 0 and 1 of one process on two "hosts"): the data
#     plane without the collective around it - HcommWriteOnThread alone and write-with-notify
#     plus a notify back, bytes/s of extra rounds (launch and synchronisation subtracted), and
#     the pure notify hand-off (channel notify ping-pong, round trip / 2).
# Prints the figures and the ratios hcemu/put_bw, hcemu/iperf3 (target >= 0.8),
# hcemu 8 B / am_lat (target <= 1.5) and notify hand-off / am_lat. Skips (exit 0, one line)
# what is not installed or built.
# Usage: bench/net.sh [build-dir]   (SIZES, ITERS override)
set -u
BUILD=${1:-build}
BIN=$BUILD/bin
SIZES=${SIZES:-"1M 4M 16M 64M 256M"}
ITERS=${ITERS:-5}
TMP=$(mktemp -d /tmp/hcemu-netbench-XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
export UCX_TLS=${UCX_TLS:-tcp} UCX_TCP_TX_SEG_SIZE=${UCX_TCP_TX_SEG_SIZE:-512k}
export UCX_TCP_RX_SEG_SIZE=${UCX_TCP_RX_SEG_SIZE:-512k} UCX_WARN_UNUSED_ENV_VARS=n

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
bytes() { numfmt --from=iec "$1"; }
# ratio A B DIGITS: A / B, or "-" when B is missing or zero.
ratio() {
    awk -v a="${1:-0}" -v b="${2:-0}" -v d="$3" 'BEGIN { if (b > 0) printf("%." d "f", a / b); else print "-" }'
}

# hcemu: send_recv_test over two hosts; prints "bytes us GB/s" rows of rank 0.
hcemu_sr() {
    local port
    port=$(free_port)
    HCEMU_HOST=bench-a-$$ HCCL_BUFFSIZE=600 timeout 600 "$BIN/hcemu-run" -n 1 --world-size 2 \
        --first-rank 0 --root 127.0.0.1:"$port" --insecure-loopback -- "$BIN/send_recv_test" "$@" \
        >"$TMP/a" 2>&1 &
    HCEMU_HOST=bench-b-$$ HCCL_BUFFSIZE=600 timeout 600 "$BIN/hcemu-run" -n 1 --world-size 2 \
        --first-rank 1 --root 127.0.0.1:"$port" --insecure-loopback -- "$BIN/send_recv_test" "$@" \
        >"$TMP/b" 2>&1
    wait
    grep -E '^\[rank 0\] +[0-9]+ +\|' "$TMP/a" | awk -F'|' '{sub(/^\[rank 0\] +/, "", $1); print $1+0, $2+0, $3+0}'
}

# ucx_perftest TEST SIZE: the "Final:" row's average latency (us) and bandwidth (MB/s, 2^20).
perftest() {
    local port
    port=$(free_port)
    timeout 120 ucx_perftest -t "$1" -s "$2" -n "$3" -p "$port" >"$TMP/ps" 2>&1 &
    sleep 0.5
    timeout 120 ucx_perftest 127.0.0.1 -t "$1" -s "$2" -n "$3" -p "$port" 2>/dev/null |
        awk '/^Final:/ {print $4, $6}'
    wait
}

[ -x "$BIN/send_recv_test" ] || { echo "net.sh: $BIN/send_recv_test not built: skipped"; exit 0; }
have_pf=""; command -v ucx_perftest >/dev/null && have_pf=yes
have_ip=""; command -v iperf3 >/dev/null && have_ip=yes
[ -n "$have_pf" ] || echo "net.sh: ucx_perftest (ucx-utils) not installed: no UCX column"
[ -n "$have_ip" ] || echo "net.sh: iperf3 not installed: no iperf3 column"
echo "UCX settings: UCX_TLS=$UCX_TLS UCX_TCP_TX_SEG_SIZE=$UCX_TCP_TX_SEG_SIZE" \
     "UCX_TCP_RX_SEG_SIZE=$UCX_TCP_RX_SEG_SIZE; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

ip_gbs=""
if [ -n "$have_ip" ]; then
    port=$(free_port)
    iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
    sleep 0.5
    ip_gbs=$(iperf3 -c 127.0.0.1 -p "$port" -t 3 -J 2>/dev/null |
        python3 -c 'import json,sys; print("%.3f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 8e9))' 2>/dev/null)
    wait
    echo "iperf3 loopback: ${ip_gbs:-?} GB/s"
fi

lo=$(bytes "$(echo "$SIZES" | awk '{print $1}')")
hi=$(bytes "$(echo "$SIZES" | awk '{print $NF}')")
hcemu_sr -b "$lo" -e "$hi" -f 4 -n "$ITERS" -w 1 -c 0 >"$TMP/rows"
printf "%10s %12s %12s %12s %10s %10s\n" bytes "hcemu GB/s" "put_bw GB/s" "iperf3 GB/s" "/put_bw" "/iperf3"
while read -r b us gbs; do
    pf=""
    if [ -n "$have_pf" ]; then
        # At least 256 MiB per size, so the figure is a steady rate, not the first few puts
        # leaving the local buffer before the final flush.
        n=$(( 268435456 / b )); [ "$n" -ge 3 ] || n=3
        pf=$(perftest ucp_put_bw "$b" "$n" | awk '{printf "%.3f", $2 * 1048576 / 1e9}')
    fi
    r1=$(ratio "$gbs" "${pf:-0}" 2)
    r2=$(ratio "$gbs" "${ip_gbs:-0}" 2)
    printf "%10s %12s %12s %12s %10s %10s\n" "$b" "$gbs" "${pf:--}" "${ip_gbs:--}" "$r1" "$r2"
    echo "$b ${pf:-0}" >>"$TMP/putbw"
done <"$TMP/rows"

# The data plane alone (bench_net): write only and write + notify, against the same put_bw.
have_net=""
if [ ! -x "$BIN/bench_net" ]; then
    echo "net.sh: $BIN/bench_net not built: no write-only rows"
elif [ ! -e "$BUILD/lib/libhcemu_net_ucx.so" ]; then
    echo "net.sh: built without UCX (no lib/libhcemu_net_ucx.so): no write-only rows"
else
    have_net=yes
    rounds=$(( ITERS * 400 ))
    timeout 900 "$BIN/bench_net" --sizes "$(echo "$SIZES" | tr ' ' ',')" --iters "$ITERS" \
        --rounds "$rounds" >"$TMP/net" 2>"$TMP/net.err" ||
        { echo "net.sh: bench_net failed:"; tail -5 "$TMP/net.err"; have_net=""; }
fi
if [ -n "$have_net" ]; then
    printf "\n%10s %12s %14s %12s %10s %10s\n" bytes "write GB/s" "write+ntf GB/s" "put_bw GB/s" \
        "write/put" "w+n/put"
    awk '$1 == "write" {print $2, $3, $4}' "$TMP/net" | while read -r b w wn; do
        pf=$(awk -v b="$b" '$1 == b {print $2}' "$TMP/putbw" 2>/dev/null)
        r1=$(ratio "$w" "${pf:-0}" 2)
        r2=$(ratio "$wn" "${pf:-0}" 2)
        printf "%10s %12s %14s %12s %10s %10s\n" "$b" "$w" "$wn" "${pf:--}" "$r1" "$r2"
    done
fi

# Hand-off: an 8 B send/recv (two notifies through UCX plus the kernel launch and the host's
# synchronisation) against UCX's own active-message latency.
lat=$(hcemu_sr -b 8 -e 8 -n 50 -w 5 -c 0 | awk '{print $2}')
# The notify hand-off alone (bench_net): one way, launch and synchronisation subtracted.
ntf=""
[ -n "$have_net" ] && ntf=$(awk '$1 == "handoff" {print $2}' "$TMP/net")
if [ -n "$have_pf" ]; then
    am=$(perftest ucp_am_lat 8 2000 | awk '{print $1}')
    r=$(ratio "${lat:-0}" "${am:-0}" 1)
    echo "hand-off: hcemu 8 B send/recv ${lat:-?} us, ucp_am_lat ${am:-?} us, ratio $r"
    if [ -n "$ntf" ]; then
        r=$(ratio "$ntf" "${am:-0}" 1)
        echo "notify hand-off (record on one host -> wait passes on the other, one way): ${ntf} us," \
             "ucp_am_lat ${am:-?} us, ratio $r"
    fi
else
    echo "hand-off: hcemu 8 B send/recv ${lat:-?} us"
    [ -n "$ntf" ] && echo "notify hand-off (one way, no launch or sync): ${ntf} us"
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

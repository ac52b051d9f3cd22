#!/bin/sh
# scale_mem.sh - run a command and report the peak of machine memory in use during it.
#
# "In use" counts /dev/shm (shared memory is in the page cache, so it is added back):
#   MemTotal - MemFree - Buffers - Cached - SReclaimable + Shmem   (from /proc/meminfo)
# The figure is the peak minus the value before the run, so other jobs' steady use cancels
# out (their changes during the run do not). Usage: scale_mem.sh LABEL COMMAND [ARGS...]
label=$1
shift
used() {
    awk '/^MemTotal:/{t=$2} /^MemFree:/{f=$2} /^Buffers:/{b=$2} /^Cached:/{c=$2}
         /^SReclaimable:/{s=$2} /^Shmem:/{m=$2}
         END{printf "%.0f\n", (t-f-b-c-s+m)*1024}' /proc/meminfo
}
base=$(used)
peakf=$(mktemp)
echo "$base" >"$peakf"
(
    while :; do
        u=$(used)
        [ "$u" -gt "$(cat "$peakf")" ] && echo "$u" >"$peakf"
        sleep 0.1
    done
) &
sampler=$!
start=$(date +%s.%N)
"$@"
rc=$?
end=$(date +%s.%N)
kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
peak=$(cat "$peakf")
rm -f "$peakf"
awk -v l="$label" -v p="$peak" -v b="$base" -v s="$start" -v e="$end" -v rc="$rc" 'BEGIN{
    printf "%s: rc %d, %.1f s, peak memory in use +%.0f MiB over the %.0f MiB before\n",
           l, rc, e - s, (p - b) / 1048576, b / 1048576 }'
exit "$rc"

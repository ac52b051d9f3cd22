#!/bin/sh
# scale_mem.sh - run a command and report the peak of memory it uses, two ways.
#
# Machine-wide: memory in use counts /dev/shm (shared memory is in the page cache, so it is
# added back): MemTotal - MemFree - Buffers - Cached - SReclaimable + Shmem (/proc/meminfo),
# peak minus the value before the run. Other jobs' changes during the run count too, so on
# a busy machine this figure is only an upper bound.
# The job's own: the sum over the command's process tree (host processes, ranks, executors)
# of page tables (VmPTE) and private anonymous memory (RssAnon), plus the space used in the
# job folders' parent HCEMU_JOB_DIR (default /dev/shm, where other jobs' files count too:
# point HCEMU_JOB_DIR at a private folder, as scale.sh does). Both are sampled every 0.2 s.
# Usage: scale_mem.sh LABEL COMMAND [ARGS...]
label=$1
shift
used() {
    awk '/^MemTotal:/{t=$2} /^MemFree:/{f=$2} /^Buffers:/{b=$2} /^Cached:/{c=$2}
         /^SReclaimable:/{s=$2} /^Shmem:/{m=$2}
         END{printf "%.0f\n", (t-f-b-c-s+m)*1024}' /proc/meminfo
}
# "pte anon shm" in KiB for the process tree under $1.
own() {
    pids=$(ps -e -o pid=,ppid= | awk -v root="$1" '
        {kids[$2] = kids[$2] " " $1}
        END {q = root; while (q != "") { split(q, a, " "); q = "";
                 for (i in a) { print a[i]; q = q " " kids[a[i]] } } }')
    shm=$(du -sk "${HCEMU_JOB_DIR:-/dev/shm}" 2>/dev/null | awk '{print $1}')
    # One cat for every process (hundreds of them): a process that ended meanwhile is skipped.
    files=$(for p in $pids; do printf '/proc/%s/status ' "$p"; done)
    cat $files 2>/dev/null |
        awk -v shm="${shm:-0}" '/^VmPTE:/{p+=$2} /^RssAnon:/{a+=$2}
                                END{printf "%d %d %d\n", p, a, shm}'
}
base=$(used)
peakf=$(mktemp)
ownf=$(mktemp)
echo "$base" >"$peakf"
echo "0 0 0 0" >"$ownf"
"$@" &
cmd=$!
(
    while kill -0 "$cmd" 2>/dev/null; do
        u=$(used)
        [ "$u" -gt "$(cat "$peakf")" ] && echo "$u" >"$peakf"
        set -- $(own "$cmd")
        awk -v p="$1" -v a="$2" -v s="$3" '{t = p + a + s
            if (t > $1) print t, p, a, s; else print}' "$ownf" >"$ownf.new" &&
            mv "$ownf.new" "$ownf"
        sleep 0.2
    done
) &
sampler=$!
start=$(date +%s.%N)
wait "$cmd"
rc=$?
end=$(date +%s.%N)
wait "$sampler" 2>/dev/null
peak=$(cat "$peakf")
set -- $(cat "$ownf")
rm -f "$peakf" "$ownf"
load=$(cut -d' ' -f1-3 /proc/loadavg)
awk -v l="$label" -v p="$peak" -v b="$base" -v s="$start" -v e="$end" -v rc="$rc" \
    -v t="$1" -v pt="$2" -v an="$3" -v sh="$4" -v load="$load" 'BEGIN{
    printf "%s: rc %d, %.1f s, peak memory in use +%.0f MiB over the %.0f MiB before; " \
           "own peak %.0f MiB (page tables %.0f, anonymous %.0f, job files %.0f); " \
           "load average at the end %s\n",
           l, rc, e - s, (p - b) / 1048576, b / 1048576, t / 1024, pt / 1024, an / 1024,
           sh / 1024, load }'
exit "$rc"

#!/bin/bash
# run_netns.sh BIN LAUNCHER A B PROGRAM [ARGS...] - one job of A+B ranks split over two
# "hosts" that are two network namespaces of this machine, joined by a veth pair (10.77.0.1
# and 10.77.0.2/24: private addresses, no route out), each with its own private /dev/shm (so
# no shared-memory path exists between them). LAUNCHER hcemu-run: one hcemu-run per
# namespace, with --root on host a's veth address and HCCL_IF_IP on each host's own. mpirun:
# one mpirun in namespace a over the hosts "ha" and "hb", whose daemons its rsh agent starts
# in the namespaces (skipped when mpirun is absent). Passes per verdict.sh (MH_EXPECT as in
# run_split.sh). Exit 77 (skip) with a message when not root or when namespaces, veth pairs
# or mounts are unavailable. Everything it creates (namespaces, veth pair, mounts, processes)
# is removed on every exit path.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/verdict.sh"
bin=$1 launcher=$2 a=$3 b=$4
shift 4
n=$((a + b))

skip() { echo "run_netns: skipped: $*"; exit 77; }
# MH_NET=1: the program needs the network data plane between the hosts (channels).
[ "${MH_NET:-0}" = 1 ] && [ "${MH_HAVE_UCX:-1}" != 1 ] && skip "hcemu was built without UCX"
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, mounts)"
command -v ip >/dev/null || skip "the ip command (iproute2) is not installed"
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
[ "$launcher" = mpirun ] && ! command -v mpirun >/dev/null && skip "mpirun is not installed"

tag=$$
nsa=hcemu-a-$tag nsb=hcemu-b-$tag
vea=hcva$tag veb=hcvb$tag # interface names: at most 15 bytes
out=$(mktemp -d)
pids=""

cleanup() {
    # Ranks first (TERM: hcemu-run stops its ranks and executors), then anything still in
    # the namespaces (all of it started here), then the namespaces (their veth ends go too).
    for p in $pids; do kill -TERM "$p" 2>/dev/null; done
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        left=""
        for ns in $nsa $nsb; do left="$left$(ip netns pids "$ns" 2>/dev/null)"; done
        [ -z "$left" ] && break
        sleep 0.5
    done
    for ns in $nsa $nsb; do
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
    done
    for p in $pids; do wait "$p" 2>/dev/null; done
    ip netns del "$nsa" 2>/dev/null
    ip netns del "$nsb" 2>/dev/null
    ip link del "$vea" 2>/dev/null
    rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

ip netns add "$nsa" 2>/dev/null || skip "cannot create a network namespace (ip netns add)"
ip netns add "$nsb" || skip "cannot create a second network namespace"
ip link add "$vea" netns "$nsa" type veth peer name "$veb" netns "$nsb" 2>/dev/null ||
    skip "cannot create a veth pair"
ip -n "$nsa" addr add 10.77.0.1/24 dev "$vea" &&
    ip -n "$nsb" addr add 10.77.0.2/24 dev "$veb" &&
    ip -n "$nsa" link set lo up && ip -n "$nsb" link set lo up &&
    ip -n "$nsa" link set "$vea" up && ip -n "$nsb" link set "$veb" up ||
    { echo "run_netns: FAILED: cannot configure the veth pair"; exit 1; }
# The link comes up asynchronously; the ranks' UCX lists the interfaces that are running when
# it starts, so wait until both ends are up (at most 10 s).
for _ in $(seq 100); do
    ip -n "$nsa" -o link show dev "$vea" | grep -q "state UP" &&
        ip -n "$nsb" -o link show dev "$veb" | grep -q "state UP" && break
    sleep 0.1
done
ip -n "$nsb" -o link show dev "$veb" | grep -q "state UP" ||
    { echo "run_netns: FAILED: the veth pair did not come up"; exit 1; }
# A private /dev/shm must be possible (a mount namespace inside the network namespace).
ip netns exec "$nsa" unshare -m --propagation private \
    sh -c 'mount -t tmpfs -o mode=1777 hcemu-shm /dev/shm' 2>/dev/null ||
    skip "cannot mount a private /dev/shm in a mount namespace"

root=10.77.0.1:29500
"$bin/hcemu-run" --make-key "$out/key" 2>/dev/null || { echo "run_netns: no key"; exit 1; }

# on_host NS IP FIRST COUNT OUT: one hcemu-run in namespace NS with its own /dev/shm.
on_host() {
    local ns=$1 ip=$2 first=$3 count=$4 log=$5
    shift 5
    ip netns exec "$ns" unshare -m --propagation private sh -c '
        mount -t tmpfs -o mode=1777 hcemu-shm /dev/shm || exit 1
        exec env HCCL_IF_IP="$0" "$@"' "$ip" \
        "$bin/hcemu-run" -n "$count" --world-size "$n" --first-rank "$first" --root "$root" \
        --key-file "$out/key" --timeout 200 -- "$@" >"$log" 2>&1
}

case $launcher in
hcemu-run)
    on_host "$nsa" 10.77.0.1 0 "$a" "$out/a" "$@" &
    pa=$!
    on_host "$nsb" 10.77.0.2 "$a" "$b" "$out/b" "$@" &
    pb=$!
    pids="$pa $pb"
    wait $pa; ra=$?
    wait $pb; rb=$?
    ;;
mpirun)
    # Open MPI starts one daemon per host through an rsh agent ("AGENT HOST COMMAND"): this
    # one runs the daemon of host ha (hb) in namespace a (b), with a private /dev/shm that
    # the host's ranks share. mpirun itself runs in namespace a. Each daemon gets a TMPDIR of
    # its own: the namespaces share /tmp and the host name, so the run-time folders of Open MPI
    # (/tmp/ompi.HOST.UID/jf.N) would collide between mpirun and the two daemons.
    cat >"$out/agent" <<AGENT
#!/bin/bash
case \$1 in ha) ns=$nsa ip=10.77.0.1 ;; hb) ns=$nsb ip=10.77.0.2 ;; *) exit 1 ;; esac
TMPDIR="$out/tmp-\$1"
mkdir -p -m 700 "\$TMPDIR" && export TMPDIR
shift
exec ip netns exec "\$ns" unshare -m --propagation private sh -c \
    'mount -t tmpfs -o mode=1777 hcemu-shm /dev/shm && HCCL_IF_IP=\$1 && export HCCL_IF_IP && exec sh -c "\$0"' "\$*" "\$ip"
AGENT
    chmod 700 "$out/agent"
    asroot=""
    [ "$(id -u)" = 0 ] && asroot="--allow-run-as-root"
    # rtc_hwloc_vmhole none: Open MPI 4.1's daemons otherwise share their hwloc topology
    # through a mapping in the biggest hole of their address space, and sometimes crash
    # doing so (seen in CI: a segfault in hwloc_shmem_topology_write).
    ip netns exec "$nsa" timeout 200 mpirun $asroot --host "ha:$a,hb:$b" -np "$n" \
        --mca plm_rsh_agent "$out/agent" --mca oob_tcp_if_include 10.77.0.0/24 \
        --mca rtc_hwloc_vmhole none \
        -x HCEMU_ROOT="$root" -x HCEMU_KEY="$(cat "$out/key")" "$@" >"$out/a" 2>&1 &
    pa=$!
    pids=$pa
    wait $pa; ra=$?
    rb=0
    : >"$out/b"
    ;;
*)
    echo "run_netns: unknown launcher $launcher"; exit 2 ;;
esac
pids=""
cat "$out/a" "$out/b"
mh_verdict run_netns "$ra" "$rb" "$n" "$out/a" "$out/b" || exit 1
echo "run_netns: $n ranks over two network namespaces ($a+$b) by $launcher passed"

#!/bin/bash
# keys.sh BIN PROBE - the job's key is never on a command line and never guessable:
# hcemu-run refuses --secret, refuses --root without a key (unless --insecure-loopback with a
# 127.x root), refuses key files others may read, of another user, behind a symlink or not
# holding a key; --make-key never overwrites; a rank whose environment names a root but no
# key fails HcclGetRootInfo with one line; HCEMU_KEY works as --key-file does.
set -u
bin=$1 probe=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
run=$bin/hcemu-run
# expect NAME PATTERN COMMAND...: the command exits non-zero and says PATTERN.
expect() {
    local name=$1 pattern=$2
    shift 2
    if "$@" >"$out/log" 2>&1; then
        echo "keys: FAILED: $name: accepted"; cat "$out/log"; fail=1
    elif ! grep -q -- "$pattern" "$out/log"; then
        echo "keys: FAILED: $name: not the expected message ($pattern)"; cat "$out/log"; fail=1
    else
        echo "keys: $name: refused: $(head -n 1 "$out/log")"
    fi
}
split=(-n 1 --world-size 2 --first-rank 0 --root)
expect "--secret" "readable by every user" "$run" "${split[@]}" 127.0.0.1:1 --secret s -- true
expect "--root without a key" "needs the job's key" "$run" "${split[@]}" 127.0.0.1:1 -- true
expect "--insecure-loopback off loopback" "needs a root on this machine's loopback" \
    "$run" "${split[@]}" 10.1.2.3:1 --insecure-loopback -- true
"$run" --make-key "$out/key" 2>/dev/null || { echo "keys: FAILED: --make-key"; exit 1; }
[ "$(stat -c %a "$out/key")" = 600 ] || { echo "keys: FAILED: the key file is not 0600"; fail=1; }
expect "--make-key over a file" "never overwritten" "$run" --make-key "$out/key"
cp "$out/key" "$out/open" && chmod 644 "$out/open"
expect "a key file others may read" "others may read it" \
    "$run" "${split[@]}" 127.0.0.1:1 --key-file "$out/open" -- true
ln -s "$out/key" "$out/link"
expect "a key file behind a symlink" "symlink" \
    "$run" "${split[@]}" 127.0.0.1:1 --key-file "$out/link" -- true
printf 'not a key\n' >"$out/bad" && chmod 600 "$out/bad"
expect "a file holding no key" "hex digits" \
    "$run" "${split[@]}" 127.0.0.1:1 --key-file "$out/bad" -- true
if [ "$(id -u)" = 0 ]; then
    cp "$out/key" "$out/foreign" && chown 65534 "$out/foreign"
    expect "a key file of another user" "belongs to another user" \
        "$run" "${split[@]}" 127.0.0.1:1 --key-file "$out/foreign" -- true
fi
# A launcher that sets HCEMU_ROOT without a key (as mpirun -x would): the library refuses.
expect "HCEMU_ROOT without a key" "HCEMU_ROOT is set but the job has no key" \
    env HCEMU_ROOT=127.0.0.1:1 HCEMU_LOG_LEVEL=warn "$run" -n 1 -- "$probe" --servers 1
# HCEMU_KEY (as mpirun -x HCEMU_KEY=... gives it) makes a job like --key-file does.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
for r in 0 1; do
    env HCEMU_KEY="$(cat "$out/key")" HCEMU_LOG_LEVEL=warn "$run" -n 1 --world-size 2 \
        --first-rank $r --root 127.0.0.1:"$port" --timeout 100 -- "$probe" --servers 2 \
        >"$out/job$r" 2>&1 &
done
wait %1; ra=$?
wait %2; rb=$?
if [ "$ra" != 0 ] || [ "$rb" != 0 ] || [ "$(cat "$out/job0" "$out/job1" | grep -c PASS)" != 2 ]; then
    echo "keys: FAILED: a 1+1 job with HCEMU_KEY (exit $ra/$rb)"; cat "$out/job0" "$out/job1"; fail=1
fi
[ "$fail" = 0 ] && echo "keys: every refusal held; HCEMU_KEY made the job"
exit $fail

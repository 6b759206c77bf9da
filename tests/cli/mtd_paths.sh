#!/usr/bin/env bash
# /dev/mtdN paths dispatch to the Linux MTD backend, and bad input there ends
# with exit status 2 and one line naming the problem. (The backend itself is
# exercised against the real kernel by tests/qemu/run-harness.sh.)
# usage: mtd_paths.sh NANDKIT FIXTURES_DIR
set -u
nandkit=$1
failures=0

expect() { # expect STATUS PATTERN -- nandkit arguments...
    local want=$1 pattern=$2
    shift 3
    local out status
    out=$("$nandkit" "$@" 2>&1)
    status=$?
    if [[ $status -ne $want ]] || ! grep -q -- "$pattern" <<<"$out"; then
        echo "FAIL: nandkit $* -> status $status, output: $out (wanted $want and '$pattern')"
        failures=$((failures + 1))
    else
        echo "ok: nandkit $* -> $status: $(head -n 1 <<<"$out")"
    fi
}

# A missing MTD device is named, not taken for an image file.
expect 2 "cannot open /dev/mtd_nandkit_missing" -- info /dev/mtd_nandkit_missing
# The device describes itself: geometry options are refused.
expect 2 "describes itself" -- info /dev/mtd_nandkit_missing --chip K9F1G08U0A
expect 2 "describes itself" -- badblocks /dev/mtd_nandkit_missing --geometry 2048,64,64
# The mode option is checked.
expect 2 "unknown --mtd-ecc 'hardware'" -- info /dev/mtd_nandkit_missing --mtd-ecc hardware
echo "$((4 - failures)) passed, $failures failed"
[[ $failures -eq 0 ]]

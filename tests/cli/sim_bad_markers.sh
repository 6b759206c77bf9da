#!/bin/bash
# sim create --bad-blocks / --bad-blocks-random writes the factory-bad
# blocks, markers included, into the image itself (the erased blocks around
# them stay holes): a copy of the image without its sidecar shows the same
# bad blocks, as sim --help promises.
#
# usage: bash tests/cli/sim_bad_markers.sh NANDKIT_BINARY
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
G="--geometry 2048,64,64,64"
cd "$TMP" || exit 1
for how in "--bad-blocks-random 5" "--bad-blocks 7,33"; do
    rm -f s.img s.img.nksim copy.img
    "$NK" sim create s.img $G $how > /dev/null || fail "sim create $how"
    "$NK" badblocks s.img $G 2> /dev/null | grep "^bad block" > with-sidecar
    cp --sparse=always s.img copy.img
    "$NK" badblocks copy.img $G 2> /dev/null | grep "^bad block" > copy
    [ "$(wc -l < with-sidecar)" = "$(echo "$how" | grep -q random && echo 5 || echo 2)" ] ||
        fail "sim create $how: $(wc -l < with-sidecar) bad blocks"
    cmp -s with-sidecar copy || fail "sim create $how: a copy without the sidecar shows other bad blocks: $(cat copy)"
    used=$(($(stat -c %b s.img) * $(stat -c %B s.img)))
    [ "$used" -lt $((64 * 64 * 2112 / 2)) ] || fail "sim create $how: the image is not sparse ($used bytes used)"
done
nk_test_end "sim bad marker tests passed"

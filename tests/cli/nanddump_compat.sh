#!/bin/bash
# read and write as mtd-utils users expect them on an image file: -l 0 reads
# to the end (nanddump); with --bb=padbad or dumpbad a range past the end is
# read to the end, not refused (nanddump clamps its end address to the
# device); write - programs standard input (nandwrite); a FIFO as INPUT is
# refused at once, never waited on; a device that is not MTD says so.
#
# usage: bash tests/cli/nanddump_compat.sh NANDKIT_BINARY
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
cd "$TMP" || exit 1
G="--geometry 2048,64,64,8"
BLOCK=$((2048 * 64))
"$NK" sim create img $G --bad-blocks 7 > /dev/null || fail "sim create"

"$NK" read img $G -s $((6 * BLOCK)) -l 0 -q -f zero-len.bin || fail "read -l 0"
[ "$(stat -c %s zero-len.bin)" = $BLOCK ] || fail "read -l 0 from block 6: $(stat -c %s zero-len.bin) bytes, not the one good block left"
for bb in padbad dumpbad; do
    "$NK" read img $G -s $((6 * BLOCK)) -l $((4 * BLOCK)) --bb=$bb --noecc -q -f past.bin 2> err ||
        fail "read --bb=$bb past the end: $(cat err)"
    [ "$(stat -c %s past.bin)" = $((2 * BLOCK)) ] || fail "read --bb=$bb past the end: $(stat -c %s past.bin) bytes, not 2 blocks"
done

head -c 8192 /dev/urandom > in.bin
cat in.bin | "$NK" write img - $G -s $BLOCK -q 2> err || fail "write -: $(cat err)"
"$NK" read img $G -s $BLOCK -l 8192 -q -f back.bin || fail "read back"
cmp -s in.bin back.bin || fail "write - did not program standard input"

mkfifo fifo
timeout 20 "$NK" write img fifo $G -s $((2 * BLOCK)) -q > /dev/null 2> err
rc=$?
[ "$rc" = 124 ] && fail "write of a FIFO hung"
[ "$rc" = 2 ] || fail "write of a FIFO: exit $rc, expected 2"
grep -q "INPUT 'fifo' is not a regular file (give - to read standard input)" err || fail "write of a FIFO: $(cat err)"

"$NK" read /dev/null $G -q -f x.bin > /dev/null 2> err
rc=$?
[ "$rc" = 2 ] || fail "read of /dev/null: exit $rc, expected 2"
grep -q "/dev/null is a character device, not an MTD one" err || fail "read of /dev/null: $(cat err)"
nk_test_end "nanddump compatibility tests passed"

#!/bin/bash
# Sparse stays sparse: writing the bad-block tables into the last blocks of
# a fresh (empty) image leaves the blocks in between as holes, not 0xFF
# bytes, and they read back as erased; the tables are found on the next
# run. First on a 553 MB chip, then (once that is sparse) on a 72 GB one.
#
# usage: bash tests/cli/sparse_images.sh NANDKIT_BINARY
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
cd "$TMP" || exit 1

# bbt_write_keeps_image_sparse GEOMETRY MAX_ALLOCATED_BYTES MIDDLE_PAGE
bbt_write_keeps_image_sparse() {
    local g="--geometry $1" max=$2 page=$3
    rm -f a.img a.img.nksim
    "$NK" sim create a.img $g > /dev/null || { fail "sim create $1"; return 1; }
    "$NK" badblocks a.img $g --write-bbt > out 2> err || { fail "badblocks $1: $(cat err)"; return 1; }
    local apparent allocated
    apparent=$(stat -c %s a.img)
    allocated=$(($(stat -c %b a.img) * $(stat -c %B a.img)))
    [ "$allocated" -le "$max" ] ||
        { fail "$1: the tables made the image dense: $allocated bytes allocated of $apparent"; return 1; }
    "$NK" badblocks a.img $g > out 2> err || fail "badblocks again $1: $(cat err)"
    grep -q "source       table on flash" out || fail "$1: tables not found again: $(cat out)"
    "$NK" dump a.img $g --page "$page" > out 2> err || fail "dump $1: $(cat err)"
    grep -q "^000000  ff ff ff ff" out || fail "$1: page $page in the hole does not read erased: $(head -4 out)"
    return 0
}

# 2048+64 x 64 x 4096: 553 MB apparent; the tables need 2 blocks (270 KB).
if bbt_write_keeps_image_sparse 2048,64,64,4096 $((16 << 20)) 100000; then
    # 4096+224 x 256 x 65536: 72.5 GB apparent.
    bbt_write_keeps_image_sparse 4096,224,256,65536 $((64 << 20)) 300000
fi

nk_test_end "sparse_images: all checks passed"

#!/bin/bash
# Undecodable tags are never silent zeros: in the linux layout the tags sit
# outside the data ECC; with two bits flipped in the tags of one data chunk
# the mount cannot tell whose chunk it was. cat, ls, extract and fsck then
# exit non-zero, name the file that may have lost data, and never hand out
# zeros in place of the lost chunk.
#
# usage: bash tests/cli/fs_damaged_tags.sh NANDKIT_BINARY [FIXTURES_DIR]
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"

mkdir -p "$TMP/src/dir"
python3 -c "import sys; sys.stdout.buffer.write(bytes((i * 7 + 1) % 251 + 1 for i in range(3 * 2048 + 100)))" \
    > "$TMP/src/dir/big"
echo small > "$TMP/src/small"
img="$TMP/img"
G="--geometry 2048,64,64"
"$NK" mkimage "$TMP/src" "$img" --geometry 2048,64,64,16 --layout linux > /dev/null || exit 1
"$NK" ls -R --json "$img" $G > "$TMP/ls.json" || exit 1
big_id=$(python3 -c "import json,sys; print([e['obj_id'] for e in json.load(open(sys.argv[1])) if e['path'] == '/dir/big'][0])" "$TMP/ls.json")
# Flip two bits of the object id in the tags of chunk 2 of /dir/big.
python3 - "$img" "$big_id" <<'PY' || exit 1
import struct, sys
path, obj = sys.argv[1], int(sys.argv[2])
data = bytearray(open(path, "rb").read())
for off in range(0, len(data), 2112):
    seq, oid, chunk, n = struct.unpack_from("<4I", data, off + 2048 + 2)
    if seq != 0xFFFFFFFF and oid == obj and chunk == 2:
        data[off + 2048 + 2 + 4] ^= 0x01
        data[off + 2048 + 2 + 5] ^= 0x10
        open(path, "wb").write(data)
        sys.exit(0)
sys.exit("chunk 2 of object %d not found" % obj)
PY

"$NK" cat "$img" /dir/big $G > "$TMP/out" 2> "$TMP/err"
[ $? != 0 ] || fail "cat of the damaged file exits 0"
grep -q "/dir/big" "$TMP/err" || fail "cat does not name /dir/big: $(cat "$TMP/err")"
python3 - "$TMP/out" "$TMP/src/dir/big" <<'PY' || fail "cat printed bytes that are not the file's"
import sys
got, want = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
assert len(got) < len(want) and want.startswith(got), (len(got), len(want))
PY

"$NK" cat "$img" /small $G > "$TMP/out" 2> "$TMP/err"
[ $? != 0 ] || fail "cat on a damaged image exits 0"
[ "$(cat "$TMP/out")" = small ] || fail "cat /small printed $(cat "$TMP/out")"
grep -q "could not be decoded" "$TMP/err" || fail "cat /small does not say the image is damaged"

"$NK" ls -R "$img" $G > "$TMP/out" 2> "$TMP/err"
[ $? != 0 ] || fail "ls -R of a damaged image exits 0"
grep -q "/dir/big: may have lost data" "$TMP/err" || fail "ls does not name /dir/big: $(cat "$TMP/err")"
grep -q "small: may have lost" "$TMP/err" && fail "ls names /small, which is complete"

"$NK" extract "$img" "$TMP/x" $G > /dev/null 2> "$TMP/err"
[ $? != 0 ] || fail "extract of a damaged image exits 0"
grep -q "/dir/big" "$TMP/err" || fail "extract does not name /dir/big: $(cat "$TMP/err")"

"$NK" fsck "$img" $G > "$TMP/out" 2> "$TMP/err"
[ $? != 0 ] || fail "fsck of a damaged image exits 0"
grep -q "^at risk: /dir/big$" "$TMP/out" || fail "fsck does not name /dir/big by path: $(cat "$TMP/out")"
nk_test_end "damaged tags: ok"

#!/bin/bash
# cat of a file with one unreadable chunk writes every byte before that
# chunk, then stops with exit 1 and an error naming the byte offset: two
# flipped bits in one 256-byte Hamming step of the file's second chunk, on
# the linux layout (2048-byte chunks).
#
# usage: bash tests/cli/cat_partial.sh NANDKIT_BINARY
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
G="--geometry 2048,64,64,64"
mkdir "$TMP/src"
python3 -c "import sys; sys.stdout.buffer.write(b'A' * 2048 + b'B' * 2048 + b'C' * 1000)" > "$TMP/src/f"
"$NK" mkimage "$TMP/src" "$TMP/fs.img" $G --no-progress > /dev/null 2>&1 || fail "mkimage"
python3 - "$TMP/fs.img" <<'PY' || fail "the second chunk is not in the image"
import sys
path = sys.argv[1]
d = bytearray(open(path, "rb").read())
i = d.find(b"B" * 2048)
assert i >= 0 and i % (2048 + 64) == 0
d[i + 10] ^= 0x01  # two flips in the first 256-byte step: uncorrectable
d[i + 20] ^= 0x02
open(path, "wb").write(d)
PY
"$NK" cat "$TMP/fs.img" /f $G > "$TMP/out" 2> "$TMP/err"
rc=$?
[ "$rc" = 1 ] || fail "cat of a file with an unreadable chunk: exit $rc, expected 1"
python3 -c "import sys; sys.stdout.buffer.write(b'A' * 2048)" | cmp -s - "$TMP/out" ||
    fail "cat did not write exactly the 2048 readable bytes before the bad chunk ($(wc -c < "$TMP/out") bytes)"
grep -q "/f: read failed at byte 2048" "$TMP/err" || fail "cat error: $(cat "$TMP/err")"
nk_test_end "cat partial read tests passed"

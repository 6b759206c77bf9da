#!/bin/bash
# A bad-block table larger than one block is refused with one line naming
# the geometry (exit 2), before anything is written to the image; one that
# spans several pages of its block works and stays the same run after run.
#
# usage: bash tests/cli/bbt_geometry.sh NANDKIT_BINARY [FIXTURES_DIR]
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"

: > "$TMP/one.img"
"$NK" badblocks "$TMP/one.img" --geometry 512,16,1,4096 > "$TMP/out" 2> "$TMP/err"
code=$?
[ $code = 2 ] || fail "512,16,1,4096: exit $code, expected 2"
[ "$(wc -l < "$TMP/err")" = 1 ] || fail "512,16,1,4096: not one line: $(cat "$TMP/err")"
grep -q "geometry 512+16 x 1 pages x 4096 blocks: the 1024-byte bad-block table needs 2 pages" \
    "$TMP/err" || fail "512,16,1,4096: the line does not name the geometry and why: $(cat "$TMP/err")"
[ ! -s "$TMP/one.img" ] || fail "512,16,1,4096: the image was written"

: > "$TMP/two.img"
for run in 1 2 3; do
    mark=""
    [ $run = 1 ] && mark="--mark 4000 --write-bbt" # a block in the table's second page
    "$NK" badblocks "$TMP/two.img" --geometry 512,16,2,4096 $mark --json > "$TMP/run$run.json" \
        2> "$TMP/err" || fail "512,16,2,4096 run $run: exit $? ($(cat "$TMP/err"))"
done
python3 - "$TMP" <<'PY' || fail "512,16,2,4096: the table changes between runs or is wrong"
import json, sys
runs = [json.load(open("%s/run%d.json" % (sys.argv[1], r))) for r in (1, 2, 3)]
for r in runs:
    assert r["bad"] == [{"block": 4000, "kind": "worn"}], r
    assert (r["main_block"], r["mirror_block"]) == (4095, 4094), r
for r in runs[1:]:
    assert not r["scanned"] and not r["main_written"] and not r["mirror_written"], r
    assert r["main_version"] == r["mirror_version"] == runs[0]["main_version"], r
PY
nk_test_end "table geometry: ok"

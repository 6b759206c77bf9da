#!/bin/bash
# Times before 1970 survive mkimage, ls --json and extract: a file dated
# 1960-05-30 (mtime -302486400) comes back with that mtime in every layout.
#
# usage: bash tests/cli/fs_old_times.sh NANDKIT_BINARY [FIXTURES_DIR]
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"

mkdir -p "$TMP/src/dir"
echo old > "$TMP/src/dir/old.txt"
touch -d @-302486400 "$TMP/src/dir/old.txt"
touch -d @-1000 "$TMP/src/dir"
[ "$(stat -c %Y "$TMP/src/dir/old.txt")" = -302486400 ] || { echo "host cannot date a file before 1970"; exit 1; }
for layout in linux mkyaffs2 inband; do
    img="$TMP/$layout.img"
    "$NK" mkimage "$TMP/src" "$img" --geometry 2048,64,64,64 --layout "$layout" > /dev/null ||
        fail "mkimage --layout $layout"
    "$NK" ls -R --json "$img" --geometry 2048,64,64 --layout "$layout" > "$TMP/ls.json" ||
        fail "ls --layout $layout"
    python3 - "$TMP/ls.json" <<'PY' || fail "ls --json --layout $layout shows the wrong mtime"
import json, sys
entries = {e["path"]: e for e in json.load(open(sys.argv[1]))}
assert entries["/dir/old.txt"]["mtime"] == -302486400, entries["/dir/old.txt"]
assert entries["/dir"]["mtime"] == -1000, entries["/dir"]
PY
    rm -rf "$TMP/out"
    "$NK" extract "$img" "$TMP/out" --geometry 2048,64,64 --layout "$layout" > /dev/null ||
        fail "extract --layout $layout"
    got=$(stat -c %Y "$TMP/out/dir/old.txt" 2>/dev/null)
    [ "$got" = -302486400 ] || fail "extract --layout $layout: mtime $got, expected -302486400"
done
nk_test_end "pre-1970 times: ok"

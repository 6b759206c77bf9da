#!/bin/bash
# The commands that change an image stamp the host's time: mkdir, put and
# mv leave times of now (not 1970) on what they create and on the
# directories whose entries they change; put keeps the host file's mtime
# (its ctime, which ls does not show, is the time of the put:
# tests/test_fs_clock.c checks every rule).
#
# usage: bash tests/cli/fs_host_times.sh NANDKIT_BINARY [FIXTURES_DIR]
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"

G="--geometry 2048,64,64,32"
IMG="$TMP/fs.img"
mkdir -p "$TMP/src"
"$NK" mkimage "$TMP/src" "$IMG" $G --no-progress > /dev/null || { echo "FAIL: mkimage"; exit 1; }
echo data > "$TMP/host"
touch -d @1000000000 "$TMP/host"
before=$(date +%s)
"$NK" mkdir "$IMG" /d $G || fail "mkdir"
"$NK" put "$IMG" "$TMP/host" /d/f $G || fail "put"
"$NK" mkdir "$IMG" /e $G || fail "mkdir /e"
"$NK" mv "$IMG" /d/f /e/g $G || fail "mv"
after=$(date +%s)
"$NK" ls -R --json "$IMG" $G > "$TMP/ls.json" || fail "ls"
python3 - "$TMP/ls.json" "$before" "$after" <<'PY' || fail "times are not the host's"
import json, sys
t = {e["path"]: e for e in json.load(open(sys.argv[1]))}
lo, hi = int(sys.argv[2]), int(sys.argv[3])
def now(v):
    return lo <= v <= hi
for p in ("/d", "/e"):
    assert now(t[p]["mtime"]), (p, t[p])
assert t["/e/g"]["mtime"] == 1000000000, t["/e/g"]
assert t["/lost+found"]["mtime"] == 0, t["/lost+found"]  # untouched: no header
PY
nk_test_end "ok: mkdir, put and mv stamp the host's time"

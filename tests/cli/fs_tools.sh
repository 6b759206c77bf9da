#!/bin/bash
# The file-system commands on the YAFFS2 fixtures: ls (text, -R, --json), cat,
# extract (tree, modes, times, symlinks, hard links), fsck (clean and
# corrupted), dump's tag decoding, and one-line errors with exit status 2 for
# truncated images and wrong geometry or layout.
#
# usage: bash tests/cli/fs_tools.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
FIX=$2/yaffs2

G2K="--geometry 2048,64,64"
xz -dc "$FIX/linux-2k-nockpt.img.xz" > "$TMP/linux.img" || exit 1
xz -dc "$FIX/mkyaffs2-2k.img.xz" > "$TMP/mk.img" || exit 1
MAN="$FIX/linux-2k-nockpt.img.json"
MKMAN="$FIX/mkyaffs2-2k.img.json"

# expect_status CODE ONE_LINE_STDERR(0/1) -- command...
expect_status() {
    local want=$1 oneline=$2
    shift 3
    "$@" > "$TMP/out" 2> "$TMP/err"
    local got=$?
    [ "$got" = "$want" ] || fail "exit $got, expected $want: $* ($(head -c 300 "$TMP/err"))"
    if [ "$oneline" = 1 ]; then
        [ "$(wc -l < "$TMP/err")" = 1 ] || fail "expected one error line from: $* (got: $(cat "$TMP/err"))"
        grep -q "^nandkit: " "$TMP/err" || fail "error does not start with 'nandkit: ': $*"
    fi
}

# ----- ls --------------------------------------------------------------------------------
expect_status 0 0 -- "$NK" ls "$TMP/linux.img" $G2K
for name in data etc home lost+found; do
    grep -q " $name\$" "$TMP/out" || fail "ls / does not list $name"
done
expect_status 0 0 -- "$NK" ls -R --json "$TMP/linux.img" $G2K
python3 - "$TMP/out" "$MAN" <<'PY' || fail "ls -R --json disagrees with the manifest"
import json, sys
got = {e["path"]: e for e in json.load(open(sys.argv[1]))}
want = {e["path"]: e for e in json.load(open(sys.argv[2]))["tree"] if e["path"] != "/"}
assert set(got) == set(want), (set(got) ^ set(want))
for p, w in want.items():
    g = got[p]
    assert g["type"] == w["type"], p
    assert g["obj_id"] == w["obj_id"], p
    assert int(g["mode"], 8) == int(w["mode"], 8), p
    assert (g["uid"], g["gid"]) == (w["uid"], w["gid"]), p
    if w["mtime"] is not None:
        assert g["mtime"] == w["mtime"], p
    if w["size"] is not None:
        assert g["size"] == w["size"], p
    if w["type"] == "symlink":
        assert g["link_target"] == w["link_target"], p
    if w["type"] == "hardlink":
        assert g["hardlink_target_id"] == w["equiv_obj_id"], p
PY
expect_status 0 0 -- "$NK" ls "$TMP/mk.img" /bin --geometry 2048,64,64 --layout mkyaffs2
grep -q "cat -> busybox" "$TMP/out" || fail "ls /bin does not show the symlink target"
expect_status 4 1 -- "$NK" ls "$TMP/linux.img" /no/such/dir $G2K

# ----- cat ---------------------------------------------------------------------------------
read -r CATPATH CATSHA < <(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["tree"]
e = max((e for e in t if e["type"] == "file"), key=lambda e: e["size"])
print(e["path"], e["sha256"])' "$MAN")
"$NK" cat "$TMP/linux.img" "$CATPATH" $G2K > "$TMP/cat.out" || fail "cat $CATPATH failed"
[ "$(sha256sum < "$TMP/cat.out" | cut -d' ' -f1)" = "$CATSHA" ] || fail "cat $CATPATH: wrong content"
expect_status 2 1 -- "$NK" cat "$TMP/linux.img" /etc $G2K

# ----- extract -----------------------------------------------------------------------------
expect_status 0 0 -- "$NK" extract "$TMP/mk.img" "$TMP/x" --geometry 2048,64,64 --layout mkyaffs2
python3 - "$TMP/x" "$MKMAN" <<'PY' || fail "extract disagrees with the manifest"
import json, os, stat, sys, hashlib
root, man = sys.argv[1], json.load(open(sys.argv[2]))
inodes = {}
for e in man["tree"]:
    if e["path"] == "/":
        continue
    host = root + e["path"]
    st = os.lstat(host)
    t = e["type"]
    if t == "dir":
        assert stat.S_ISDIR(st.st_mode), host
    elif t == "symlink":
        assert os.readlink(host) == e["link_target"], host
    else:
        assert stat.S_ISREG(st.st_mode), host
        assert hashlib.sha256(open(host, "rb").read()).hexdigest() == e["sha256"], host
        group = e.get("hardlink_group")
        if group is not None:
            inodes.setdefault(group, set()).add(st.st_ino)
    if t != "symlink":
        assert stat.S_IMODE(st.st_mode) == int(e["perm"], 8), (host, oct(st.st_mode))
    if e["mtime"] is not None:
        assert int(st.st_mtime) == e["mtime"], host
for group, ino in inodes.items():
    assert len(ino) == 1, ("hard links not linked", group)
assert len(inodes) == len(man["hardlink_groups"])
PY

# ----- fsck --------------------------------------------------------------------------------
expect_status 0 0 -- "$NK" fsck "$TMP/linux.img" $G2K
grep -q ": 0 problems" "$TMP/out" || fail "fsck of a clean image does not say 0 problems"
cp "$TMP/mk.img" "$TMP/bad.img"
# Two flipped bits in the tags of block 0, page 1 (mkyaffs2: tags at OOB 0).
python3 - "$TMP/bad.img" <<'PY'
import sys
f = open(sys.argv[1], "r+b")
f.seek(1 * 2112 + 2048 + 4)
b = f.read(1)[0]
f.seek(1 * 2112 + 2048 + 4)
f.write(bytes([b ^ 0x03]))
PY
expect_status 1 0 -- "$NK" fsck "$TMP/bad.img" --geometry 2048,64,64 --layout mkyaffs2
grep -q "tags-ecc at block 0 page 1" "$TMP/out" || fail "fsck does not report the bad tags"
grep -q ": [1-9][0-9]* problem" "$TMP/out" || fail "fsck summary does not count the problem"

# ----- dump decodes tags ---------------------------------------------------------------------
expect_status 0 0 -- "$NK" dump "$TMP/linux.img" --page 8 $G2K
grep -q "yaffs2 (--layout linux)" "$TMP/out" || fail "dump shows no YAFFS2 section"
grep -q "tags: seq 0x1100 obj 620 chunk 0" "$TMP/out" || fail "dump does not decode the tags"
grep -q "object header (extra tags): file, parent 262, size 5404980" "$TMP/out" ||
    fail "dump does not decode the extra header fields"

# ----- bad input: one line, exit 2 -------------------------------------------------------------
head -c 1000000 "$TMP/linux.img" > "$TMP/cut.img"
expect_status 2 1 -- "$NK" ls "$TMP/cut.img" $G2K
# an image that ends inside a block is read (pages past its end are erased,
# docs/image-format.md), with a warning that says where it ends
head -c $((2112 * 100)) "$TMP/linux.img" > "$TMP/cut2.img"
expect_status 0 0 -- "$NK" ls "$TMP/cut2.img" $G2K
grep -q "it ends inside block 1" "$TMP/err" || fail "an image ending inside a block is not named as such"
expect_status 2 1 -- "$NK" ls "$TMP/linux.img" --geometry 4096,128,64
grep -q "geometry" "$TMP/err" || fail "wrong geometry is not named"
expect_status 2 1 -- "$NK" ls "$TMP/linux.img" $G2K --layout mkyaffs2
grep -q "layout" "$TMP/err" || fail "wrong layout (mkyaffs2) is not named"
expect_status 2 1 -- "$NK" ls "$TMP/linux.img" $G2K --layout inband
grep -q "layout" "$TMP/err" || fail "wrong layout (inband) is not named"
expect_status 2 1 -- "$NK" fsck "$TMP/mk.img" $G2K --layout linux
grep -q "mkyaffs2" "$TMP/err" || fail "a markerless image read as linux does not suggest mkyaffs2"
expect_status 4 0 -- "$NK" cat "$TMP/linux.img" /x
grep -q "detected 2048+64-byte pages" "$TMP/err" || fail "cat without geometry: $(cat "$TMP/err")"
expect_status 4 1 -- "$NK" extract "$TMP/nonexistent.img" "$TMP/y" $G2K
expect_status 2 1 -- "$NK" ls "$TMP/linux.img" $G2K --layout yaffs1

# ----- help ------------------------------------------------------------------------------------
for cmd in ls cat extract fsck; do
    expect_status 0 0 -- "$NK" $cmd --help
    grep -q "usage: nandkit $cmd" "$TMP/out" || fail "$cmd --help has no usage line"
    grep -q -- "--layout" "$TMP/out" || fail "$cmd --help does not mention --layout"
done
"$NK" --help | grep -q "^  fsck " || fail "nandkit --help does not list fsck"

nk_test_end "fs tools: all checks passed"

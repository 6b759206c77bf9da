#!/bin/bash
# Extended attributes through the image commands: mkimage takes them from
# the host tree (files, directories; a hard link shares its file's), ls
# --json shows them, extract sets them again, mkimage --from repacks them
# into another layout, a write (chmod, mv, put of another file) keeps them,
# and a list too big for a header chunk is refused by name with the old
# image left as it was.
#
# usage: bash tests/cli/xattrs.sh NANDKIT_BINARY [FIXTURES_DIR]
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
nk_test_need getfattr test
G="--geometry 2048,64,64,48"

SRC=$TMP/src
mkdir -p "$SRC/d/e"
echo data > "$SRC/f"
setfattr -n user.probe -v 1 "$SRC/f" 2> /dev/null || {
    echo "FAIL: $TMP's file system keeps no user.* extended attributes: set TMPDIR to one that does"
    exit 1
}
setfattr -x user.probe "$SRC/f"
ln "$SRC/f" "$SRC/d/hl"
ln -s f "$SRC/s"
head -c 5000 /dev/urandom > "$SRC/d/e/big"
setfattr -n user.color -v blue "$SRC/f"
setfattr -n user.bin -v 0x00ff00ff "$SRC/f"
setfattr -n user.empty "$SRC/f"
setfattr -n user.dir -v "a directory" "$SRC/d"
setfattr -n user.deep -v 0x"$(head -c 600 /dev/urandom | od -v -An -tx1 | tr -d ' \n')" "$SRC/d/e/big"

# values in hex, as ls --json and getfattr -e hex give them
xattrs_of() { (cd "$1" && find . -print0 | sort -z | xargs -0 getfattr -h -d -m - -e hex 2>&1); }
xattrs_of "$SRC" > "$TMP/want"
grep -q "user.deep=0x" "$TMP/want" || fail "the host tree holds no extended attributes"

json_xattrs() { # IMAGE [options]: "path name=hex" lines from ls -R --json
    "$NK" ls -R --json "$@" 2> /dev/null | python3 -c '
import json, sys
for o in json.load(sys.stdin):
    for k, v in sorted(o.get("xattrs", {}).items()):
        print(o["path"], k + "=" + v)'
}

for layout in linux mkyaffs2 inband; do
    img=$TMP/$layout.img
    "$NK" mkimage "$SRC" "$img" $G --layout $layout --no-progress > /dev/null 2>&1 ||
        fail "$layout: mkimage"
    json_xattrs "$img" $G --layout $layout > "$TMP/json.$layout"
    grep -qx "/f user.bin=00ff00ff" "$TMP/json.$layout" || fail "$layout: ls --json: /f user.bin"
    grep -qx "/f user.empty=" "$TMP/json.$layout" || fail "$layout: ls --json: an empty value"
    grep -qx "/d/hl user.color=$(printf blue | od -v -An -tx1 | tr -d ' \n')" "$TMP/json.$layout" ||
        fail "$layout: ls --json: a hard link does not show its file's attributes"
    grep -q "^/s " "$TMP/json.$layout" && fail "$layout: the symlink got attributes"
    rm -rf "$TMP/out.$layout"
    "$NK" extract "$img" "$TMP/out.$layout" $G --layout $layout > /dev/null 2>&1 ||
        fail "$layout: extract"
    xattrs_of "$TMP/out.$layout" > "$TMP/got"
    diff "$TMP/want" "$TMP/got" > "$TMP/diff" || fail "$layout: extract: $(head -4 "$TMP/diff")"
done

# A repack keeps them, into another layout too.
"$NK" mkimage --from "$TMP/mkyaffs2.img" --from-layout mkyaffs2 "$TMP/repack.img" $G \
    --layout linux --no-progress > /dev/null 2>&1 || fail "mkimage --from"
json_xattrs "$TMP/repack.img" $G > "$TMP/json.repack"
diff "$TMP/json.linux" "$TMP/json.repack" > "$TMP/diff" ||
    fail "mkimage --from lost attributes: $(head -4 "$TMP/diff")"

# Writes keep them: each rewrites the headers it changes.
img=$TMP/linux.img
"$NK" chmod "$img" 600 /f $G > /dev/null 2>&1 || fail "chmod"
"$NK" mv "$img" /d /moved $G > /dev/null 2>&1 || fail "mv"
"$NK" put "$img" "$SRC/d/e/big" /other $G > /dev/null 2>&1 || fail "put"
json_xattrs "$img" $G | sed 's|^/moved|/d|' | grep -v "^/other " | sort > "$TMP/json.after"
diff <(sort "$TMP/json.linux") "$TMP/json.after" > "$TMP/diff" ||
    fail "chmod, mv and put lost attributes: $(head -4 "$TMP/diff")"
"$NK" fsck "$img" $G > /dev/null 2>&1 || fail "fsck after the writes"

# Too much for a header chunk (2048 - 512 bytes): refused, naming the file;
# the old image stays.
setfattr -n user.huge -v 0x"$(head -c 1600 /dev/zero | od -v -An -tx1 | tr -d ' \n')" "$SRC/d/e/big" ||
    fail "setfattr of 1 600 bytes"
before=$(md5sum < "$TMP/inband.img")
"$NK" mkimage "$SRC" "$TMP/inband.img" $G --layout inband --no-progress > /dev/null 2> "$TMP/err" &&
    fail "a list past the header chunk was built"
grep -q "big.*extended attributes" "$TMP/err" || fail "the refusal does not name the file: $(cat "$TMP/err")"
[ "$(md5sum < "$TMP/inband.img")" = "$before" ] || fail "a refused build changed the image"

nk_test_end "ok: extended attributes through mkimage, ls, extract and writes"

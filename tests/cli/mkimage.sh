#!/bin/bash
# nandkit mkimage: a host tree with every kind of entry round-trips through
# mkimage and extract in every layout (contents, types, modes, owners, mtimes,
# symlink targets, hard links, FIFOs and device nodes); fsck finds nothing;
# ls --json shows what was built; the same tree gives the same image; every
# fixture's tree, extracted and built again with its own layout and geometry,
# extracts to the same tree; bad input exits 2 with one line and touches
# nothing.
#
# usage: bash tests/cli/mkimage.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
FIX=$2/yaffs2
ROOT=0
[ "$(id -u)" = 0 ] && ROOT=1

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

# compare_trees A B: everything extract promises to keep, below the roots.
compare_trees() {
    python3 - "$1" "$2" "$ROOT" <<'PY'
import hashlib, os, stat, sys
a, b, root = sys.argv[1], sys.argv[2], sys.argv[3] == "1"

def walk(top):
    out = {}
    for d, dirs, files in os.walk(top):
        for name in dirs + files:
            p = os.path.join(d, name)
            out[os.path.relpath(p, top)] = os.lstat(p)
    return out

def groups(top, entries):
    by_ino = {}
    for rel, st in entries.items():
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            by_ino.setdefault(st.st_ino, set()).add(rel)
    return sorted(sorted(g) for g in by_ino.values())

def sha(p):
    return hashlib.sha256(open(p, "rb").read()).hexdigest()

ea, eb = walk(a), walk(b)
# YAFFS2 always has a lost+found: an empty one extracted from a tree without it is fine.
if "lost+found" not in ea and "lost+found" in eb and not os.listdir(os.path.join(b, "lost+found")):
    del eb["lost+found"]
bad = []
if set(ea) != set(eb):
    bad.append("names differ: %s" % sorted(set(ea) ^ set(eb))[:10])
for rel in sorted(set(ea) & set(eb)):
    sa, sb = ea[rel], eb[rel]
    pa, pb = os.path.join(a, rel), os.path.join(b, rel)
    if stat.S_IFMT(sa.st_mode) != stat.S_IFMT(sb.st_mode):
        bad.append("%s: type %o vs %o" % (rel, sa.st_mode, sb.st_mode))
        continue
    if not stat.S_ISLNK(sa.st_mode) and stat.S_IMODE(sa.st_mode) != stat.S_IMODE(sb.st_mode):
        bad.append("%s: mode %o vs %o" % (rel, sa.st_mode, sb.st_mode))
    if int(sa.st_mtime) != int(sb.st_mtime):
        bad.append("%s: mtime %d vs %d" % (rel, sa.st_mtime, sb.st_mtime))
    if root and (sa.st_uid, sa.st_gid) != (sb.st_uid, sb.st_gid):
        bad.append("%s: owner %d:%d vs %d:%d" % (rel, sa.st_uid, sa.st_gid, sb.st_uid, sb.st_gid))
    if stat.S_ISREG(sa.st_mode):
        if sa.st_size != sb.st_size or sha(pa) != sha(pb):
            bad.append("%s: contents differ" % rel)
    elif stat.S_ISLNK(sa.st_mode):
        if os.readlink(pa) != os.readlink(pb):
            bad.append("%s: link target differs" % rel)
    elif stat.S_ISCHR(sa.st_mode) or stat.S_ISBLK(sa.st_mode):
        if sa.st_rdev != sb.st_rdev:
            bad.append("%s: rdev %x vs %x" % (rel, sa.st_rdev, sb.st_rdev))
if groups(a, ea) != groups(b, eb):
    bad.append("hard-link groups differ: %s vs %s" % (groups(a, ea), groups(b, eb)))
for line in bad[:20]:
    print("  " + line)
sys.exit(1 if bad else 0)
PY
}

# ----- a host tree with everything ------------------------------------------------------------
SRC=$TMP/src
mkdir -p "$SRC/a/b/c" "$SRC/empty" "$SRC/sticky" "$SRC/lost+found"
for size in 0 1 2047 2048 2049 4095 4096 4097 100000 1500000; do
    head -c $size /dev/urandom > "$SRC/a/size$size"
done
head -c 300000 /dev/urandom > "$SRC/a/b/c/deep"
echo "in lost+found" > "$SRC/lost+found/kept"
ln -s a/size1 "$SRC/relative"
ln -s /a/b/c/deep "$SRC/absolute"
ln -s ../nowhere "$SRC/a/dangling"
LONG_TARGET=$(printf 't%.0s' $(seq 1 158))
ln -s "/$LONG_TARGET" "$SRC/long-target" # 159 bytes
head -c 5000 /dev/urandom > "$SRC/a/linked"
ln "$SRC/a/linked" "$SRC/linked-too"
ln "$SRC/a/linked" "$SRC/a/b/linked-three"
mkfifo "$SRC/fifo"
[ $ROOT = 1 ] && mknod "$SRC/a/null" c 1 3 && mknod "$SRC/a/disk" b 8 17
printf 'caf\xc3\xa9' > "$SRC/caf$(printf '\xc3\xa9')-utf8"
LONG_NAME=$(printf 'n%.0s' $(seq 1 255))
echo long > "$SRC/a/$LONG_NAME"
chmod 0600 "$SRC/a/size1"
chmod 04755 "$SRC/a/size2048"
chmod 0444 "$SRC/a/size0"
chmod 01777 "$SRC/sticky"
chmod 0700 "$SRC/a/b"
[ $ROOT = 1 ] && chown 1234:5678 "$SRC/a/size2049" && chown -h 42:43 "$SRC/relative"
find "$SRC" -mindepth 1 -depth | while read -r p; do
    touch -h -d "2001-02-03 04:05:06" "$p"
done
touch -d "2038-01-19 03:14:08" "$SRC/a/size4096" # past 2^31
touch -h -d "1999-12-31 23:59:59" "$SRC/long-target"

# ----- round trips in every layout -------------------------------------------------------------
for spec in linux:2048,64,64,64 mkyaffs2:2048,64,64,64 inband:2048,64,64,64 linux:4096,128,64,32 \
    inband:4096,128,64,32; do
    layout=${spec%%:*}
    geometry=${spec#*:}
    img=$TMP/$layout-${geometry%%,*}.img
    expect_status 0 0 -- "$NK" mkimage "$SRC" "$img" --geometry "$geometry" --layout "$layout"
    grep -q "objects: " "$TMP/out" || fail "mkimage $spec prints no summary"
    [ -e "$img.nksim" ] && fail "mkimage $spec made a sidecar for a new image"
    # The image reads back with the geometry inferred from its size.
    short=${geometry%,*}
    expect_status 0 0 -- "$NK" extract "$img" "$TMP/x-$layout-${geometry%%,*}" \
        --geometry "$short" --layout "$layout"
    compare_trees "$SRC" "$TMP/x-$layout-${geometry%%,*}" || fail "round trip $spec differs"
    expect_status 0 0 -- "$NK" fsck "$img" --geometry "$short" --layout "$layout"
    grep -q ": 0 problems" "$TMP/out" || fail "fsck after mkimage $spec: $(cat "$TMP/out")"
done
[ -p "$TMP/x-linux-2048/fifo" ] || fail "the FIFO did not come back"
[ $ROOT = 1 ] && { [ -c "$TMP/x-linux-2048/a/null" ] || fail "the device node did not come back"; }

# ls --json shows the objects as built: ids from 256, hard links, specials.
expect_status 0 0 -- "$NK" ls -R --json "$TMP/linux-2048.img" --geometry 2048,64,64
python3 - "$TMP/out" "$ROOT" <<'PY' || fail "ls --json disagrees with the built tree"
import json, sys
entries = {e["path"]: e for e in json.load(open(sys.argv[1]))}
ids = sorted(e["obj_id"] for p, e in entries.items() if p != "/lost+found")
assert ids[0] == 256 and ids == list(range(256, 256 + len(ids))), ids[:5]
# The first name met in the walk (directories before later names, bytewise
# order) is the file; the others are YAFFS2 hard-link objects naming it.
first = entries["/a/b/linked-three"]
assert first["type"] == "file" and first["nlink"] == 3, first
for link in ("/a/linked", "/linked-too"):
    assert entries[link]["type"] == "hardlink", entries[link]
    assert entries[link]["hardlink_target_id"] == first["obj_id"]
assert entries["/sticky"]["mode"] == "041777", entries["/sticky"]["mode"]
assert entries["/a/size2048"]["mode"] == "0104755"
assert entries["/long-target"]["size"] == 159
assert entries["/a/size4096"]["mtime"] == 2147483648
assert entries["/fifo"]["type"] == "special" and entries["/fifo"]["mode"] == "010644", entries["/fifo"]
assert entries["/lost+found/kept"]["type"] == "file"
if sys.argv[2] == "1":
    assert entries["/a/size2049"]["uid"] == 1234 and entries["/a/size2049"]["gid"] == 5678
PY

# The same tree (same metadata: the builds above have already read every
# file, so atimes stay put now) gives the same image.
expect_status 0 0 -- "$NK" mkimage "$SRC" "$TMP/again1.img" --geometry 2048,64,64,64 --no-progress
expect_status 0 0 -- "$NK" mkimage "$SRC" "$TMP/again2.img" --geometry 2048,64,64,64 --no-progress
cmp -s "$TMP/again1.img" "$TMP/again2.img" || fail "two builds of one tree differ"

# A rebuild over an earlier, larger file system leaves nothing of it; --all-root.
cp "$TMP/again1.img" "$TMP/rebuilt.img"
expect_status 0 0 -- "$NK" mkimage "$SRC/a/b" "$TMP/rebuilt.img" --geometry 2048,64,64,64 --all-root
expect_status 0 0 -- "$NK" ls -R --json "$TMP/rebuilt.img" --geometry 2048,64,64
python3 - "$TMP/out" <<'PY' || fail "a rebuild shows the old tree, or --all-root was ignored"
import json, sys
entries = {e["path"]: e for e in json.load(open(sys.argv[1]))}
assert set(entries) == {"/c", "/c/deep", "/linked-three", "/lost+found"}, sorted(entries)
assert all(e["uid"] == 0 and e["gid"] == 0 for e in entries.values())
PY

# --blocks N: a new image of N blocks; on an existing one, blocks from N on are left alone.
expect_status 0 0 -- "$NK" mkimage "$SRC/a/b/c" "$TMP/n16.img" --geometry 2048,64,64 --blocks 16
expect_status 0 0 -- "$NK" extract "$TMP/n16.img" "$TMP/x-n16" --geometry 2048,64,64,16
compare_trees "$SRC/a/b/c" "$TMP/x-n16" || fail "--blocks 16 on a new image: tree differs"
[ "$(stat -c %s "$TMP/n16.img")" = $((16 * 135168)) ] ||
    fail "--blocks 16: the new image is $(stat -c %s "$TMP/n16.img") bytes, not 16 blocks"
"$NK" mkdir "$TMP/n16.img" /later --geometry 2048,64,64 > /dev/null 2>&1 ||
    fail "--blocks 16: mkdir on the new image read with --geometry 2048,64,64 failed"
cp "$TMP/linux-2048.img" "$TMP/part.img"
expect_status 0 0 -- "$NK" mkimage "$SRC/a/b/c" "$TMP/part.img" --geometry 2048,64,64,64 --blocks 40
cmp -s <(tail -c +$((40 * 135168 + 1)) "$TMP/part.img") \
    <(tail -c +$((40 * 135168 + 1)) "$TMP/linux-2048.img") || fail "--blocks 40 touched block 40 on"
cmp -s <(head -c $((40 * 135168)) "$TMP/part.img") \
    <(head -c $((40 * 135168)) "$TMP/linux-2048.img") && fail "--blocks 40 wrote nothing"

# A simulated chip with factory-bad blocks: they are skipped.
"$NK" sim create "$TMP/bad.img" --geometry 2048,64,64,64 --bad-blocks 1,3 > /dev/null ||
    fail "sim create"
expect_status 0 0 -- "$NK" mkimage "$SRC" "$TMP/bad.img" --geometry 2048,64,64,64
grep -q "2 bad skipped" "$TMP/out" || fail "mkimage does not skip factory-bad blocks: $(cat "$TMP/out")"
expect_status 0 0 -- "$NK" extract "$TMP/bad.img" "$TMP/x-bad" --geometry 2048,64,64,64
compare_trees "$SRC" "$TMP/x-bad" || fail "round trip over bad blocks differs"

# A power cut while building: exit 1 naming it; the image holds what the chip would and mounts.
expect_status 1 1 -- "$NK" mkimage "$SRC" "$TMP/cut.img" --geometry 2048,64,64,64 \
    --power-cut-after 300
grep -q "power cut at flash operation 300, as --power-cut-after asked" "$TMP/err" ||
    fail "a power cut is not named: $(cat "$TMP/err")"
expect_status 0 0 -- "$NK" ls -R "$TMP/cut.img" --geometry 2048,64,64,64

# ----- fixtures: extract, build again, extract: the same tree --------------------------------------
for man in "$FIX"/*.img.json; do
    name=$(basename "$man" .img.json)
    read -r layout geometry < <(python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
g = m["geometry"]
print(m["layout"]["name"], "%d,%d,%d,%d" % (g["page_size"], g["oob_size"], g["pages_per_block"], g["block_count"]))' "$man")
    xz -dc "$FIX/$name.img.xz" > "$TMP/fix.img" || { fail "xz $name"; continue; }
    expect_status 0 0 -- "$NK" extract "$TMP/fix.img" "$TMP/f1-$name" --geometry "$geometry" \
        --layout "$layout"
    expect_status 0 0 -- "$NK" mkimage "$TMP/f1-$name" "$TMP/re.img" --geometry "$geometry" \
        --layout "$layout"
    grep "^chunks:" "$TMP/out" | sed "s/^/  $name: /"
    expect_status 0 0 -- "$NK" extract "$TMP/re.img" "$TMP/f2-$name" --geometry "$geometry" \
        --layout "$layout"
    compare_trees "$TMP/f1-$name" "$TMP/f2-$name" || fail "fixture $name: rebuilt tree differs"
    expect_status 0 0 -- "$NK" fsck "$TMP/re.img" --geometry "$geometry" --layout "$layout"
    grep -q ": 0 problems" "$TMP/out" || fail "fsck of rebuilt $name: $(tail -3 "$TMP/out")"
    rm -rf "$TMP/fix.img" "$TMP/re.img" "$TMP/f1-$name" "$TMP/f2-$name"
done

# ----- bad input: one line, exit 2, nothing touched ------------------------------------------------
expect_status 4 1 -- "$NK" mkimage "$TMP/no-such-dir" "$TMP/n.img" --geometry 2048,64,64,16
grep -q "no-such-dir" "$TMP/err" || fail "a missing SRC_DIR is not named"
expect_status 2 1 -- "$NK" mkimage "$SRC/a/size1" "$TMP/n.img" --geometry 2048,64,64,16
grep -q "not a directory" "$TMP/err" || fail "a file as SRC_DIR is not called out"
mkdir -p "$TMP/toolong"
ln -s "/$LONG_TARGET/x" "$TMP/toolong/link" # 161 bytes
expect_status 2 1 -- "$NK" mkimage "$TMP/toolong" "$TMP/n.img" --geometry 2048,64,64,16
grep -q "toolong/link: a symlink target of 161 bytes" "$TMP/err" ||
    fail "a long symlink target is not named: $(cat "$TMP/err")"
[ -e "$TMP/n.img" ] && fail "a refused mkimage left an image behind"
# Too small: a new image is not left behind, an existing one is not changed.
expect_status 2 1 -- "$NK" mkimage "$SRC" "$TMP/n.img" --geometry 2048,64,64,8
grep -q "needs [0-9]* chunks .* but .* has 512 (8 good blocks of 8" "$TMP/err" ||
    fail "too small an image is not explained: $(cat "$TMP/err")"
[ -e "$TMP/n.img" ] && fail "a refused mkimage left a new image behind"
cp "$TMP/linux-2048.img" "$TMP/keep.img"
expect_status 2 1 -- "$NK" mkimage "$SRC" "$TMP/keep.img" --geometry 2048,64,64,64 --blocks 4
cmp -s "$TMP/keep.img" "$TMP/linux-2048.img" || fail "a refused mkimage changed the image"
expect_status 0 0 -- "$NK" mkimage "$SRC" "$TMP/sized.img" --geometry 2048,64,64
grep -q "^size: [0-9]* blocks, what the tree takes and 4 erased" "$TMP/out" ||
    fail "a new image without a size is not sized: $(cat "$TMP/out")"
mkdir -p "$TMP/lf" && touch "$TMP/lf/lost+found"
expect_status 2 1 -- "$NK" mkimage "$TMP/lf" "$TMP/n.img" --geometry 2048,64,64,16
grep -q "lost+found is not a directory" "$TMP/err" || fail "a file named lost+found is not explained"
# SRC_DIR given through a symlink is the directory it names.
ln -s "$SRC/a/b" "$TMP/via-link"
expect_status 0 0 -- "$NK" mkimage "$TMP/via-link" "$TMP/n.img" --geometry 2048,64,64,16
expect_status 0 0 -- "$NK" ls "$TMP/n.img" /c --geometry 2048,64,64
grep -q " deep$" "$TMP/out" || fail "mkimage through a symlinked SRC_DIR"
expect_status 2 1 -- "$NK" mkimage "$SRC" "$TMP/n.img" --geometry 2048,64,64,16 --layout yaffs1
expect_status 2 1 -- "$NK" mkimage "$SRC" "$TMP/n.img" --geometry 2048,64,64,16 --blocks 0
expect_status 2 1 -- "$NK" mkimage "$SRC" --geometry 2048,64,64,16
expect_status 0 0 -- "$NK" mkimage --help
grep -q "usage: nandkit mkimage SRC_DIR IMAGE" "$TMP/out" || fail "mkimage --help has no usage line"
"$NK" --help | grep -q "^  mkimage " || fail "nandkit --help does not list mkimage"

nk_test_end "mkimage: all checks passed"

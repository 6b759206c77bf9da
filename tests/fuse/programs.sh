#!/bin/bash
# Real programs on a mounted 128 MiB simulated image (K9F1G08U0A, the eCos
# library's chip): cp -a of a tree of thousands of files (hard links,
# symlinks, sparse files, 255-byte names, extended attributes) and diff -r
# and getfattr -d; a tar round trip;
# rsync -a --checksum twice (the second transfers nothing); git init,
# commit and fsck --full; sqlite3 with 10 000 rows in transactions and
# integrity_check, also after a remount; fio sequential and random writes
# with verify=crc32c and fsync; df before and after. Then crashes: the
# daemon killed with SIGKILL in the middle of sqlite3 and fio at several
# points, remounted: every file fsync'd before the kill reads back exactly,
# fio --verify_only finds every block fio had fsync'd, integrity_check is
# ok, fsck finds nothing. At the end the library's fsck,
# nandkit ls -R and nandkit extract agree with the mount.
#
# With NK_YAFFS2 (tests/interop's YAFFS2 Direct tool, built when CMake is
# given the YAFFS2 sources), YAFFS2 reads the final image too and agrees.
#
# usage: bash tests/fuse/programs.sh NANDKIT_BINARY [NK_YAFFS2]
# Needs /dev/fuse, fusermount3, rsync, git, sqlite3, fio
# (scripts/install-deps.sh fuse fuse-programs); exits 77 without /dev/fuse.
. "$(dirname "$0")/../cli/lib.sh"
nk_test_begin "$@"
YAFFS2=${2:-}
if [ ! -c /dev/fuse ]; then
    echo "skipped: no /dev/fuse on this machine, FUSE cannot mount"; exit 77
fi
for tool in fusermount3 rsync git sqlite3 fio getfattr; do
    command -v $tool > /dev/null || { echo "FAIL: $tool is missing (scripts/install-deps.sh fuse fuse-programs)"; exit 1; }
done
nk_test_mount_setup
G="--chip K9F1G08U0A"
IMG=$TMP/fs.img
mkdir -p "$TMP/empty"
"$NK" mkimage "$TMP/empty" "$IMG" $G --no-progress > /dev/null 2>&1 || { echo "FAIL: mkimage"; exit 1; }

fsck_clean() { # WHEN
    "$NK" fsck "$IMG" $G > "$TMP/fsck" 2> /dev/null || fail "fsck $1: $(grep -v '^blocks\|^objects\|^chunks' "$TMP/fsck" | head -3)"
}

# ----- a source tree: thousands of files, hard links, symlinks, sparse, long names
SRC=$TMP/src
python3 - "$SRC" <<'PY'
import os, random, sys
root = sys.argv[1]
rnd = random.Random(1)
for d in range(40):
    dp = os.path.join(root, "dir%02d" % d, "sub%d" % (d % 3))
    os.makedirs(dp)
    for f in range(75):
        size = rnd.choice([0, 1, 100, 2047, 2048, 2049, 5000, 30000])
        with open(os.path.join(dp, "file%03d.txt" % f), "wb") as fh:
            fh.write(rnd.randbytes(size))
    os.link(os.path.join(dp, "file000.txt"), os.path.join(dp, "hard-link"))
    os.symlink("file001.txt", os.path.join(dp, "sym-link"))
    os.symlink("/nowhere/%d" % d, os.path.join(dp, "dangling"))
long = os.path.join(root, "L" * 255)
open(long, "w").write("long name\n")
with open(os.path.join(root, "sparse.bin"), "wb") as fh:
    fh.seek(3 << 20)
    fh.write(b"end of a sparse file\n")
    fh.seek(1 << 20)
    fh.write(b"middle")
# Extended attributes (user.*: what a tree without privilege can hold) on
# every directory and every seventh file, one binary, one empty.
n = 0
for dp, dns, fns in os.walk(root):
    os.setxattr(dp, "user.dir", dp[len(root):].encode() or b"/")
    for f in sorted(fns):
        p = os.path.join(dp, f)
        n += 1
        if os.path.islink(p) or n % 7:
            continue
        os.setxattr(p, "user.mime_type", b"application/octet-stream")
        os.setxattr(p, "user.checksum", rnd.randbytes(32))
        os.setxattr(p, "user.empty", b"")
os.chmod(os.path.join(root, "dir00"), 0o750)
PY
files=$(find "$SRC" | wc -l)

nk_mount_fg || exit 1
df -B1 --output=size,used,avail "$MNT" | tail -1 > "$TMP/df.before"
read -r size used avail < "$TMP/df.before"
# Used at first: the blocks kept back for garbage collection (not available to writes).
[ "$size" -ge $((120 << 20)) ] && [ "$used" -lt $((4 << 20)) ] || fail "df before: $(cat "$TMP/df.before")"
say "cp -a of $files entries"
cp -a "$SRC" "$MNT/tree" 2> "$TMP/cp.err" || fail "cp -a: $(head -3 "$TMP/cp.err")"
diff -r --no-dereference "$SRC" "$MNT/tree" > "$TMP/diff" || fail "diff -r after cp -a: $(head -3 "$TMP/diff")"
python3 - "$SRC" "$MNT/tree" <<'PY' || fail "cp -a lost a mode, mtime or hard link"
import os, sys
a, b = sys.argv[1:]
for dp, dns, fns in os.walk(a):
    for n in dns + fns:
        p = os.path.join(dp, n)
        q = os.path.join(b, os.path.relpath(p, a))
        s, t = os.lstat(p), os.lstat(q)
        assert s.st_mode == t.st_mode, (q, oct(s.st_mode), oct(t.st_mode))
        if not os.path.islink(p):
            assert int(s.st_mtime) == int(t.st_mtime), (q, s.st_mtime, t.st_mtime)
        if not os.path.isdir(p):  # a directory's link count is 1 (docs/cli.md)
            assert s.st_nlink == t.st_nlink, (q, s.st_nlink, t.st_nlink)
h = os.path.join(b, "dir05/sub2")
assert os.lstat(h + "/hard-link").st_ino == os.lstat(h + "/file000.txt").st_ino
PY

# getfattr -d of the copy is the source's (paths relative and sorted, values in hex).
xattrs_of() { (cd "$1" && find . -print0 | sort -z | xargs -0 getfattr -h -d -m - -e hex 2>&1); }
xattrs_of "$SRC" > "$TMP/xattrs.src"
grep -q "user.checksum=" "$TMP/xattrs.src" || fail "the source tree has no extended attributes"
xattrs_of "$MNT/tree" > "$TMP/xattrs" || fail "getfattr -d: $(head -2 "$TMP/xattrs")"
diff "$TMP/xattrs.src" "$TMP/xattrs" > "$TMP/xattrs.diff" ||
    fail "getfattr -d after cp -a differs: $(head -12 "$TMP/xattrs.diff")"
say "extended attributes: $(grep -c =0x "$TMP/xattrs") values, getfattr -d identical"

say "tar round trip"
mkdir "$TMP/untar"
tar -C "$MNT" -cf - tree | tar -C "$TMP/untar" -xf - || fail "tar c | tar x"
diff -r --no-dereference "$SRC" "$TMP/untar/tree" > /dev/null || fail "tar round trip differs"
rm -rf "$TMP/untar"

say "rsync -a --checksum twice"
rsync -a --checksum "$SRC/" "$MNT/rsynced/" 2> "$TMP/rsync.err" || fail "rsync: $(head -3 "$TMP/rsync.err")"
rsync -a --checksum --stats "$SRC/" "$MNT/rsynced/" > "$TMP/rsync2" || fail "second rsync"
grep -q "Number of regular files transferred: 0" "$TMP/rsync2" ||
    fail "the second rsync transferred: $(grep transferred "$TMP/rsync2")"
diff -r --no-dereference "$SRC" "$MNT/rsynced" > /dev/null || fail "rsync copy differs"

say "git"
(
    set -e
    cd "$MNT"
    mkdir repo && cd repo
    git init -q
    git config user.email ci@example.com && git config user.name ci
    cp -r "$SRC/dir01" "$SRC/dir02" "$SRC/dir03" "$SRC/dir04" .
    git add -A && git commit -q -m first
    echo more >> dir01/sub1/file000.txt && git commit -q -am second
    git fsck --full 2>&1
    [ "$(git rev-list --count HEAD)" = 2 ]
    [ "$(git ls-files | wc -l)" -ge 300 ]
) > "$TMP/git.out" 2>&1 || fail "git: $(tail -3 "$TMP/git.out")"

say "sqlite3: 10 000 rows in transactions"
sqlite_fill() { # DB FIRST COUNT
    python3 - "$1" "$2" "$3" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("create table if not exists t (id integer primary key, v text)")
first, count = int(sys.argv[2]), int(sys.argv[3])
for start in range(first, first + count, 100):
    with db:
        db.executemany("insert into t values (?, ?)",
                       [(i, "row %d %s" % (i, "x" * (i % 50))) for i in range(start, start + 100)])
db.close()
PY
}
sqlite_fill "$MNT/db.sqlite" 0 10000 || fail "sqlite3 inserts"
[ "$(sqlite3 "$MNT/db.sqlite" 'pragma integrity_check')" = ok ] || fail "integrity_check"
[ "$(sqlite3 "$MNT/db.sqlite" 'select count(*) from t')" = 10000 ] || fail "row count"

say "fio: sequential and random writes, verify=crc32c, fsync"
fio --name=seq --directory="$MNT" --filename=fio-seq --rw=write --bs=128k --size=16m \
    --verify=crc32c --fsync=8 --do_verify=1 --verify_state_save=0 --minimal > "$TMP/fio1" 2>&1 || fail "fio sequential: $(tail -2 "$TMP/fio1")"
fio --name=rand --directory="$MNT" --filename=fio-rand --rw=randwrite --bs=4k --size=4m \
    --verify=crc32c --fsync=32 --do_verify=1 --verify_state_save=0 --minimal > "$TMP/fio2" 2>&1 || fail "fio random: $(tail -2 "$TMP/fio2")"

df -B1 --output=used,avail "$MNT" | tail -1 > "$TMP/df.after"
read -r used2 avail2 < "$TMP/df.after"
du_bytes=$(du -s -B1 --apparent-size "$MNT" | cut -f1)
[ "$used2" -gt "$used" ] && [ "$avail2" -lt "$avail" ] || fail "df after: $(cat "$TMP/df.after")"
[ "$used2" -ge $((du_bytes * 9 / 10)) ] || fail "df says $used2 bytes used for $du_bytes bytes of files"
nk_unmount
fsck_clean "after the workloads"

say "remount: sqlite3 and the tree again"
nk_mount_fg || exit 1
[ "$(sqlite3 "$MNT/db.sqlite" 'pragma integrity_check')" = ok ] || fail "integrity_check after remount"
[ "$(sqlite3 "$MNT/db.sqlite" 'select count(*) from t')" = 10000 ] || fail "rows after remount"
diff -r --no-dereference "$SRC" "$MNT/tree" > /dev/null || fail "tree differs after remount"
rm -rf "$MNT/rsynced" "$MNT/repo" "$MNT"/fio-*

# ----- crashes under load
say "SIGKILL in the middle of sqlite3 and fio"
for point in 1 2 3; do
    # sqlite3: each committed transaction is durable (sqlite fsyncs); kill
    # at a point in the stream of inserts.
    rm -f "$TMP/committed"
    python3 - "$MNT/crash.sqlite" "$TMP/committed" 2> /dev/null <<'PY' &
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("create table if not exists c (id integer primary key, v text)")
db.commit()
n = db.execute("select count(*) from c").fetchone()[0]
while True:
    with db:
        db.executemany("insert into c (v) values (?)", [("v%d" % (n + i),) for i in range(50)])
    n += 50
    open(sys.argv[2], "w").write(str(n))
PY
    writer=$!
    # A file written in 64 KiB steps, each fsync'd, until the kill: what
    # was fsync'd last is known by the count written after each fsync.
    head -c $((40 << 20)) /dev/urandom > "$TMP/blob$point"
    python3 - "$TMP/blob$point" "$MNT/blob$point" "$TMP/blob$point.done" 2> /dev/null <<'PY' &
import os, sys
data = open(sys.argv[1], "rb").read()
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
for at in range(0, len(data), 65536):
    os.write(fd, data[at:at + 65536])
    os.fsync(fd)
    open(sys.argv[3], "w").write(str(min(at + 65536, len(data))))
PY
    blob=$!
    # fio: 4 KiB blocks in order, each with its crc32c header and followed by
    # an fsync, the seed of this point. The fsync of a block returns before
    # the next block is written, so what the kill leaves fsync'd is every
    # block before the offset of the I/O that failed (a write, or the fsync
    # after it: fio names it), or the whole file when fio had finished
    # (end_fsync). --verify_only replays the job over those bytes.
    fio_job=(--name=crash --directory="$MNT" --filename=fio-crash --rw=write --bs=4k
        --verify=crc32c --randseed=$point --fallocate=none --verify_state_save=0)
    fio "${fio_job[@]}" --size=32m --fsync=1 --end_fsync=1 --do_verify=0 --output-format=json \
        > "$TMP/fio-crash.json" 2> "$TMP/fio-crash.err" &
    fiopid=$!
    # The writers under way on the mount first (a writer that started after
    # the kill would write into the bare mount point instead). Tested once:
    # the writers rewrite their counts, which are empty for a moment.
    started=false
    for _ in $(seq 1200); do # up to a minute on a loaded machine
        if [ -s "$TMP/committed" ] && [ -s "$TMP/blob$point.done" ] && [ -s "$MNT/fio-crash" ]; then
            started=true
            break
        fi
        sleep 0.05
    done
    $started || fail "kill $point: the writers did not start"
    # The kill falls at a point of the file's writing (10, 20, 30 MiB of
    # 40 fsync'd), whatever the machine's speed, with sqlite3 and fio going.
    for _ in $(seq 1200); do
        written=$(cat "$TMP/blob$point.done" 2> /dev/null)
        [ "${written:-0}" -ge $((point * 10 << 20)) ] && break
        sleep 0.05
    done
    nk_mount_kill
    wait $writer 2> /dev/null; wait $blob 2> /dev/null
    # fio stops by itself at its first I/O on the dead mount.
    for _ in $(seq 200); do kill -0 $fiopid 2> /dev/null || break; sleep 0.05; done
    kill -0 $fiopid 2> /dev/null && { kill $fiopid; fail "kill $point: fio went on after the kill"; }
    wait $fiopid
    fio_status=$?
    # Where fio names no failed I/O (the kill fell in end_fsync), its count
    # of fsyncs less the one that may have failed is a lower bound.
    read -r fio_fsyncd fio_how < <(python3 - "$TMP/fio-crash.json" "$TMP/fio-crash.err" $fio_status $((32 << 20)) <<'PY'
import json, re, sys
out, err = open(sys.argv[1]).read(), open(sys.argv[2]).read()
status, size = int(sys.argv[3]), int(sys.argv[4])
failed = re.search(r"\b(write|sync) offset=(\d+)", out + err)
if status == 0:
    print(size, "fio had finished")
elif failed:
    print(failed.group(2), "the kill failed fio's %s at offset %s" % failed.groups())
else:
    job = json.loads(out[out.index("{"):])["jobs"][0]
    syncs = job["sync"]["total_ios"]
    print((syncs - 1) * 4096, "fio stopped with error %d after %d fsyncs" % (job["error"], syncs))
PY
    )
    # Read-only, before any recovery: no damage (a page the kill cut short
    # is a trace of an interrupted write, fsck's exit status 3).
    "$NK" fsck "$IMG" $G > "$TMP/fsck" 2> /dev/null
    verdict=$?
    [ $verdict = 0 ] || [ $verdict = 3 ] || fail "kill $point: fsck of the killed image: exit $verdict: $(grep problem "$TMP/fsck" | head -3)"
    committed=$(cat "$TMP/committed" 2> /dev/null || echo 0)
    done_bytes=$(cat "$TMP/blob$point.done" 2> /dev/null || echo 0)
    nk_mount_fg || exit 1
    [ "$(sqlite3 "$MNT/crash.sqlite" 'pragma integrity_check')" = ok ] || fail "kill $point: integrity_check"
    rows=$(sqlite3 "$MNT/crash.sqlite" 'select count(*) from c')
    [ "$rows" -ge "$committed" ] || fail "kill $point: $rows rows, $committed were committed"
    cmp -n "$done_bytes" "$TMP/blob$point" "$MNT/blob$point" || fail "kill $point: fsync'd blob differs"
    # fio's own check of the fsync'd blocks: headers (offset, seed) and
    # crc32c; it must have read all of them.
    fio_size=$(stat -c %s "$MNT/fio-crash")
    fio_said="fio --verify_only: see the failure above"
    if [ "${fio_fsyncd:-0}" -le 0 ]; then
        fail "kill $point: fio had fsync'd nothing: not under load"
    elif [ "$fio_size" -lt "$fio_fsyncd" ]; then
        fail "kill $point: fio-crash has $fio_size bytes, $fio_fsyncd were fsync'd"
    elif ! fio "${fio_job[@]}" --size="$fio_fsyncd" --verify_only --verify_fatal=1 \
        --output-format=json > "$TMP/fio-verify" 2> "$TMP/fio-verify.err"; then
        fail "kill $point: fio --verify_only of the $fio_fsyncd fsync'd bytes: $(cat "$TMP/fio-verify.err" "$TMP/fio-verify" | grep -e 'verify failed' -e 'error=' | head -n 2)"
    else
        verified=$(python3 -c 'import json, sys; s = open(sys.argv[1]).read()
print(json.loads(s[s.index("{"):])["jobs"][0]["read"]["io_bytes"])' "$TMP/fio-verify")
        if [ "$verified" = "$fio_fsyncd" ]; then
            fio_said="fio --verify_only: $fio_fsyncd fsync'd bytes of $fio_size intact ($fio_how)"
        else
            fail "kill $point: fio --verify_only read $verified of $fio_fsyncd bytes"
        fi
    fi
    say "kill $point: fsck before recovery exit $verdict; $committed rows committed, $rows there; $done_bytes fsync'd bytes of a file intact; $fio_said"
    [ "$done_bytes" -lt $((40 << 20)) ] || fail "kill $point came after the file was whole: not under load"
    rm -f "$MNT/blob$point" "$MNT/fio-crash"
    nk_unmount
    fsck_clean "after kill $point and a remount"
    nk_mount_fg || exit 1
done
nk_unmount

# ----- the image through the library's commands agrees with the mount
say "nandkit ls -R and extract agree"
"$NK" extract "$IMG" "$TMP/extracted" $G > /dev/null 2>&1 || fail "extract"
diff -r --no-dereference "$SRC" "$TMP/extracted/tree" > /dev/null || fail "extract of the tree differs"
xattrs_of "$TMP/extracted/tree" > "$TMP/xattrs.extracted"
diff "$TMP/xattrs.src" "$TMP/xattrs.extracted" > /dev/null || fail "extract lost extended attributes"
"$NK" ls -R "$IMG" /tree $G 2> /dev/null | grep -c . > "$TMP/ls.count"
[ "$(cat "$TMP/ls.count")" -ge $((files - 1)) ] || fail "ls -R lists $(cat "$TMP/ls.count") entries of $((files - 1))"
fsck_clean "at the end"
if [ -n "$YAFFS2" ]; then
    say "YAFFS2 Direct reads the image"
    cp --sparse=always "$IMG" "$TMP/yaffs2.img" # it may write its own checkpoint
    "$YAFFS2" walk "$TMP/yaffs2.img" "$TMP/ywalk" --geometry 2048,64,64,1024 > "$TMP/ywalk.json" 2> "$TMP/ywalk.err"
    [ $? -le 1 ] || fail "YAFFS2 walk: $(tail -2 "$TMP/ywalk.err")"
    python3 - "$SRC" "$TMP/ywalk.json" "$TMP/ywalk/data" <<'PY' || fail "YAFFS2 Direct sees another tree"
import json, os, sys
src, listing, data = sys.argv[1:]
objs = {}
for line in open(listing):
    o = json.loads(line)
    assert "error" not in o, o
    objs[o["path"]] = o
n = 0
for dp, dns, fns in os.walk(src):
    for name in dns + fns:
        p = os.path.join(dp, name)
        rel = "/tree/" + os.path.relpath(p, src)
        assert rel in objs, rel
        if os.path.isfile(p) and not os.path.islink(p):
            assert open(p, "rb").read() == open(data + rel, "rb").read(), rel
        if not os.path.islink(p):
            want = {k: os.getxattr(p, k).hex() for k in os.listxattr(p)}
            assert objs[rel].get("xattrs", {}) == want, (rel, objs[rel].get("xattrs"), want)
        n += 1
print("YAFFS2 Direct: %d objects of the tree, every file's bytes and extended attributes the same"
      % n)
PY
fi

say "done"
nk_test_end "ok: cp, tar, rsync, git, sqlite3 and fio on the mount, and kills under load"

#!/bin/bash
# The errno values programs get through nandkit mount, each from the system
# call itself: ENAMETOOLONG for a 256-byte name in open, mkdir, symlink,
# mknod, link, rename and stat, and for a 160-byte symlink target (YAFFS2
# stores 255 and 159: those work); ENOSPC for write, mkdir and create on a
# full image, which works again once space is freed; EMLINK from `ln` past
# the file system's link limit (65 535 names of one file, src/fs/tree.c
# NK_FS_LINK_MAX), "Too many links", and ln works again after an rm.
#
# usage: bash tests/fuse/errors.sh NANDKIT_BINARY
# Needs /dev/fuse and fusermount3 (scripts/install-deps.sh fuse); exits 77
# without /dev/fuse. The link limit takes 65 534 links: about half a minute.
. "$(dirname "$0")/../cli/lib.sh"
nk_test_begin "$@"
if [ ! -c /dev/fuse ]; then
    echo "skipped: no /dev/fuse on this machine, FUSE cannot mount"; exit 77
fi
nk_test_need fusermount3 fuse
nk_test_mount_setup
mkdir -p "$TMP/empty"

# ----- names and targets too long, a full image: a 64-block image
G="--geometry 2048,64,64,64"
IMG=$TMP/small.img
"$NK" mkimage "$TMP/empty" "$IMG" $G --no-progress > /dev/null 2>&1 || { echo "FAIL: mkimage"; exit 1; }
nk_mount_fg || exit 1
long=$(printf 'n%.0s' $(seq 256))
max=$(printf 'k%.0s' $(seq 255))
echo a > "$MNT/a" || fail "write a"
expect() { # ERRNO STATEMENT WHAT
    local got
    got=$(nk_errno_of "$2")
    [ "$got" = "$1" ] || fail "$3: $got, not $1"
}
expect ENAMETOOLONG "open('$MNT/$long', 'w')" "open of a 256-byte name"
expect ENAMETOOLONG "os.mkdir('$MNT/$long')" "mkdir of a 256-byte name"
expect ENAMETOOLONG "os.symlink('a', '$MNT/$long')" "symlink named with 256 bytes"
expect ENAMETOOLONG "os.mkfifo('$MNT/$long')" "mknod of a 256-byte name"
expect ENAMETOOLONG "os.link('$MNT/a', '$MNT/$long')" "link to a 256-byte name"
expect ENAMETOOLONG "os.rename('$MNT/a', '$MNT/$long')" "rename to a 256-byte name"
expect ENAMETOOLONG "os.stat('$MNT/$long')" "stat of a 256-byte name"
expect ENAMETOOLONG "os.symlink('t' * 160, '$MNT/target160')" "a 160-byte symlink target"
expect ok "open('$MNT/$max', 'w').close()" "a 255-byte name"
expect ok "os.symlink('t' * 159, '$MNT/target159')" "a 159-byte symlink target"
[ "$(readlink "$MNT/target159" | wc -c)" = 160 ] || fail "the 159-byte target did not read back whole"
[ -e "$MNT/a" ] || fail "a refused rename moved a"

python3 - "$MNT" <<'PY' || fail "a full image did not give ENOSPC to write, mkdir and create"
import errno, os, sys
m = sys.argv[1]
fd = os.open(os.path.join(m, "fill"), os.O_WRONLY | os.O_CREAT, 0o644)
written = 0
try:
    while True:
        written += os.write(fd, b"x" * 65536)
except OSError as e:
    assert e.errno == errno.ENOSPC, errno.errorcode[e.errno]
assert written > 4 << 20, written  # most of the 8 MiB image was taken first
os.fsync(fd)  # what was written stays
os.close(fd)
assert os.stat(os.path.join(m, "fill")).st_size >= written  # a refused write may have landed in part
for call in (lambda: os.mkdir(os.path.join(m, "dir-on-full")),
             lambda: open(os.path.join(m, "file-on-full"), "w").write("y" * 5000)):
    try:
        call()
        raise AssertionError("a change on a full image succeeded")
    except OSError as e:
        assert e.errno == errno.ENOSPC, errno.errorcode[e.errno]
os.unlink(os.path.join(m, "fill"))
open(os.path.join(m, "after-full"), "w").write("again")
os.mkdir(os.path.join(m, "dir-after-full"))
PY
nk_unmount
"$NK" fsck "$IMG" $G > "$TMP/fsck" 2>&1 || fail "fsck after ENOSPC: $(head -3 "$TMP/fsck")"

# ----- the link limit: one header chunk a link, 65 534 of them
G="--geometry 2048,64,64,1280"
IMG=$TMP/links.img
"$NK" mkimage "$TMP/empty" "$IMG" $G --no-progress > /dev/null 2>&1 || { echo "FAIL: mkimage"; exit 1; }
nk_mount_fg || exit 1
say "65 534 hard links of one file"
python3 - "$MNT" <<'PY' || fail "the links below the limit"
import os, sys
m = sys.argv[1]
f = os.path.join(m, "f")
open(f, "w").write("linked\n")
made = 1
for d in range(256):  # 256 names a directory: lookups stay short
    os.mkdir(os.path.join(m, "d%03d" % d))
    for i in range(256):
        if made == 65535:
            break
        os.link(f, os.path.join(m, "d%03d" % d, "%03d" % i))
        made += 1
assert os.stat(f).st_nlink == 65535, os.stat(f).st_nlink
PY
say "ln past the limit"
if ln "$MNT/f" "$MNT/one-too-many" 2> "$TMP/ln.err"; then
    fail "ln past the link limit succeeded"
else
    grep -q "Too many links" "$TMP/ln.err" || fail "ln past the link limit said: $(cat "$TMP/ln.err")"
fi
[ -e "$MNT/one-too-many" ] && fail "the refused link exists"
rm "$MNT/d000/000" && ln "$MNT/f" "$MNT/one-more" || fail "ln after an rm below the limit"
[ "$(stat -c %h "$MNT/f")" = 65535 ] || fail "links after rm and ln: $(stat -c %h "$MNT/f")"
[ "$(cat "$MNT/one-more")" = linked ] || fail "the last link does not read the file"
nk_unmount
say "done"

nk_test_end "ok: ENAMETOOLONG, ENOSPC and EMLINK through nandkit mount"

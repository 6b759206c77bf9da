#!/bin/bash
# nandkit mount (FUSE): files written through the mount read back through
# the image commands; the errno values programs see (ENAMETOOLONG, ENOSPC,
# EXDEV, EEXIST from RENAME_NOREPLACE, EINVAL for RENAME_EXCHANGE, extended
# attributes with ENODATA, EEXIST and ENOSPC, EPERM for a hard link to a
# symlink, EROFS with -o ro);
# O_APPEND through two handles; a listing that entries come and go under
# lists every entry that stayed exactly once; SIGTERM unmounts and writes
# the checkpoint; SIGKILL leaves an image that mounts as after a power cut
# with every fsync'd file intact; the image lock keeps other commands off.
# Skipped (exit 77) where FUSE cannot mount: no /dev/fuse, no fusermount3,
# or a nandkit built without libfuse3.
#
# usage: bash tests/cli/mount.sh NANDKIT_BINARY [FIXTURES_DIR]
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
if "$NK" mount 2>&1 | grep -q "built without FUSE"; then
    echo "skipped: this nandkit was built without FUSE"; exit 77
fi
if [ ! -c /dev/fuse ] || ! command -v fusermount3 > /dev/null; then
    echo "skipped: no /dev/fuse or no fusermount3 here"; exit 77
fi
nk_test_mount_setup
G="--geometry 2048,64,64,96"
IMG=$TMP/fs.img
mkdir -p "$TMP/empty"
"$NK" mkimage "$TMP/empty" "$IMG" $G --no-progress > /dev/null 2>&1 || { echo "FAIL: mkimage"; exit 1; }

if ! nk_mount_fg; then
    if grep -q "cannot mount on" "$TMP/mount.err"; then
        echo "skipped: FUSE cannot mount here: $(cat "$TMP/mount.err")"; exit 77
    fi
    exit 1
fi
echo hello > "$MNT/a.txt" || fail "write through the mount"
mkdir "$MNT/dir" && ln "$MNT/a.txt" "$MNT/dir/link" && ln -s ../a.txt "$MNT/dir/sym" || fail "mkdir/ln"
[ "$(stat -c %h "$MNT/a.txt")" = 2 ] || fail "a.txt has not 2 links after ln"
[ "$(cat "$MNT/dir/sym")" = hello ] || fail "symlink does not read through"
now=$(date +%s)
[ $(( now - $(stat -c %Y "$MNT/dir") )) -le 5 ] || fail "mkdir stamped no host time"

# Errors as programs expect them.
long=$(printf 'n%.0s' $(seq 256))
[ "$(nk_errno_of "open('$MNT/$long', 'w')")" = ENAMETOOLONG ] || fail "a 256-byte name is not ENAMETOOLONG"
[ "$(nk_errno_of "os.rename('$MNT/a.txt', '$TMP/out')")" = EXDEV ] || fail "rename out of the mount is not EXDEV"
libc="ctypes.CDLL(None, use_errno=True)"
renameat2() { # FROM TO FLAGS
    nk_errno_of "
libc = $libc
r = libc.renameat2(-100, b'$1', -100, b'$2', $3)
if r: raise OSError(ctypes.get_errno(), '')"
}
echo b > "$MNT/b.txt"
[ "$(renameat2 "$MNT/b.txt" "$MNT/a.txt" 1)" = EEXIST ] || fail "RENAME_NOREPLACE over a file is not EEXIST"
[ "$(renameat2 "$MNT/b.txt" "$MNT/c.txt" 1)" = ok ] || fail "RENAME_NOREPLACE to a new name fails"
[ "$(renameat2 "$MNT/c.txt" "$MNT/a.txt" 2)" = EINVAL ] || fail "RENAME_EXCHANGE is not EINVAL"
[ "$(nk_errno_of "os.link('$MNT/dir/sym', '$MNT/hard-to-sym', follow_symlinks=False)")" = EPERM ] ||
    fail "a hard link to a symlink is not refused with EPERM"
python3 - "$MNT/log" <<'PY' || fail "O_APPEND writes of two handles do not both land at the end"
import os, sys
a = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_APPEND)
b = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
for i in range(20):
    os.write(a if i % 2 else b, b"line %02d\n" % i)
os.close(a); os.close(b)
assert open(sys.argv[1], "rb").read() == b"".join(b"line %02d\n" % i for i in range(20))
PY
# Extended attributes: set, read, list, replace, remove, and the errors
# programs expect (ENODATA, EEXIST/ENODATA for the flags, ENOSPC past the
# header chunk's 1 536 bytes).
python3 - "$MNT/a.txt" "$MNT/dir" <<'PY' || fail "extended attributes through the mount"
import errno, os, sys
f, d = sys.argv[1], sys.argv[2]
def err(fn):
    try:
        fn()
    except OSError as e:
        return errno.errorcode[e.errno]
    return "ok"
os.setxattr(f, "user.k", b"v")
os.setxattr(f, "security.selinux", b"system_u:object_r:etc_t:s0\0")
os.setxattr(d, "user.dir", bytes(range(256)))
assert os.getxattr(f, "user.k") == b"v"
assert os.getxattr(d, "user.dir") == bytes(range(256))
assert sorted(os.listxattr(f)) == ["security.selinux", "user.k"], os.listxattr(f)
assert err(lambda: os.getxattr(f, "user.none")) == "ENODATA"
assert err(lambda: os.setxattr(f, "user.k", b"x", os.XATTR_CREATE)) == "EEXIST"
assert err(lambda: os.setxattr(f, "user.new", b"x", os.XATTR_REPLACE)) == "ENODATA"
assert err(lambda: os.setxattr(f, "user.big", b"b" * 1600)) == "ENOSPC"
os.setxattr(f, "user.k", b"replaced", os.XATTR_REPLACE)
assert os.getxattr(f, "user.k") == b"replaced"
os.removexattr(f, "security.selinux")
assert err(lambda: os.removexattr(f, "security.selinux")) == "ENODATA"
assert os.listxattr(f) == ["user.k"]
PY

# A listing while entries come and go: every entry that stays is listed once.
mkdir "$MNT/many"
for i in $(seq 400); do : > "$MNT/many/stay-$i"; : > "$MNT/many/go-$i"; done
python3 - "$MNT/many" <<'PY' || fail "a listing under changes missed or repeated an entry"
import os, sys
d = sys.argv[1]
seen = []
it = os.scandir(d)
for n, e in enumerate(it):
    seen.append(e.name)
    if n == 50:  # the first getdents is done: change the directory under the listing
        for i in range(1, 401):
            os.unlink(os.path.join(d, "go-%d" % i))
        for i in range(1, 200):
            open(os.path.join(d, "new-%d" % i), "w").close()
stay = [s for s in seen if s.startswith("stay-")]
assert len(stay) == len(set(stay)) == 400, (len(stay), len(set(stay)))
PY

# ENOSPC when the flash is full, and the file system still works after it.
if head -c 20000000 /dev/zero > "$MNT/fill" 2> "$TMP/dd.err"; then
    fail "writing 20 MB into 12 MB succeeded"
else
    grep -q "No space left" "$TMP/dd.err" || fail "a full flash said: $(cat "$TMP/dd.err")"
fi
rm -f "$MNT/fill" && echo again > "$MNT/after-full" || fail "no write after ENOSPC"
df -B1 "$MNT" > "$TMP/df" || fail "df"
nk_unmount

# The image commands see what the mount wrote; the unmount wrote a checkpoint.
[ "$("$NK" cat "$IMG" /a.txt $G 2> /dev/null)" = hello ] || fail "cat a.txt after unmount"
"$NK" fsck "$IMG" $G > "$TMP/fsck" 2> /dev/null || fail "fsck after unmount: $(cat "$TMP/fsck")"
grep -q "1 checkpoint" "$TMP/fsck" || fail "no checkpoint after fusermount3 -u: $(head -1 "$TMP/fsck")"
"$NK" ls -R --json "$IMG" $G > "$TMP/ls.json" 2> /dev/null || fail "ls --json after unmount"
python3 - "$TMP/ls.json" <<'PY' || fail "ls --json does not show the attributes set through the mount"
import json, sys
objs = {o["path"]: o for o in json.load(open(sys.argv[1]))}
assert objs["/a.txt"]["xattrs"] == {"user.k": b"replaced".hex()}, objs["/a.txt"]
assert objs["/dir/link"]["xattrs"] == objs["/a.txt"]["xattrs"]  # a hard link: the file's
assert objs["/dir"]["xattrs"] == {"user.dir": bytes(range(256)).hex()}
PY

# -o ro: EROFS, and nothing written.
before=$(md5sum < "$IMG")
nk_mount_fg -o ro || exit 1
[ "$(nk_errno_of "open('$MNT/x', 'w')")" = EROFS ] || fail "-o ro: writing is not EROFS"
[ "$(cat "$MNT/a.txt")" = hello ] || fail "-o ro: cannot read"
"$NK" ls "$IMG" $G > /dev/null 2>&1 || fail "-o ro: a reader is locked out"
nk_unmount
[ "$(md5sum < "$IMG")" = "$before" ] || fail "-o ro changed the image"

# SIGTERM unmounts cleanly; the lock keeps a writer off meanwhile.
nk_mount_fg || exit 1
echo term > "$MNT/term.txt"
"$NK" put "$IMG" "$TMP/df" /x $G > /dev/null 2>&1 && fail "put ran on a mounted image"
kill -TERM "$PID"
wait "$PID" || fail "SIGTERM: the daemon exited with $?"
PID=
mountpoint -q "$MNT" && fail "SIGTERM left the mount"
[ "$("$NK" cat "$IMG" /term.txt $G 2> /dev/null)" = term ] || fail "term.txt after SIGTERM"

# SIGKILL: the image mounts as after a power cut, fsync'd data intact.
nk_mount_fg || exit 1
head -c 300000 /dev/urandom > "$TMP/synced"
python3 - "$TMP/synced" "$MNT/synced" <<'PY'
import os, sys
data = open(sys.argv[1], "rb").read()
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT, 0o644)
os.write(fd, data)
os.fsync(fd)
os.write(fd, b"unsynced tail")  # may or may not survive the kill
PY
nk_mount_kill
nk_mount_fg || exit 1
cmp -n 300000 "$TMP/synced" "$MNT/synced" || fail "fsync'd data differs after SIGKILL"
nk_unmount
"$NK" fsck "$IMG" $G > "$TMP/fsck" 2>&1 || fail "fsck after a kill and a remount: $(cat "$TMP/fsck")"

nk_test_end "ok: nandkit mount under real system calls"

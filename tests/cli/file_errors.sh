#!/bin/bash
# Writes that fail are reported, never called done, and the sidecar beside an
# image is only ever read from a regular file: a full disk (RLIMIT_FSIZE)
# while badblocks writes its tables exits 1 naming the image and leaves the
# image as it was; sim create on a full disk exits 1 naming the sidecar and
# leaves nothing; a sidecar path that is a FIFO or a directory is refused at once, in
# one line, without hanging or allocating for a nonsense size.
#
# usage: bash tests/cli/file_errors.sh NANDKIT_BINARY
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
G="--geometry 2048,64,64,1024"
cd "$TMP" || exit 1

fresh() { rm -rf a.img a.img.nksim a.img.nksim.tmp; "$NK" sim create a.img $G > /dev/null || fail "sim create"; }

# badblocks_on_full_disk_fails: 100 KiB of file size allowed, the tables
# live at 135 MB. SIGXFSZ ignored, so the write itself returns EFBIG.
fresh
(ulimit -f 100; trap '' XFSZ; exec "$NK" badblocks a.img $G --write-bbt) > out 2> err
rc=$?
[ "$rc" = 1 ] || fail "badblocks on a full disk: exit $rc, expected 1 ($(cat out err))"
grep -q "wrote both tables" out && fail "badblocks on a full disk claims it wrote the tables"
grep -q "^nandkit: .*a.img" err || fail "full disk: error does not name the image: $(cat err)"
[ "$(wc -l < err)" = 1 ] || fail "full disk: more than one line: $(cat err)"
[ "$(stat -c %s a.img)" = 0 ] || fail "badblocks on a full disk changed the image"

# sim_create_on_full_disk_fails: the 16 KiB sidecar does not fit in 8 KiB.
rm -rf a.img a.img.nksim a.img.nksim.tmp
(ulimit -f 8; trap '' XFSZ; exec "$NK" sim create a.img $G) > out 2> err
rc=$?
[ "$rc" = 1 ] || fail "sim create on a full disk: exit $rc, expected 1"
grep -q "^created" out && fail "sim create on a full disk claims success"
grep -q "sidecar" err || fail "sim create on a full disk: the sidecar is not named: $(cat err)"
ls a.img* > /dev/null 2>&1 && fail "sim create on a full disk left files: $(ls a.img*)"

# sidecar_fifo_is_refused_without_hanging (timeout only guards the run)
fresh
rm a.img.nksim
mkfifo a.img.nksim
timeout 20 "$NK" badblocks a.img $G --dry-run > out 2> err
rc=$?
[ "$rc" = 124 ] && fail "a FIFO sidecar hangs badblocks"
[ "$rc" = 0 ] && fail "a FIFO sidecar was accepted"
grep -q "sidecar a.img.nksim is not a regular file" err || fail "FIFO sidecar: $(cat err)"

# sidecar_directory_is_refused
rm -f a.img.nksim
mkdir a.img.nksim
"$NK" badblocks a.img $G --dry-run > out 2> err
rc=$?
[ "$rc" = 0 ] && fail "a directory sidecar was accepted"
grep -q "sidecar a.img.nksim is not a regular file" err || fail "directory sidecar: $(cat err)"
[ "$(wc -l < err)" = 1 ] || fail "directory sidecar: more than one line: $(cat err)"

# sidecar_huge_size_is_refused_before_reading: a header announcing 2^32-1
# blocks in a small file is refused by its size.
rm -rf a.img.nksim
fresh
python3 - <<'PY'
import struct
b = bytearray(open("a.img.nksim", "rb").read())
b[28:32] = struct.pack("<I", 0xffffffff)
open("a.img.nksim", "wb").write(b)
PY
"$NK" badblocks a.img $G --dry-run > out 2> err
rc=$?
[ "$rc" = 0 ] && fail "a sidecar announcing 2^32 blocks was accepted"
grep -q "corrupt (size or CRC)" err || fail "huge sidecar: $(cat err)"

nk_test_end "file_errors: all checks passed"

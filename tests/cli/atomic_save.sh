#!/bin/bash
# mkimage never leaves half a build under the image's name: it builds in a
# temporary file beside the image and renames it over the image at the end.
# A full disk (RLIMIT_FSIZE) fails with exit 1 and leaves the old image
# byte for byte; SIGKILL while the temporary file exists leaves the old image
# (or, when the kill lands after the rename, the complete new one); no
# temporary file is left after a failure that the command itself reports.
#
# usage: bash tests/cli/atomic_save.sh NANDKIT_BINARY
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
G="--geometry 2048,64,64,256"
cd "$TMP" || exit 1

mkdir old new
echo "old contents" > old/a
for i in $(seq 1 15); do head -c 200000 /dev/urandom > "new/f$i"; done
"$NK" mkimage old img $G --no-progress > /dev/null || fail "first build"
cp img img.orig

# mkimage_full_disk_keeps_old_image: 1 MiB of file size allowed, the new
# tree needs 3 MB.
(ulimit -f 1024; trap '' XFSZ; exec "$NK" mkimage new img $G --no-progress) > out 2> err
rc=$?
[ "$rc" = 1 ] || fail "mkimage on a full disk: exit $rc, expected 1 ($(cat err))"
cmp -s img img.orig || fail "mkimage on a full disk changed the old image"
grep -q "img" err || fail "mkimage on a full disk: the image is not named: $(cat err)"
ls img.nktmp-* > /dev/null 2>&1 && fail "mkimage on a full disk left a temporary file"
"$NK" extract img x-old $G > /dev/null 2>&1 || fail "old image no longer extracts"
cmp -s x-old/a old/a || fail "old image lost its file"

# mkimage_killed_while_saving_keeps_old_image: a tree big enough to take a
# while; SIGKILL as soon as the temporary file shows up.
mkdir big
for i in $(seq 1 40); do head -c 500000 /dev/urandom > "big/f$i"; done
G2="--geometry 2048,64,64,512"
"$NK" mkimage old img2 $G2 --no-progress > /dev/null || fail "first build (2)"
cp img2 img2.orig
"$NK" mkimage big img2 $G2 --no-progress > /dev/null 2>&1 &
pid=$!
seen=0
while kill -0 "$pid" 2> /dev/null; do
    if compgen -G "img2.nktmp-*" > /dev/null; then
        seen=1
        kill -9 "$pid"
        break
    fi
done
wait "$pid" 2> /dev/null
[ "$seen" = 1 ] || fail "mkimage over an existing image wrote no temporary file beside it"
if ! cmp -s img2 img2.orig; then
    # Only a complete new image may have replaced the old one.
    rm -rf x-big
    "$NK" extract img2 x-big $G2 > /dev/null 2>&1 || fail "killed mkimage left an image that does not extract"
    diff -r big x-big > /dev/null || fail "killed mkimage left a hybrid image"
fi
rm -f img2.nktmp-*
"$NK" mkimage big img2 $G2 --no-progress > /dev/null || fail "build after the kill"
"$NK" fsck img2 $G2 > /dev/null || fail "fsck after the rebuild"

nk_test_end "atomic_save: all checks passed"

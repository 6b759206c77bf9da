#!/usr/bin/env bash
# `mkimage --layout mkyaffs2` writes mkyaffs2image's order (each object's
# header before its data), so Debian's unyaffs extracts the image exactly: a
# tree with multi-chunk files, an empty file, a file of exactly one chunk,
# nested directories, hard links and symlinks, on 2 KiB and 4 KiB pages.
# usage: unyaffs.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
command -v unyaffs >/dev/null || { echo "FAIL: unyaffs is not installed (scripts/install-deps.sh test)"; exit 1; }

tree=$TMP/tree
mkdir -p "$tree/etc/init.d" "$tree/usr/lib/deep/er" "$tree/empty-dir"
head -c 20000 /dev/urandom > "$tree/usr/lib/multi.bin"      # 10 chunks of 2 KiB, 5 of 4 KiB
head -c 4096 /dev/urandom > "$tree/usr/lib/exact4k.bin"      # exactly two / one chunk(s)
head -c 2049 /dev/urandom > "$tree/usr/lib/deep/er/odd.bin"  # one byte into a second chunk
head -c 300000 /dev/urandom > "$tree/big.bin"                # more than one block of 2 KiB pages
: > "$tree/etc/empty"
printf 'root:x:0:0::/root:/bin/sh\n' > "$tree/etc/passwd"
printf '#!/bin/sh\necho start\n' > "$tree/etc/init.d/rcS"
chmod 755 "$tree/etc/init.d/rcS"
ln "$tree/usr/lib/multi.bin" "$tree/hard-to-multi.bin"
ln "$tree/etc/passwd" "$tree/etc/init.d/passwd-link"
ln -s ../usr/lib/multi.bin "$tree/etc/sym-rel"
ln -s /etc/passwd "$tree/sym-abs"
ln -s does/not/exist "$tree/usr/dangling"

for geo in 2048,64,64 4096,128,64; do
  img=$TMP/img-$geo.img out=$TMP/out-$geo
  "$NK" mkimage "$tree" "$img" --geometry $geo --layout mkyaffs2 --blocks 64 >/dev/null || { fail "mkimage $geo failed"; continue; }
  mkdir "$out"
  log=$( (cd "$out" && unyaffs "$img") 2>&1 ) || fail "unyaffs failed on the $geo image: $log"
  grep -qi "invalid\|broken\|error" <<<"$log" && fail "unyaffs complains about the $geo image: $log"
  python3 "$(dirname "$0")/same_tree.py" "$tree" "$out" --link-group hard-to-multi.bin,usr/lib/multi.bin ||
    fail "unyaffs's extraction of the $geo image differs from the tree"
  # Sized by mkimage (the tree and 4 erased blocks): the erased end is 0xFF
  # bytes, not a hole unyaffs would read as zeros.
  sized=$TMP/sized-$geo.img
  "$NK" mkimage "$tree" "$sized" --geometry $geo --layout mkyaffs2 --no-progress > /dev/null 2>&1 ||
    fail "mkimage of a sized $geo image failed"
  mkdir "$out-sized"
  log=$( (cd "$out-sized" && unyaffs "$sized") 2>&1 ) || fail "unyaffs failed on the sized $geo image: $log"
  python3 "$(dirname "$0")/same_tree.py" "$tree" "$out-sized" ||
    fail "unyaffs's extraction of the sized $geo image differs from the tree"
  # nandkit reads its own image back too
  "$NK" fsck "$img" --geometry $geo --layout mkyaffs2 >/dev/null || fail "fsck of the $geo mkyaffs2 image failed"
done

nk_test_end "all unyaffs checks passed"

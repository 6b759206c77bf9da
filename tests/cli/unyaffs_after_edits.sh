#!/usr/bin/env bash
# An mkyaffs2-layout image changed by put, rm, mv, mkdir and chmod is YAFFS2
# that Debian's unyaffs cannot extract (it reads only a freshly built image:
# docs/cli.md, "Repacking an image"); `mkimage --from IMAGE IMAGE` repacks it
# in place, and unyaffs then extracts exactly the changed tree: names, file
# bytes, modes (setuid included), file times, symlink targets, hard-link
# groups, on 2 KiB and 4 KiB pages. And a repack of a freshly built image is
# the image itself, byte for byte, in every layout: `--from` builds what
# mkimage builds from a directory holding the tree.
# usage: unyaffs_after_edits.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
nk_test_need unyaffs test

tree=$TMP/tree
mkdir -p "$tree/etc/init.d" "$tree/usr/lib" "$tree/old-dir"
head -c 20000 /dev/urandom > "$tree/usr/lib/multi.bin"  # 10 chunks of 2 KiB
head -c 4096 /dev/urandom > "$tree/usr/lib/exact.bin"
printf 'root:x:0:0::/root:/bin/sh\n' > "$tree/etc/passwd"
printf '#!/bin/sh\necho start\n' > "$tree/etc/init.d/rcS"
printf 'gone\n' > "$tree/etc/remove-me"
chmod 4755 "$tree/etc/init.d/rcS"
ln "$tree/usr/lib/multi.bin" "$tree/hard-1"
ln "$tree/usr/lib/multi.bin" "$tree/etc/hard-2"
ln -s ../usr/lib/multi.bin "$tree/etc/sym-rel"
ln -s /etc/passwd "$tree/sym-abs"
touch -d '2020-02-02 12:00:00' "$tree/etc/passwd" "$tree/usr/lib/exact.bin"

# Every layout: a repack of a built image is that image.
for layout in mkyaffs2 linux inband; do
  img=$TMP/same-$layout.img
  "$NK" mkimage "$tree" "$img" --geometry 2048,64,64,40 --layout $layout --no-progress > /dev/null 2>&1 ||
    { fail "mkimage --layout $layout failed"; continue; }
  "$NK" mkimage --from "$img" "$TMP/repacked-$layout.img" --layout $layout --no-progress \
    > "$TMP/out" 2>&1 || { fail "mkimage --from ($layout) failed: $(cat "$TMP/out")"; continue; }
  cmp -s "$img" "$TMP/repacked-$layout.img" ||
    fail "$layout: mkimage --from of a freshly built image is not that image byte for byte"
done

# The changes, made to the image and to a host copy of the tree alike.
expected=$TMP/expected
cp -a "$tree" "$expected"
head -c 7000 /dev/urandom > "$expected/usr/lib/new.bin"
touch -d '2021-03-03 03:03:03' "$expected/usr/lib/new.bin"
printf 'root:x:0:0::/root:/bin/bash\n' > "$expected/etc/passwd"
touch -d '2022-04-04 04:04:04' "$expected/etc/passwd"
rm "$expected/etc/remove-me" "$expected/hard-1"
mkdir -m 0750 "$expected/new-dir"
mv "$expected/usr/lib/exact.bin" "$expected/new-dir/exact.bin"
rmdir "$expected/old-dir"
chmod 0600 "$expected/etc/init.d/rcS"

compare() {  # compare HOST_TREE EXTRACTED LABEL
  diff -r --no-dereference "$1" "$2" > "$TMP/diff" 2>&1 || fail "$3: diff -r: $(head -5 "$TMP/diff")"
  python3 "$(dirname "$0")/same_tree.py" "$1" "$2" --mtimes --link-group etc/hard-2,usr/lib/multi.bin ||
    fail "$3: the extracted tree differs from the changed one"
}

for geo in 2048,64,64 4096,128,64; do
  img=$TMP/img-$geo.img
  G=(--geometry $geo,64 --layout mkyaffs2)
  "$NK" mkimage "$tree" "$img" "${G[@]}" --no-progress > /dev/null 2>&1 || { fail "mkimage $geo failed"; continue; }
  ok=1
  run() { "$NK" "$@" "${G[@]}" > "$TMP/out" 2>&1 || { fail "$geo: nandkit $*: $(cat "$TMP/out")"; ok=0; }; }
  run put "$img" "$expected/usr/lib/new.bin" /usr/lib/new.bin
  run put "$img" "$expected/etc/passwd" /etc/passwd
  run rm "$img" /etc/remove-me
  run rm "$img" /hard-1
  run mkdir --mode 0750 "$img" /new-dir
  run mv "$img" /usr/lib/exact.bin /new-dir/exact.bin
  run rm "$img" /old-dir
  run chmod "$img" 0600 /etc/init.d/rcS
  [[ $ok == 1 ]] || continue

  # The limit the help texts state: unyaffs does not read the changed image.
  mkdir "$TMP/before-$geo"
  (cd "$TMP/before-$geo" && unyaffs "$img") > "$TMP/log" 2>&1
  grep -q "Invalid header" "$TMP/log" ||
    fail "$geo: unyaffs read the changed image without complaint: the docs' limit is out of date"

  # Repacked in place, it reads the changed tree.
  "$NK" mkimage --from "$img" "$img" "${G[@]}" --no-progress > "$TMP/out" 2>&1 ||
    { fail "$geo: mkimage --from in place failed: $(cat "$TMP/out")"; continue; }
  ls "$TMP"/img-$geo.img.nktmp-* > /dev/null 2>&1 && fail "$geo: the repack left a temporary file"
  out=$TMP/out-$geo
  mkdir "$out"
  log=$( (cd "$out" && unyaffs "$img") 2>&1 ) || fail "$geo: unyaffs failed on the repacked image: $log"
  grep -qi "invalid\|broken\|error\|duplicate" <<< "$log" && fail "$geo: unyaffs complains about the repacked image: $log"
  compare "$expected" "$out" "$geo"
  "$NK" fsck "$img" "${G[@]}" > /dev/null 2>&1 || fail "$geo: fsck of the repacked image failed"
done

# The source is read as told; bad combinations are refused with exit status 2.
"$NK" mkimage --from-layout mkyaffs2 "$tree" "$TMP/x.img" --geometry 2048,64,64 > "$TMP/out" 2>&1
[[ $? == 2 ]] && grep -q -- "--from SRC_IMAGE" "$TMP/out" || fail "--from-layout without --from: $(cat "$TMP/out")"
"$NK" mkimage --from "$TMP/img-2048,64,64.img" "$tree" "$TMP/x.img" --layout mkyaffs2 > "$TMP/out" 2>&1
[[ $? == 2 ]] || fail "--from with SRC_DIR too was not refused: $(cat "$TMP/out")"
"$NK" mkimage --from "$TMP/missing.img" "$TMP/x.img" --layout mkyaffs2 --geometry 2048,64,64 > "$TMP/out" 2>&1
[[ $? == 4 ]] && grep -q "missing.img" "$TMP/out" || fail "a missing SRC_IMAGE: $(cat "$TMP/out")"
# Read with --from-geometry and --from-layout, built into another layout.
"$NK" mkimage --from "$TMP/img-2048,64,64.img" --from-layout mkyaffs2 --from-geometry 2048,64,64,64 \
  "$TMP/linux.img" --layout linux --geometry 2048,64,64 --no-progress > "$TMP/out" 2>&1 ||
  fail "mkimage --from into the linux layout failed: $(cat "$TMP/out")"
mkdir "$TMP/linux-out"
"$NK" extract "$TMP/linux.img" "$TMP/linux-out" --layout linux > "$TMP/out" 2>&1 ||
  fail "extract of the repacked linux image failed: $(cat "$TMP/out")"
rmdir "$TMP/linux-out/lost+found"  # extract makes YAFFS2's own, empty here
compare "$expected" "$TMP/linux-out" "linux repack"

nk_test_end "all unyaffs-after-edits checks passed"

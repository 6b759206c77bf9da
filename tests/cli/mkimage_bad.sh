#!/usr/bin/env bash
# mkimage and known bad blocks: a Linux bad-block table on the chip keeps its
# blocks (the build neither erases nor uses them) and the table still reads
# afterwards; the mkyaffs2 layout on a chip with factory-bad blocks skips
# them (markers intact) instead of failing on the first, and says it cannot
# mark them.
# usage: mkimage_bad.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
expect() {
  local want=$1 pattern=$2; shift 3
  local out status
  out=$("$@" 2>&1); status=$?
  if [[ $status -ne $want ]]; then fail "'$*' exited $status, wanted $want: $out"; return; fi
  grep -Eq -- "$pattern" <<<"$out" || fail "'$*' output lacks /$pattern/: $out"
}
mkdir -p "$TMP/tree/d"
head -c 50000 /dev/urandom > "$TMP/tree/d/data.bin"
echo hi > "$TMP/tree/hello.txt"
chip="--chip K9F1G08U0A"

# a Linux BBT on flash: its blocks are kept
img=$TMP/bbt.img
"$NK" sim create "$img" $chip --bad-blocks 5,10 >/dev/null
"$NK" badblocks "$img" $chip --write-bbt >/dev/null
before=$(python3 -c "
import sys, hashlib
d = open('$img', 'rb').read(); blk = 64 * 2112
print(hashlib.sha256(d[1020 * blk:]).hexdigest())")
expect 0 "Linux BBT on flash \(main block 1023, mirror block 1022\): blocks 1020-1023 keep it" -- \
  "$NK" mkimage "$TMP/tree" "$img" $chip
after=$(python3 -c "
import sys, hashlib
d = open('$img', 'rb').read(); blk = 64 * 2112
print(hashlib.sha256(d[1020 * blk:]).hexdigest())")
[[ $before == "$after" ]] || fail "mkimage changed the bad-block table's blocks"
expect 0 "source       table on flash" -- "$NK" badblocks "$img" $chip
expect 0 "total        2 bad of 1024 blocks \(2 factory, 0 worn\)" -- "$NK" badblocks "$img" $chip
expect 0 "0 problems" -- "$NK" fsck "$img" $chip
cmp -s <("$NK" cat "$img" /d/data.bin $chip) "$TMP/tree/d/data.bin" || fail "data.bin differs after building around the table"

# mkyaffs2 on a chip with factory-bad blocks: skipped, and said
img2=$TMP/mk.img
"$NK" sim create "$img2" $chip --bad-blocks 1,3 >/dev/null
expect 0 "bad blocks: 2 known .*the mkyaffs2 layout cannot mark them" -- \
  "$NK" mkimage "$TMP/tree" "$img2" $chip --layout mkyaffs2
# the tree fits block 0; unyaffs knows no bad blocks, and the image holds
# the factory-bad blocks 1 and 3 as the chip does (what the factory test
# left, markers included): it reads block 0 back
mkdir "$TMP/un"
head -c $(((2048 + 64) * 64)) "$img2" > "$TMP/block0.img" # K9F1G08U0A: 64 pages of 2048+64
(cd "$TMP/un" && unyaffs "$TMP/block0.img" >/dev/null 2>&1) || fail "unyaffs failed on the mkyaffs2 image"
cmp -s "$TMP/un/d/data.bin" "$TMP/tree/d/data.bin" || fail "mkyaffs2 data.bin differs (unyaffs)"
for b in 1 3; do
  "$NK" read "$img2" $chip --layout mkyaffs2 --bb=dumpbad --noecc --oob -s $((b * 64 * 2048)) -l 4KiB -q -f "$TMP/b$b.bin"
  python3 -c "import sys; d = open(sys.argv[1], 'rb').read(); sys.exit(0 if d[2048] == 0 and d[2112 + 2048] == 0 else 1)" "$TMP/b$b.bin" || fail "mkimage wrote into factory-bad block $b"
done

nk_test_end "all mkimage bad-block checks passed"

#!/usr/bin/env bash
# Tools that only look never write: every analysis command leaves an image's
# bytes and its directory listing unchanged (no bad-block table, no sidecar),
# on a simulator image, on a raw dump made elsewhere and on a YAFFS2 image.
# `info IMAGE --geometry` reports what the file says and invents no chip;
# the presets' block counts agree between `sim list` and `info`.
# usage: safe_defaults.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
fixtures=$2
expect() {
  local want=$1 pattern=$2; shift 3
  local out status
  out=$("$@" 2>&1); status=$?
  if [[ $status -ne $want ]]; then fail "'$*' exited $status, wanted $want: $out"; return; fi
  grep -Eq -- "$pattern" <<<"$out" || fail "'$*' output lacks /$pattern/: $out"
}
# state DIR: every file's checksum plus the listing (names, sizes, modes, mtimes)
state() { (cd "$1" && ls -lA --time-style=full-iso . && sha256sum -- * 2>/dev/null); }

# A simulator image with factory-bad blocks, a raw dump without a sidecar
# (bad markers, data, no table), and a YAFFS2 image from Linux.
mkdir "$TMP/sim" "$TMP/dump" "$TMP/fs"
"$NK" sim create --full "$TMP/sim/chip.img" --geometry 2048,64,64,64 --bad-blocks 5,9 >/dev/null
head -c $((6 * 64 * 2048)) /dev/urandom > "$TMP/data.bin"
"$NK" write "$TMP/sim/chip.img" "$TMP/data.bin" --geometry 2048,64,64,64 -q
"$NK" read "$TMP/sim/chip.img" --geometry 2048,64,64,64 --oob --noecc --bb=dumpbad -q -f "$TMP/dump/raw.bin"
xz -dc "$fixtures/yaffs2/linux-2k-nockpt.img.xz" > "$TMP/fs/fs.img"
geo="--geometry 2048,64,64"

look() { # DIR -- command...: the command must succeed (or fail as told) and change nothing
  local dir=$1 want=$2; shift 3
  local before; before=$(state "$dir")
  "$@" >/dev/null 2>&1; local status=$?
  [[ $status -eq $want ]] || fail "'$*' exited $status, wanted $want"
  local after; after=$(state "$dir")
  [[ $after == "$before" ]] || fail "'$*' changed $dir: $(diff <(echo "$before") <(echo "$after"))"
}
for img in "$TMP/sim/chip.img" "$TMP/dump/raw.bin"; do
  d=$(dirname "$img")
  look "$d" 0 -- "$NK" info "$img" $geo
  look "$d" 0 -- "$NK" info "$img" $geo --json
  [[ $d == "$TMP/dump" ]] && look "$d" 0 -- "$NK" info "$img" --chip K9F1G08U0A
  look "$d" 0 -- "$NK" badblocks "$img" $geo
  look "$d" 0 -- "$NK" badblocks "$img" $geo --scan
  look "$d" 0 -- "$NK" badblocks "$img" $geo --json
  look "$d" 0 -- "$NK" badblocks "$img" $geo --dry-run
  look "$d" 0 -- "$NK" dump "$img" $geo --page 64
  look "$d" 0 -- "$NK" dump "$img" $geo --page 320 --raw
  look "$d" 0 -- "$NK" read "$img" $geo -f /dev/null -q
  look "$d" 0 -- "$NK" read "$img" $geo --oob --noecc --bb=padbad -f /dev/null -q
  look "$d" 2 -- "$NK" bench "$img" $geo --count 8 --block-count 1 --no-progress
  look "$d" 2 -- "$NK" bench "$img" $geo --blocks 10-20 --count 8 --block-count 1 --no-progress
  look "$d" 2 -- "$NK" torture "$img" $geo --blocks 10-20
  look "$d" 2 -- "$NK" erase "$img" $geo
  look "$d" 2 -- "$NK" badblocks "$img" $geo --mark 3
done
[[ ! -e $TMP/dump/raw.bin.nksim ]] || fail "an analysis command created a sidecar beside a dump"
d=$TMP/fs
look "$d" 0 -- "$NK" info "$d/fs.img" $geo
look "$d" 0 -- "$NK" badblocks "$d/fs.img" $geo
look "$d" 0 -- "$NK" ls -R "$d/fs.img" $geo
look "$d" 0 -- "$NK" ls -R --json "$d/fs.img" $geo
look "$d" 0 -- "$NK" cat "$d/fs.img" /etc/passwd.bak $geo
look "$d" 0 -- "$NK" fsck "$d/fs.img" $geo
look "$d" 0 -- "$NK" dump "$d/fs.img" $geo --page 0
look "$d" 0 -- "$NK" extract "$d/fs.img" "$TMP/out" $geo
look "$d" 0 -- "$NK" read "$d/fs.img" $geo -l 1MiB -f "$TMP/fs-head.bin" -q
[[ ! -e $d/fs.img.nksim ]] || fail "an analysis command created a sidecar beside a YAFFS2 image"

# writing the table is asked for, says where it went, and then is found
expect 0 "main table   block 63, version 1 \(written\)" -- "$NK" badblocks "$TMP/dump/raw.bin" $geo --write-bbt
[[ ! -e $TMP/dump/raw.bin.nksim ]] || fail "badblocks --write-bbt created a sidecar beside a dump"
expect 0 "source       table on flash" -- "$NK" badblocks "$TMP/dump/raw.bin" $geo

# info IMAGE --geometry: the file's facts, no invented chip
out=$("$NK" info "$TMP/fs/fs.img" $geo)
for invented in Samsung K9F1G08 "tR " "datasheet allows" "^id " "onfi" "limit"; do
  grep -Eq -- "$invented" <<<"$out" && fail "info IMAGE --geometry invents '$invented': $out"
done
grep -q "not identified: an image file carries no ID" <<<"$out" || fail "info does not say the chip is unknown: $out"
grep -q "layout guess  linux" <<<"$out" || fail "info does not guess the Linux layout: $out"
expect 0 "layout guess  mkyaffs2" -- bash -c "xz -dc '$fixtures/yaffs2/mkyaffs2-2k.img.xz' > '$TMP/mk.img' && '$NK' info '$TMP/mk.img' $geo"
expect 0 "not bad-block markers" -- "$NK" info "$TMP/mk.img" $geo
expect 0 "layout guess  none: no YAFFS2 tags" -- "$NK" info "$TMP/dump/raw.bin" $geo
expect 0 "bad blocks    2 found .*: 5, 9" -- "$NK" info "$TMP/dump/raw.bin" $geo
expect 0 '"identified":false,.*"marked_bad":2' -- "$NK" info "$TMP/dump/raw.bin" $geo --json

# presets agree: sim list and info --chip tell the same block counts
while read -r name; do
  info_blocks=$("$NK" info --chip "$name" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["blocks"])')
  listed=$("$NK" sim list | awk -v n="$name" '$1 == n { print $6 }')
  note=$("$NK" sim list | grep -A1 "^$name " | grep -o "identification uses [0-9]*" | grep -o "[0-9]*$")
  if [[ $info_blocks != "$listed" && $info_blocks != "$note" ]]; then
    fail "$name: sim list says $listed blocks, info --chip says $info_blocks, and sim list does not say so"
  fi
done < <("$NK" sim list | awk 'NR > 1 && /^[^ ]/ { print $1 }')
expect 0 "identification uses 1024 of the 1048 blocks" -- "$NK" sim list
expect 0 "the part has 1048 blocks; identification uses 1024" -- "$NK" info --chip MT29F32G08ABCDB

nk_test_end "all safe-default checks passed"

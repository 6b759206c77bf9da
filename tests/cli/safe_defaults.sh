#!/usr/bin/env bash
# Tools that only look never write: every analysis command leaves an image's
# bytes and its directory listing unchanged (no bad-block table, no sidecar),
# on a simulator image, on a raw dump made elsewhere and on a YAFFS2 image.
# `info IMAGE --geometry` reports what the file says and invents no chip;
# the presets' block counts agree between `sim list` and `info`.
# usage: safe_defaults.sh NANDKIT_BINARY FIXTURES_DIR
set -u
nk=$1
fixtures=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
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
mkdir "$tmp/sim" "$tmp/dump" "$tmp/fs"
"$nk" sim create --full "$tmp/sim/chip.img" --geometry 2048,64,64,64 --bad-blocks 5,9 >/dev/null
head -c $((6 * 64 * 2048)) /dev/urandom > "$tmp/data.bin"
"$nk" write "$tmp/sim/chip.img" "$tmp/data.bin" --geometry 2048,64,64,64 -q
"$nk" read "$tmp/sim/chip.img" --geometry 2048,64,64,64 --oob --noecc --bb=dumpbad -q -f "$tmp/dump/raw.bin"
xz -dc "$fixtures/yaffs2/linux-2k-nockpt.img.xz" > "$tmp/fs/fs.img"
geo="--geometry 2048,64,64"

look() { # DIR -- command...: the command must succeed (or fail as told) and change nothing
  local dir=$1 want=$2; shift 3
  local before; before=$(state "$dir")
  "$@" >/dev/null 2>&1; local status=$?
  [[ $status -eq $want ]] || fail "'$*' exited $status, wanted $want"
  local after; after=$(state "$dir")
  [[ $after == "$before" ]] || fail "'$*' changed $dir: $(diff <(echo "$before") <(echo "$after"))"
}
for img in "$tmp/sim/chip.img" "$tmp/dump/raw.bin"; do
  d=$(dirname "$img")
  look "$d" 0 -- "$nk" info "$img" $geo
  look "$d" 0 -- "$nk" info "$img" $geo --json
  [[ $d == "$tmp/dump" ]] && look "$d" 0 -- "$nk" info "$img" --chip K9F1G08U0A
  look "$d" 0 -- "$nk" badblocks "$img" $geo
  look "$d" 0 -- "$nk" badblocks "$img" $geo --scan
  look "$d" 0 -- "$nk" badblocks "$img" $geo --json
  look "$d" 0 -- "$nk" badblocks "$img" $geo --dry-run
  look "$d" 0 -- "$nk" dump "$img" $geo --page 64
  look "$d" 0 -- "$nk" dump "$img" $geo --page 320 --raw
  look "$d" 0 -- "$nk" read "$img" $geo -f /dev/null -q
  look "$d" 0 -- "$nk" read "$img" $geo --oob --noecc --bb=padbad -f /dev/null -q
  look "$d" 2 -- "$nk" bench "$img" $geo --count 8 --block-count 1 --no-progress
  look "$d" 2 -- "$nk" bench "$img" $geo --blocks 10-20 --count 8 --block-count 1 --no-progress
  look "$d" 2 -- "$nk" torture "$img" $geo --blocks 10-20
  look "$d" 2 -- "$nk" erase "$img" $geo
  look "$d" 2 -- "$nk" badblocks "$img" $geo --mark 3
done
[[ ! -e $tmp/dump/raw.bin.nksim ]] || fail "an analysis command created a sidecar beside a dump"
d=$tmp/fs
look "$d" 0 -- "$nk" info "$d/fs.img" $geo
look "$d" 0 -- "$nk" badblocks "$d/fs.img" $geo
look "$d" 0 -- "$nk" ls -R "$d/fs.img" $geo
look "$d" 0 -- "$nk" ls -R --json "$d/fs.img" $geo
look "$d" 0 -- "$nk" cat "$d/fs.img" /etc/passwd.bak $geo
look "$d" 0 -- "$nk" fsck "$d/fs.img" $geo
look "$d" 0 -- "$nk" dump "$d/fs.img" $geo --page 0
look "$d" 0 -- "$nk" extract "$d/fs.img" "$tmp/out" $geo
look "$d" 0 -- "$nk" read "$d/fs.img" $geo -l 1MiB -f "$tmp/fs-head.bin" -q
[[ ! -e $d/fs.img.nksim ]] || fail "an analysis command created a sidecar beside a YAFFS2 image"

# writing the table is asked for, says where it went, and then is found
expect 0 "main table   block 63, version 1 \(written\)" -- "$nk" badblocks "$tmp/dump/raw.bin" $geo --write-bbt
[[ ! -e $tmp/dump/raw.bin.nksim ]] || fail "badblocks --write-bbt created a sidecar beside a dump"
expect 0 "source       table on flash" -- "$nk" badblocks "$tmp/dump/raw.bin" $geo

# info IMAGE --geometry: the file's facts, no invented chip
out=$("$nk" info "$tmp/fs/fs.img" $geo)
for invented in Samsung K9F1G08 "tR " "datasheet allows" "^id " "onfi" "limit"; do
  grep -Eq -- "$invented" <<<"$out" && fail "info IMAGE --geometry invents '$invented': $out"
done
grep -q "not identified: an image file carries no ID" <<<"$out" || fail "info does not say the chip is unknown: $out"
grep -q "layout guess  linux" <<<"$out" || fail "info does not guess the Linux layout: $out"
expect 0 "layout guess  mkyaffs2" -- bash -c "xz -dc '$fixtures/yaffs2/mkyaffs2-2k.img.xz' > '$tmp/mk.img' && '$nk' info '$tmp/mk.img' $geo"
expect 0 "not bad-block markers" -- "$nk" info "$tmp/mk.img" $geo
expect 0 "layout guess  none: no YAFFS2 tags" -- "$nk" info "$tmp/dump/raw.bin" $geo
expect 0 "bad blocks    2 found .*: 5, 9" -- "$nk" info "$tmp/dump/raw.bin" $geo
expect 0 '"identified":false,.*"marked_bad":2' -- "$nk" info "$tmp/dump/raw.bin" $geo --json

# presets agree: sim list and info --chip tell the same block counts
while read -r name; do
  info_blocks=$("$nk" info --chip "$name" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["blocks"])')
  listed=$("$nk" sim list | awk -v n="$name" '$1 == n { print $6 }')
  note=$("$nk" sim list | grep -A1 "^$name " | grep -o "identification uses [0-9]*" | grep -o "[0-9]*$")
  if [[ $info_blocks != "$listed" && $info_blocks != "$note" ]]; then
    fail "$name: sim list says $listed blocks, info --chip says $info_blocks, and sim list does not say so"
  fi
done < <("$nk" sim list | awk 'NR > 1 && /^[^ ]/ { print $1 }')
expect 0 "identification uses 1024 of the 1048 blocks" -- "$nk" sim list
expect 0 "the part has 1048 blocks; identification uses 1024" -- "$nk" info --chip MT29F32G08ABCDB

if [[ $fails -ne 0 ]]; then echo "$fails check(s) failed"; exit 1; fi
echo "all safe-default checks passed"

#!/usr/bin/env bash
# The nandkit command: help, info, sim create, dump, badblocks, and one-line
# errors with exit status 2 on bad input.
# usage: basic.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
pass() { :; }

# expect STATUS PATTERN -- command...: exit status and a regex on stdout+stderr
expect() {
  local want=$1 pattern=$2; shift 3
  local out status
  out=$("$@" 2>&1); status=$?
  if [[ $status -ne $want ]]; then fail "'$*' exited $status, wanted $want: $out"; return; fi
  if ! grep -Eq -- "$pattern" <<<"$out"; then fail "'$*' output lacks /$pattern/: $out"; fi
}
# errors must be exactly one line
one_line() {
  local out; out=$("$@" 2>&1 >/dev/null)
  [[ $(wc -l <<<"$out") -eq 1 ]] || fail "'$*' printed more than one error line: $out"
}

expect 0 "Commands:" -- "$NK" --help
for cmd in info sim dump badblocks; do
  expect 0 "usage: nandkit $cmd" -- "$NK" "$cmd" --help
done
expect 2 "unknown command 'frobnicate'" -- "$NK" frobnicate

# info on a preset: identification through the port, limits from the datasheet
expect 0 "Samsung K9F1G08U0A" -- "$NK" info --chip K9F1G08U0A
expect 0 "page read 88.5 us, page program 363.5 us, block erase 2000.1 us" -- "$NK" info --chip K9F1G08U0A
expect 0 "onfi +1.0" -- "$NK" info --chip MT29F2G08ABAEA
expect 0 '"page_size":512' -- "$NK" info --chip K9F1208U0C --json
expect 2 "unknown chip 'NOPE'" -- "$NK" info --chip NOPE
one_line "$NK" info --chip NOPE

# sim create + badblocks: factory markers, then the table
img=$TMP/chip.img
expect 0 "created" -- "$NK" sim create "$img" --chip K9F1G08U0A --bad-blocks 5,10
[[ -f $img ]] || fail "sim create wrote no image"
[[ -f $img.nksim ]] || fail "sim create wrote no sidecar"
before=$(sha256sum "$img" | cut -d' ' -f1)
expect 0 "tables not written: add --write-bbt" -- "$NK" badblocks "$img" --chip K9F1G08U0A --dry-run
[[ $(sha256sum "$img" | cut -d' ' -f1) == "$before" ]] || fail "badblocks --dry-run changed the image"
expect 0 "tables not written: add --write-bbt" -- "$NK" badblocks "$img" --chip K9F1G08U0A
[[ $(sha256sum "$img" | cut -d' ' -f1) == "$before" ]] || fail "badblocks without --write-bbt changed the image"
expect 2 "--mark 7 writes the bad-block table: add --write-bbt" -- "$NK" badblocks "$img" --chip K9F1G08U0A --mark 7
expect 0 "wrote both tables" -- "$NK" badblocks "$img" --chip K9F1G08U0A --write-bbt
expect 0 "bad block    5 \(factory\)" -- "$NK" badblocks "$img" --chip K9F1G08U0A
expect 0 "source       table on flash" -- "$NK" badblocks "$img" --chip K9F1G08U0A
expect 0 "bad block    10 \(factory\)" -- "$NK" badblocks "$img" --chip K9F1G08U0A
expect 0 "main table   block 1023, version 1" -- "$NK" badblocks "$img" --chip K9F1G08U0A
expect 0 "bad block    7 \(worn\)" -- "$NK" badblocks "$img" --chip K9F1G08U0A --mark 7 --write-bbt
expect 0 "version 2" -- "$NK" badblocks "$img" --chip K9F1G08U0A
expect 0 "3 found" -- "$NK" info "$img" --chip K9F1G08U0A
expect 2 "--mark 5000 out of range" -- "$NK" badblocks "$img" --chip K9F1G08U0A --mark 5000 --write-bbt

# a power cut in the middle of writing the tables: a clear message, and the
# next run finds a consistent table (the cut one rebuilt from the markers)
cut=$TMP/cut.img
"$NK" sim create "$cut" --chip K9F1G08U0A --bad-blocks 5,10 >/dev/null
expect 1 "power cut at flash operation 2050, as --power-cut-after asked" -- \
  "$NK" badblocks "$cut" --chip K9F1G08U0A --power-cut-after 2050 --write-bbt
expect 0 "total        2 bad of 1024 blocks \(2 factory, 0 worn\)" -- \
  "$NK" badblocks "$cut" --chip K9F1G08U0A

# dump: hex of data and OOB, ECC status
expect 0 "oob \(64 bytes\)" -- "$NK" dump "$img" --chip K9F1G08U0A --page 0
expect 0 "ecc: hamming256, clean" -- "$NK" dump "$img" --chip K9F1G08U0A --page 64
expect 0 "42 62 74 30" -- "$NK" dump "$img" --chip K9F1G08U0A --page $((1023 * 64))
expect 2 "--page 70000 out of range" -- "$NK" dump "$img" --chip K9F1G08U0A --page 70000
expect 2 "needs --page" -- "$NK" dump "$img" --chip K9F1G08U0A

# bad input: geometry, missing files, sizes
expect 2 "page size 2000" -- "$NK" info "$img" --geometry 2000,64,64
expect 2 "bad --geometry '2048,64'" -- "$NK" info "$img" --geometry 2048,64
expect 4 "cannot open image '$TMP/missing.img'" -- "$NK" info "$TMP/missing.img" --geometry 2048,64,64
head -c 1000 /dev/zero > "$TMP/odd.img"
expect 2 "not a multiple of the 2112-byte page\+OOB size" -- "$NK" info "$TMP/odd.img" --geometry 2048,64,64
one_line "$NK" info "$TMP/odd.img" --geometry 2048,64,64
expect 2 "unknown layout 'fat'" -- "$NK" dump "$img" --chip K9F1G08U0A --layout fat --page 0
expect 0 "1024 of 1024 blocks present" -- "$NK" info "$img"
expect 2 "odd.img needs --geometry" -- "$NK" info "$TMP/odd.img"
expect 2 "sim create needs an IMAGE" -- "$NK" sim create
expect 2 "info: unknown option '--frob'" -- "$NK" info --frob
one_line "$NK" info --frob
expect 2 "dump: option '--page' needs a value" -- "$NK" dump "$img" --chip K9F1G08U0A --page
expect 2 "block 5000 out of range" -- "$NK" sim create "$TMP/x.img" --chip K9F1G08U0A --bad-blocks 5000,1

# --bad-blocks is always a list ("7" is block 7); a random count is its own option
"$NK" sim create "$TMP/b7.img" --geometry 2048,64,64,32 --bad-blocks 7 >/dev/null
expect 0 "total        1 bad of 32 blocks" -- "$NK" badblocks "$TMP/b7.img" --geometry 2048,64,64,32
expect 0 "bad block    7 \(factory\)" -- "$NK" badblocks "$TMP/b7.img" --geometry 2048,64,64,32
"$NK" sim create "$TMP/r3.img" --geometry 2048,64,64,32 --bad-blocks-random 3 >/dev/null
expect 0 "total        3 bad of 32 blocks" -- "$NK" badblocks "$TMP/r3.img" --geometry 2048,64,64,32
expect 2 "give --bad-blocks LIST or --bad-blocks-random N, not both" -- \
  "$NK" sim create "$TMP/x.img" --geometry 2048,64,64,32 --bad-blocks 7 --bad-blocks-random 3
expect 2 "bad --bad-blocks-random 'x'" -- "$NK" sim create "$TMP/x.img" --geometry 2048,64,64,32 --bad-blocks-random x

nk_test_end "all CLI checks passed"

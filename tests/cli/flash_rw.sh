#!/usr/bin/env bash
# nandkit read / write / erase / torture (nanddump, nandwrite, flash_erase,
# nandtest habits) and sim create --full: round trips through a full raw
# image with a factory-bad block in each --bb mode, ECC on the way, byte
# sizes with suffixes, explicit ranges for anything destructive, and reads
# that leave the image and its directory untouched.
# usage: flash_rw.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
expect() {
  local want=$1 pattern=$2; shift 3
  local out status
  out=$("$@" 2>&1); status=$?
  if [[ $status -ne $want ]]; then fail "'$*' exited $status, wanted $want: $out"; return; fi
  if ! grep -Eq -- "$pattern" <<<"$out"; then fail "'$*' output lacks /$pattern/: $out"; fi
}
one_line() {
  local out; out=$("$@" 2>&1 >/dev/null)
  [[ $(wc -l <<<"$out") -eq 1 ]] || fail "'$*' printed more than one error line: $out"
}
sum() { sha256sum "$1" | cut -d' ' -f1; }
listing() { ls -lA --time-style=full-iso "$TMP/$1" | sha256sum | cut -d' ' -f1; }

geo="--geometry 2048,64,64,16"
page=2048 rec=2112 ppb=64
mkdir "$TMP/chip"
img=$TMP/chip/c.img

# sim create --full: every block in the file, erased, block 3 factory-bad
expect 0 "created" -- "$NK" sim create --full "$img" $geo --bad-blocks 3,
[[ $(stat -c %s "$img") -eq $((16 * ppb * rec)) ]] || fail "sim create --full wrote $(stat -c %s "$img") bytes"
python3 - "$img" <<'EOF' || fail "sim create --full: not erased outside block 3, or no marker in block 3"
import sys
d = open(sys.argv[1], 'rb').read()
blk = 64 * 2112
for b in range(16):
    chunk = d[b * blk:(b + 1) * blk]
    if b == 3:
        assert chunk[2048] == 0 and chunk[2112 + 2048] == 0, "marker"
    else:
        assert chunk == b'\xff' * blk, b
EOF
sparse=$TMP/sparse.img
"$NK" sim create "$sparse" $geo >/dev/null
[[ $(stat -c %s "$sparse") -eq 0 ]] || fail "sim create without --full is not empty"

# write 5 blocks of data: block 3 is skipped, the data lands in 0,1,2,4,5
head -c $((5 * ppb * page)) /dev/urandom > "$TMP/in.bin"
expect 0 "block 3 \(0x60000\) is bad: skipped" -- "$NK" write "$img" "$TMP/in.bin" $geo
head -c $((ppb * page)) /dev/urandom > "$TMP/one.bin"
expect 0 '"start":1310720,"pages_written":64,.*"bad_blocks_skipped":0' -- "$NK" write "$img" "$TMP/one.bin" $geo --start 1280KiB --json

# read, each --bb mode, and the read leaves the image and its directory alone
before=$(sum "$img"); list=$(listing chip)
"$NK" read "$img" $geo -l 640KiB -f "$TMP/skip.bin" -q || fail "read --bb=skipbad failed"
cmp -s "$TMP/in.bin" "$TMP/skip.bin" || fail "read --bb=skipbad differs from what was written"
"$NK" read "$img" $geo -l 768KiB --bb=padbad -f "$TMP/pad.bin" -q || fail "read --bb=padbad failed"
python3 - "$TMP/in.bin" "$TMP/pad.bin" <<'EOF' || fail "read --bb=padbad: not the data with 0xFF for block 3"
import sys
src, got = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
blk = 64 * 2048
assert got == src[:3 * blk] + b'\xff' * blk + src[3 * blk:], "padbad"
EOF
"$NK" read "$img" $geo -l 768KiB --bb=dumpbad --noecc -f "$TMP/dump.bin" -q || fail "read --bb=dumpbad failed"
python3 - "$TMP/in.bin" "$TMP/dump.bin" "$img" <<'EOF' || fail "read --bb=dumpbad: block 3 is not the raw bad block"
import sys
src, got, raw = (open(p, 'rb').read() for p in sys.argv[1:])
blk = 64 * 2048
bad = b''.join(raw[(3 * 64 + p) * 2112:(3 * 64 + p) * 2112 + 2048] for p in range(64))
assert bad != b'\xff' * blk
assert got == src[:3 * blk] + bad + src[3 * blk:], "dumpbad"
EOF
"$NK" read "$img" $geo --oob --noecc --bb=dumpbad -f "$TMP/whole.bin" -q || fail "read --oob --noecc failed"
cmp -s "$img" "$TMP/whole.bin" || fail "read --oob --noecc --bb=dumpbad of the whole chip differs from the image file"
[[ $(sum "$img") == "$before" ]] || fail "read changed the image"
[[ $(listing chip) == "$list" ]] || fail "read changed the image's directory"
expect 0 '"pages":320,.*"bad_blocks":1,.*"truncated":false' -- "$NK" read "$img" $geo -l 640KiB -f "$TMP/j.bin" --json

# sizes: hex, suffixes, and bad ones named in one line
"$NK" read "$img" $geo -s 0x20000 -l 0x1000 -f "$TMP/a.bin" -q
"$NK" read "$img" $geo -s 128KiB -l 4KiB -f "$TMP/b.bin" -q
cmp -s "$TMP/a.bin" "$TMP/b.bin" || fail "-s 0x20000 and -s 128KiB read different bytes"
cmp -s "$TMP/a.bin" <(head -c $((128 * 1024 + 4096)) "$TMP/in.bin" | tail -c 4096) || fail "read -s 128KiB -l 4KiB: wrong bytes"
expect 2 "bad --start '12XB'" -- "$NK" read "$img" $geo -s 12XB
one_line "$NK" read "$img" $geo -s 12XB
expect 2 "--start 0x100 is not page aligned" -- "$NK" read "$img" $geo -s 0x100
expect 2 "unknown --bb 'maybe'" -- "$NK" read "$img" $geo --bb=maybe
# past the end with padbad: read to the end, as nanddump clamps its end address
expect 0 "runs past the end of the device: read to its end" -- \
  "$NK" read "$img" $geo --bb=padbad -s 1MiB -l 2MiB -f "$TMP/end.bin"
[[ $(stat -c %s "$TMP/end.bin") -eq $((1024 * 1024)) ]] || fail "padbad past the end wrote $(stat -c %s "$TMP/end.bin") bytes, not the last 1 MiB"

# ECC on the way: one flipped bit in page 0 is corrected, --noecc shows it
python3 - "$img" <<'EOF'
import sys
with open(sys.argv[1], 'r+b') as f:
    f.seek(100); b = f.read(1); f.seek(100); f.write(bytes([b[0] ^ 0x10]))
EOF
expect 0 "1 bitflip\(s\) corrected" -- "$NK" read "$img" $geo -l 2KiB -f "$TMP/e.bin"
cmp -s "$TMP/e.bin" <(head -c 2048 "$TMP/in.bin") || fail "read did not correct the flipped bit"
"$NK" read "$img" $geo -l 2KiB --noecc -f "$TMP/r.bin" -q
cmp -s "$TMP/r.bin" <(head -c 2048 "$TMP/in.bin") && fail "read --noecc corrected the flipped bit"
# two flips in one 256-byte step: uncorrectable, written as read, exit 1
python3 - "$img" <<'EOF'
import sys
with open(sys.argv[1], 'r+b') as f:
    f.seek(101); b = f.read(1); f.seek(101); f.write(bytes([b[0] ^ 0x01]))
EOF
expect 1 "1 page\(s\) uncorrectable, the first page 0" -- "$NK" read "$img" $geo -l 2KiB -f "$TMP/u.bin"
[[ $(stat -c %s "$TMP/u.bin") -eq 2048 ]] || fail "read did not write the uncorrectable page as read"

# write: whole pages unless --pad; with --oob and --noecc every byte as given
head -c 5000 /dev/urandom > "$TMP/odd.bin"
before=$(sum "$img")
expect 2 "not a whole number of 2048-byte pages: add --pad" -- "$NK" write "$img" "$TMP/odd.bin" $geo -s 1536KiB
[[ $(sum "$img") == "$before" ]] || fail "a refused write changed the image"
expect 0 "last page padded" -- "$NK" write "$img" "$TMP/odd.bin" $geo -s 1536KiB --pad
"$NK" read "$img" $geo -s 1536KiB -l 6144 -f "$TMP/p.bin" -q
cmp -s <(head -c 5000 "$TMP/p.bin") "$TMP/odd.bin" || fail "write --pad: data differs"
[[ $(tail -c 1144 "$TMP/p.bin" | tr -d '\377' | wc -c) -eq 0 ]] || fail "write --pad: padding is not 0xFF"
expect 1 "programming page .* failed.*erase" -- "$NK" write "$img" "$TMP/odd.bin" $geo -s 1536KiB --pad

# erase needs an explicit range; bad blocks skipped; then a raw round trip
before=$(sum "$img")
expect 2 "erase needs IMAGE\|/dev/mtdN, START and COUNT" -- "$NK" erase "$img" $geo
expect 2 "START 0x1000 is not block aligned" -- "$NK" erase "$img" $geo 0x1000 1
expect 2 "COUNT 20 from block 0 runs past the end" -- "$NK" erase "$img" $geo 0 20
[[ $(sum "$img") == "$before" ]] || fail "a refused erase changed the image"
expect 0 "erased 5 of 6 blocks from block 0 \(0x0\): 1 bad skipped" -- "$NK" erase "$img" $geo 0 6
"$NK" read "$img" $geo -l 640KiB -f "$TMP/erased.bin" -q
[[ $(tr -d '\377' < "$TMP/erased.bin" | wc -c) -eq 0 ]] || fail "erase left data behind"
# an OOB-carrying image back in raw: byte-identical pages
python3 - "$TMP/whole.bin" "$TMP/raw5.bin" <<'EOF'
import sys
d = open(sys.argv[1], 'rb').read()
blk = 64 * 2112
open(sys.argv[2], 'wb').write(d[:3 * blk] + d[4 * blk:6 * blk])
EOF
"$NK" write "$img" "$TMP/raw5.bin" $geo --oob --noecc -q || fail "write --oob --noecc failed"
"$NK" read "$img" $geo -l 640KiB --oob --noecc -f "$TMP/raw5.out" -q
cmp -s "$TMP/raw5.bin" "$TMP/raw5.out" || fail "write --oob --noecc then read --oob --noecc differ"
expect 0 '"erased":16,"bad_skipped":0' -- "$NK" erase "$sparse" $geo 0 0 --json

# a dump made elsewhere: no sidecar is created, and a short one is named as such
mkdir "$TMP/dump"
head -c $((10 * ppb * rec)) "$TMP/whole.bin" > "$TMP/dump/d.bin"
list=$(listing dump)
expect 0 "holds 1351680 of the chip's 2162688 bytes \(6 blocks short\).*nanddump skipping bad blocks" -- \
  "$NK" read "$TMP/dump/d.bin" $geo -l 2KiB -f /dev/null
expect 0 "\"erased\":1," -- "$NK" erase "$TMP/dump/d.bin" $geo 0 1 --quiet --json
[[ ! -e $TMP/dump/d.bin.nksim ]] || fail "erase created a sidecar beside a dump"

# an output that is a device or FIFO (/dev/null, a pipe) is written in place,
# never replaced by a temporary file renamed over it
mkfifo "$TMP/fifo"
cat "$TMP/fifo" > "$TMP/fifo.out" &
reader=$!
"$NK" read "$img" $geo -l 2KiB -f "$TMP/fifo" -q || fail "read -f FIFO failed"
if [[ -p $TMP/fifo ]]; then
  wait $reader
  [[ $(stat -c %s "$TMP/fifo.out") == 2048 ]] || fail "read -f FIFO: $(stat -c %s "$TMP/fifo.out") bytes through it"
else
  kill $reader; fail "read -f FIFO replaced the FIFO with a file"; rm -f "$TMP/fifo"; mkfifo "$TMP/fifo"
fi
cat "$TMP/fifo" > "$TMP/fifo.svg" &
reader=$!
"$NK" bench --chip K9F1G08U0A --count 4 --block-count 1 --no-progress --svg "$TMP/fifo" > "$TMP/bench.txt" ||
  fail "bench --svg FIFO failed"
if [[ -p $TMP/fifo ]]; then
  wait $reader
  grep -q "<svg" "$TMP/fifo.svg" || fail "bench --svg FIFO: no SVG came through"
else
  kill $reader; fail "bench --svg FIFO replaced the FIFO with a file"
fi

# torture: nothing without --destructive and a range; counts when it runs
before=$(sum "$img")
expect 2 "torture needs --blocks" -- "$NK" torture "$img" $geo --destructive
expect 2 "add --destructive" -- "$NK" torture "$img" $geo --blocks 8-9
expect 2 "bad --blocks '9-8'" -- "$NK" torture "$img" $geo --blocks 9-8 --destructive
[[ $(sum "$img") == "$before" ]] || fail "a refused torture changed the image"
head -c $((ppb * rec)) "$img" > "$TMP/block0.before"
expect 0 '"erases":8,"programs":384,.*"uncorrectable_pages":0,"uncorrectable_steps":0,"mismatched_pages":0,.*"failing_blocks":0' -- \
  "$NK" torture "$img" $geo --destructive --blocks 8+2 --cycles 3 --json
expect 0 "block 3: bad, skipped" -- "$NK" torture "$img" $geo --destructive --blocks 3 --cycles 1
cmp -s "$TMP/block0.before" <(head -c $((ppb * rec)) "$img") || fail "torture touched a block outside its range"
"$NK" read "$img" $geo -s 1MiB -l 256KiB -f "$TMP/t.bin" -q
[[ $(tr -d '\377' < "$TMP/t.bin" | wc -c) -eq 0 ]] || fail "torture did not leave its blocks erased"

nk_test_end "flash read/write: all checks passed"

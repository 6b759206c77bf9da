#!/usr/bin/env bash
# fsck and extract name paths: a chunk that fails its ECC is reported with
# the file's path (text and --json), extract still writes the file whole
# (the unreadable bytes as zeros) and says which file and how much; ecc
# --json reports per step.
# usage: fs_reports.sh NANDKIT_BINARY FIXTURES_DIR
set -u
nk=$1
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
geo="--geometry 2048,64,64,32"
mkdir -p "$tmp/tree/dir"
head -c 10000 /dev/urandom > "$tmp/tree/dir/big.bin"
echo hello > "$tmp/tree/small.txt"
"$nk" mkimage "$tmp/tree" "$tmp/fs.img" $geo >/dev/null || fail "mkimage failed"
expect 0 "0 problems" -- "$nk" fsck "$tmp/fs.img" $geo
expect 0 '"problem_total":0,.*"problems":\[\]' -- "$nk" fsck "$tmp/fs.img" $geo --json

# two flipped bits in one 256-byte Hamming step of big.bin's chunk 2 (bytes 4096..6143)
python3 - "$tmp/fs.img" "$tmp/tree/dir/big.bin" <<'EOF'
import sys
img = bytearray(open(sys.argv[1], 'rb').read())
src = open(sys.argv[2], 'rb').read()
at = img.find(src[4096:4096 + 64])
assert at >= 0 and at % 2112 == 0
img[at + 10] ^= 0x01
img[at + 20] ^= 0x01
open(sys.argv[1], 'wb').write(img)
EOF
expect 1 "problem: /dir/big.bin: data-ecc at block [0-9]+ page [0-9]+: chunk 3 of obj [0-9]+ uncorrectable" -- \
  "$nk" fsck "$tmp/fs.img" $geo
"$nk" fsck "$tmp/fs.img" $geo --json > "$tmp/fsck.json"
[[ $? -eq 1 ]] || fail "fsck --json on a damaged image did not exit 1"
python3 - "$tmp/fsck.json" <<'EOF' || fail "fsck --json does not name the damaged file"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["problem_total"] == 1, d
p = d["problems"][0]
assert p["kind"] == "data-ecc" and p["path"] == "/dir/big.bin" and p["chunk_id"] == 3, p
assert d["objects"]["files"] == 2
EOF

expect 1 "/dir/big.bin: 2048 of 10000 bytes unreadable \(uncorrectable ECC\), the first at byte 4096" -- \
  "$nk" extract "$tmp/fs.img" "$tmp/out" $geo
expect 1 "1 file\(s\) could not be read fully" -- "$nk" extract "$tmp/fs.img" "$tmp/out2" $geo
[[ $(stat -c %s "$tmp/out/dir/big.bin") -eq 10000 ]] || fail "extract left big.bin short"
cmp -s <(head -c 4096 "$tmp/out/dir/big.bin") <(head -c 4096 "$tmp/tree/dir/big.bin") || fail "extract: bytes before the bad chunk differ"
cmp -s <(tail -c 3856 "$tmp/out/dir/big.bin") <(tail -c 3856 "$tmp/tree/dir/big.bin") || fail "extract: bytes after the bad chunk differ"
[[ $(head -c 6144 "$tmp/out/dir/big.bin" | tail -c 2048 | tr -d '\0' | wc -c) -eq 0 ]] || fail "extract: the unreadable chunk is not zeros"
cmp -s "$tmp/out/small.txt" "$tmp/tree/small.txt" || fail "extract: small.txt differs"

# ecc --json
head -c 1024 /dev/urandom > "$tmp/e.bin"
"$nk" ecc calc --scheme bch8-512 "$tmp/e.bin" > "$tmp/codes.txt"
expect 0 '^\{"scheme":"bch8-512","step_bytes":512,"steps":2,"codes":\["[0-9a-f]{26}","[0-9a-f]{26}"\]\}$' -- \
  "$nk" ecc calc --scheme bch8-512 "$tmp/e.bin" --json
python3 -c "
import sys
d = bytearray(open('$tmp/e.bin', 'rb').read()); d[3] ^= 1; d[700] ^= 0x81
open('$tmp/e2.bin', 'wb').write(d)"
expect 0 '"steps":\[\{"step":0,"status":"corrected","bits":1\},\{"step":1,"status":"corrected","bits":2\}\],"corrected_bits":3,"uncorrectable_steps":0' -- \
  "$nk" ecc check --scheme bch8-512 "$tmp/e2.bin" --ecc-file "$tmp/codes.txt" --json

# an image that ends inside a block reads as docs/image-format.md promises:
# pages past its end are erased; a dump without sidecar gets a warning
xz -dc "$2/yaffs2/linux-2k-nockpt.img.xz" > "$tmp/full.img"
head -c $(((100 * 64 + 10) * 2112)) "$tmp/full.img" > "$tmp/mid.img"
expect 0 "it ends inside block 100" -- "$nk" ls -R "$tmp/mid.img" --geometry 2048,64,64
cmp -s <("$nk" cat "$tmp/mid.img" /etc/passwd.bak --geometry 2048,64,64 2>/dev/null) \
  <("$nk" cat "$tmp/full.img" /etc/passwd.bak --geometry 2048,64,64) || fail "cat differs on an image ending mid-block"
"$nk" fsck "$tmp/mid.img" --geometry 2048,64,64 >/dev/null 2>&1
[[ $? -le 1 ]] || fail "fsck refused an image that ends inside a block"

if [[ $fails -ne 0 ]]; then echo "$fails check(s) failed"; exit 1; fi
echo "all fs report checks passed"

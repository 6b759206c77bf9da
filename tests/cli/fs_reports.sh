#!/usr/bin/env bash
# fsck and extract name paths: a chunk that fails its ECC is reported with
# the file's path (text and --json), extract still writes the file whole
# (the unreadable bytes as zeros) and says which file and how much; ecc
# --json reports per step.
# usage: fs_reports.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
expect() {
  local want=$1 pattern=$2; shift 3
  local out status
  out=$("$@" 2>&1); status=$?
  if [[ $status -ne $want ]]; then fail "'$*' exited $status, wanted $want: $out"; return; fi
  grep -Eq -- "$pattern" <<<"$out" || fail "'$*' output lacks /$pattern/: $out"
}
geo="--geometry 2048,64,64,32"
mkdir -p "$TMP/tree/dir"
head -c 10000 /dev/urandom > "$TMP/tree/dir/big.bin"
echo hello > "$TMP/tree/small.txt"
"$NK" mkimage "$TMP/tree" "$TMP/fs.img" $geo >/dev/null || fail "mkimage failed"
expect 0 "0 problems" -- "$NK" fsck "$TMP/fs.img" $geo
expect 0 '"problem_total":0,.*"problems":\[\]' -- "$NK" fsck "$TMP/fs.img" $geo --json

# two flipped bits in one 256-byte Hamming step of big.bin's chunk 2 (bytes 4096..6143)
python3 - "$TMP/fs.img" "$TMP/tree/dir/big.bin" <<'EOF'
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
  "$NK" fsck "$TMP/fs.img" $geo
"$NK" fsck "$TMP/fs.img" $geo --json > "$TMP/fsck.json"
[[ $? -eq 1 ]] || fail "fsck --json on a damaged image did not exit 1"
python3 - "$TMP/fsck.json" <<'EOF' || fail "fsck --json does not name the damaged file"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["problem_total"] == 1, d
p = d["problems"][0]
assert p["kind"] == "data-ecc" and p["path"] == "/dir/big.bin" and p["chunk_id"] == 3, p
assert d["objects"]["files"] == 2
EOF

expect 1 "/dir/big.bin: 2048 of 10000 bytes unreadable \(uncorrectable ECC\), the first at byte 4096" -- \
  "$NK" extract "$TMP/fs.img" "$TMP/out" $geo
expect 1 "1 file\(s\) could not be read fully" -- "$NK" extract "$TMP/fs.img" "$TMP/out2" $geo
[[ $(stat -c %s "$TMP/out/dir/big.bin") -eq 10000 ]] || fail "extract left big.bin short"
cmp -s <(head -c 4096 "$TMP/out/dir/big.bin") <(head -c 4096 "$TMP/tree/dir/big.bin") || fail "extract: bytes before the bad chunk differ"
cmp -s <(tail -c 3856 "$TMP/out/dir/big.bin") <(tail -c 3856 "$TMP/tree/dir/big.bin") || fail "extract: bytes after the bad chunk differ"
[[ $(head -c 6144 "$TMP/out/dir/big.bin" | tail -c 2048 | tr -d '\0' | wc -c) -eq 0 ]] || fail "extract: the unreadable chunk is not zeros"
cmp -s "$TMP/out/small.txt" "$TMP/tree/small.txt" || fail "extract: small.txt differs"

# ecc --json
head -c 1024 /dev/urandom > "$TMP/e.bin"
"$NK" ecc calc --scheme bch8-512 "$TMP/e.bin" > "$TMP/codes.txt"
expect 0 '^\{"scheme":"bch8-512","step_bytes":512,"steps":2,"codes":\["[0-9a-f]{26}","[0-9a-f]{26}"\]\}$' -- \
  "$NK" ecc calc --scheme bch8-512 "$TMP/e.bin" --json
python3 -c "
import sys
d = bytearray(open('$TMP/e.bin', 'rb').read()); d[3] ^= 1; d[700] ^= 0x81
open('$TMP/e2.bin', 'wb').write(d)"
expect 0 '"steps":\[\{"step":0,"status":"corrected","bits":1\},\{"step":1,"status":"corrected","bits":2\}\],"corrected_bits":3,"uncorrectable_steps":0' -- \
  "$NK" ecc check --scheme bch8-512 "$TMP/e2.bin" --ecc-file "$TMP/codes.txt" --json

# an image that ends inside a block reads as docs/image-format.md promises:
# pages past its end are erased; a dump without sidecar gets a warning
xz -dc "$2/yaffs2/linux-2k-nockpt.img.xz" > "$TMP/full.img"
head -c $(((100 * 64 + 10) * 2112)) "$TMP/full.img" > "$TMP/mid.img"
expect 0 "it ends inside block 100" -- "$NK" ls -R "$TMP/mid.img" --geometry 2048,64,64
cmp -s <("$NK" cat "$TMP/mid.img" /etc/passwd.bak --geometry 2048,64,64 2>/dev/null) \
  <("$NK" cat "$TMP/full.img" /etc/passwd.bak --geometry 2048,64,64) || fail "cat differs on an image ending mid-block"
"$NK" fsck "$TMP/mid.img" --geometry 2048,64,64 >/dev/null 2>&1
[[ $? -le 1 ]] || fail "fsck refused an image that ends inside a block"

nk_test_end "all fs report checks passed"

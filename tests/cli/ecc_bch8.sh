#!/usr/bin/env bash
# --ecc bch8 on the file-system commands: mkimage with BCH-8 over 512-byte
# steps (in-band tags: Linux's BCH-8 layout leaves 10 free OOB bytes on a
# 2048+64 page), then ls / cat / extract / fsck, each run on a fresh copy of
# the image into which 8 bit errors per ECC step of every written page were
# flipped in the file (at seeded, known positions). Every file must read back
# identical and fsck must count exactly the bits flipped. A 9th flip in one
# step must be reported, not read back as data; the default ECC (Hamming)
# must not read the BCH image.
# usage: bash tests/cli/ecc_bch8.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"

geo=(--geometry 2048,64,64,64 --ecc bch8 --layout inband)
mkdir -p "$TMP/tree/dir/sub"
printf 'small\n' >"$TMP/tree/a.txt"
head -c 70000 /dev/urandom >"$TMP/tree/dir/big.bin"   # 35 chunks of 2032 bytes
head -c 2032 /dev/urandom >"$TMP/tree/dir/sub/exact.bin"
: >"$TMP/tree/empty"
ln -s dir/big.bin "$TMP/tree/link"
"$NK" mkimage "$TMP/tree" "$TMP/pristine.img" "${geo[@]}" >"$TMP/mk.out" 2>&1 ||
  { cat "$TMP/mk.out"; fail "mkimage --ecc bch8 --layout inband failed"; }

# flip IMAGE SEED PER_STEP [STEP_INDEX EXTRA]: flips PER_STEP distinct bits
# in each 512-byte step of every written page (data and that step's 13 code
# bytes, OOB 12 + 13*step, as Linux's BCH-8 layout puts them); EXTRA more in
# step STEP_INDEX of the first written page. Prints written pages and flips.
flip() {
  python3 - "$@" <<'EOF'
import random, sys
path, seed, per_step = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
extra_step = int(sys.argv[4]) if len(sys.argv) > 4 else -1
extra = int(sys.argv[5]) if len(sys.argv) > 5 else 0
rng = random.Random(seed)
page, oob = 2048, 64
d = bytearray(open(path, 'rb').read())
pages = len(d) // (page + oob)
written = flips = 0
first = True
for p in range(pages):
    base = p * (page + oob)
    if d[base:base + page + oob] == b'\xff' * (page + oob):
        continue
    written += 1
    for s in range(4):
        n = per_step + (extra if first and s == extra_step else 0)
        # the step's bits: 512 data bytes, then its 13 code bytes
        bits = [(base + s * 512) * 8 + b for b in range(512 * 8)]
        bits += [(base + page + 12 + 13 * s) * 8 + b for b in range(13 * 8)]
        for bit in rng.sample(bits, n):
            d[bit // 8] ^= 1 << (bit % 8)
            flips += 1
    first = False
open(path, 'wb').write(d)
print(written, flips)
EOF
}

# fresh NAME SEED: a copy of the pristine image with 8 flips per step.
fresh() {
  cp "$TMP/pristine.img" "$TMP/$1.img"
  read -r written flips < <(flip "$TMP/$1.img" "$2" 8)
  [[ $written -gt 0 && $flips -eq $((written * 32)) ]] ||
    fail "$1: injected $flips flips in $written pages, wanted 32 per page"
  cmp -s "$TMP/pristine.img" "$TMP/$1.img" && fail "$1: the injection changed nothing"
}

fresh ls 11
out=$("$NK" ls -R "$TMP/ls.img" / "${geo[@]}" 2>&1) || fail "ls with 8 flips per step failed: $out"
for name in a.txt dir/big.bin dir/sub/exact.bin empty link; do
  grep -q " /$name\( ->.*\)\?$" <<<"$out" || fail "ls -R lacks /$name: $out"
done

for f in a.txt dir/big.bin dir/sub/exact.bin empty; do
  fresh "cat$RANDOM" "$((${#f} * 7 + 3))"
  img=$(ls -t "$TMP"/cat*.img | head -1)
  "$NK" cat "$img" "/$f" "${geo[@]}" >"$TMP/got" 2>"$TMP/err" || fail "cat /$f failed: $(cat "$TMP/err")"
  cmp -s "$TMP/got" "$TMP/tree/$f" || fail "cat /$f does not read back identical"
  rm -f "$img"
done

fresh extract 23
"$NK" extract "$TMP/extract.img" "$TMP/out" "${geo[@]}" >/dev/null 2>"$TMP/err" ||
  fail "extract failed: $(cat "$TMP/err")"
rmdir "$TMP/out/lost+found" || fail "extract: no empty lost+found"
diff -r --no-dereference "$TMP/tree" "$TMP/out" || fail "extract: the tree differs"

fresh fsck 31
read -r written flips < <(cp "$TMP/pristine.img" "$TMP/f2.img"; flip "$TMP/f2.img" 31 8)
out=$("$NK" fsck "$TMP/fsck.img" "${geo[@]}" 2>&1) || fail "fsck with 8 flips per step: $out"
grep -q "0 problems" <<<"$out" || fail "fsck found problems: $out"
# Every written page is one chunk read once through the ECC; a read reports
# the most bits corrected in one of its steps, as Linux does: 8 per page.
[[ $flips -eq $((written * 32)) ]] || fail "fsck image: $flips flips in $written pages"
grep -q "chunks: $written written, $written live; $written read through the ECC, $written with corrected bitflips ($((written * 8)) bits)" <<<"$out" ||
  fail "fsck does not count 8 corrected bits in each of the $written chunks: $out"

# 9 flips in one step are beyond BCH-8: reported, never read as data.
cp "$TMP/pristine.img" "$TMP/nine.img"
flip "$TMP/nine.img" 5 0 1 9 >/dev/null
out=$("$NK" fsck "$TMP/nine.img" "${geo[@]}" 2>&1) && fail "fsck accepted 9 flips in one step: $out"
grep -Eq "ecc|ECC|unreadable" <<<"$out" || fail "fsck does not name the ECC failure: $out"

# The pristine image read with the wrong engine does not pass as data.
out=$("$NK" cat "$TMP/pristine.img" /a.txt --geometry 2048,64,64,64 --layout inband 2>&1) &&
  [[ "$out" == "small" ]] && fail "the BCH-8 image reads with the default Hamming engine"

nk_test_end "all passed"

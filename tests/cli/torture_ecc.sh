#!/usr/bin/env bash
# torture's ECC statistics against the bit errors the simulator injects
# (--bit-error-rate): with BCH-8 (no step beyond 8 flips at this rate, no
# pad bits in its code) every flipped bit torture read is accounted for
# exactly: corrected by the ECC, seen as not erased in an erased page, or
# in the OOB bytes no ECC covers. With Hamming at a high rate, steps with 2
# or more flips are uncorrectable and counted. Also --reads and --keep.
# usage: bash tests/cli/torture_ecc.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"

geo=(--geometry 2048,64,64,16)
img=$TMP/t.img
"$NK" sim create "$img" "${geo[@]}" --full >/dev/null || fail "sim create"

# field JSON NAME: one top-level number of torture's JSON.
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

# 1. No injected errors: everything zero, exit 0.
out=$("$NK" torture "$img" "${geo[@]}" --destructive -b 4-5 -c 2 --ecc bch8 -j) ||
  fail "torture without errors failed: $out"
for k in corrected_bits uncorrectable_pages uncorrectable_steps mismatched_pages not_erased_bits \
  oob_bits_outside_ecc injected_bitflips failing_blocks; do
  [[ $(field "$out" $k) == 0 ]] || fail "no errors injected, but $k = $(field "$out" $k)"
done

# 2. BCH-8 at 1e-4 per bit (~1.7 flips per 2112-byte page read): every
# injected flip is accounted for.
out=$("$NK" torture "$img" "${geo[@]}" --destructive -b 4-5 -c 3 --ecc bch8 \
  --bit-error-rate 1e-4 --seed 7 -j 2>"$TMP/err")
injected=$(field "$out" injected_bitflips)
corrected=$(field "$out" corrected_bits)
not_erased=$(field "$out" not_erased_bits)
oob=$(field "$out" oob_bits_outside_ecc)
[[ $injected -gt 100 ]] || fail "bch8: the simulator injected only $injected flips"
[[ $corrected -gt 0 ]] || fail "bch8: nothing corrected"
[[ $((corrected + not_erased + oob)) -eq $injected ]] ||
  fail "bch8: $corrected corrected + $not_erased not erased + $oob in OOB outside the ECC != $injected injected"
[[ $(field "$out" uncorrectable_pages) == 0 && $(field "$out" mismatched_pages) == 0 ]] ||
  fail "bch8 at 1e-4: uncorrectable or mismatched pages: $out"
worst=$(field "$out" worst_page_bitflips)
[[ $worst -ge 1 && $worst -le 8 ]] || fail "bch8: worst page $worst"
echo "bch8: injected $injected = corrected $corrected + not erased $not_erased + OOB $oob"

# 3. Hamming at 1e-3 per bit (~2 flips per 256-byte step): uncorrectable
# steps are counted; the flips in them are neither corrected nor lost.
out=$("$NK" torture "$img" "${geo[@]}" --destructive -b 6-7 -c 2 --ecc hamming \
  --bit-error-rate 1e-3 --seed 3 -j 2>"$TMP/err")
status=$?
[[ $status -eq 1 ]] || fail "hamming at 1e-3: exit $status, wanted 1 (blocks failing)"
injected=$(field "$out" injected_bitflips)
corrected=$(field "$out" corrected_bits)
not_erased=$(field "$out" not_erased_bits)
oob=$(field "$out" oob_bits_outside_ecc)
pages=$(field "$out" uncorrectable_pages)
steps=$(field "$out" uncorrectable_steps)
[[ $pages -gt 0 && $steps -ge $pages ]] || fail "hamming: $pages uncorrectable pages, $steps steps"
[[ $pages -le 256 ]] || fail "hamming: $pages uncorrectable pages of 256 verified"
# Each uncorrectable step holds at least 2 of the injected flips.
[[ $((corrected + not_erased + oob + 2 * steps)) -le $injected ]] ||
  fail "hamming: $corrected + $not_erased + $oob + 2 x $steps steps exceeds $injected injected"
[[ $(field "$out" worst_page_bitflips) == 1 ]] || fail "hamming corrects 1 bit per step"
echo "hamming: injected $injected, corrected $corrected, $pages uncorrectable pages ($steps steps)"

# 4. --reads N reads every page N times per cycle: N-1 more page reads per
# page, the same erases and programs.
one=$("$NK" torture "$img" "${geo[@]}" --destructive -b 8 -c 2 -j)
three=$("$NK" torture "$img" "${geo[@]}" --destructive -b 8 -c 2 -r 3 -j)
[[ $(field "$three" page_reads) -eq $(($(field "$one" page_reads) + 2 * 2 * 64)) ]] ||
  fail "--reads 3: $(field "$three" page_reads) page reads, wanted $(field "$one" page_reads) + 256"
[[ $(field "$three" programs) -eq $(field "$one" programs) && $(field "$three" reads) == 3 ]] ||
  fail "--reads 3 changed the programs or does not say 3 reads"
"$NK" torture "$img" "${geo[@]}" --destructive -b 8 -r 0 2>/dev/null && fail "--reads 0 accepted"

# 5. --keep puts the block back: written pages as they were (data and OOB),
# erased pages still erased. Without it the block is left erased.
head -c $((10 * 2048)) /dev/urandom >"$TMP/data"
"$NK" write "$img" "$TMP/data" "${geo[@]}" -s $((9 * 64 * 2048)) -q || fail "write for --keep"
"$NK" read "$img" "${geo[@]}" -s $((9 * 64 * 2048)) -l $((64 * 2048)) --oob --noecc \
  --bb=dumpbad -f "$TMP/before" -q || fail "read before --keep"
out=$("$NK" torture "$img" "${geo[@]}" --destructive -b 9 -c 2 -k 2>&1) || fail "torture -k: $out"
grep -q "10 page(s) put back" <<<"$out" || fail "torture -k does not say 10 pages were put back: $out"
"$NK" read "$img" "${geo[@]}" -s $((9 * 64 * 2048)) -l $((64 * 2048)) --oob --noecc \
  --bb=dumpbad -f "$TMP/after" -q || fail "read after --keep"
cmp -s "$TMP/before" "$TMP/after" || fail "torture --keep did not put block 9 back byte for byte"
"$NK" torture "$img" "${geo[@]}" --destructive -b 9 -c 1 -q || fail "torture without -k"
"$NK" read "$img" "${geo[@]}" -s $((9 * 64 * 2048)) -l $((64 * 2048)) --oob --noecc \
  --bb=dumpbad -f "$TMP/erased" -q
python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); sys.exit(0 if d==b"\xff"*len(d) else 1)' \
  "$TMP/erased" || fail "torture without --keep did not leave block 9 erased"

nk_test_end "all passed"

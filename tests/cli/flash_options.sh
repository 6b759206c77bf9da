#!/usr/bin/env bash
# The mtd-utils options of write (nandwrite -N, -k, -O, -b) and erase
# (flash_erase -N; -j/--jffs2 and -u/--unlock refused in one line).
# usage: bash tests/cli/flash_options.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"

geo=(--geometry 2048,64,64,16)
P=2048
B=$((64 * P))
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }
# page_raw IMAGE PAGE: page+OOB bytes as stored in the image file, in hex.
page_raw() { python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); p=int(sys.argv[2]); print(d[p*2112:(p+1)*2112].hex())' "$1" "$2"; }
ff_page=$(python3 -c 'print("ff" * 2112)')

# fresh: an erased chip whose block 3 is marked bad by a marker in the OOB
# of its page 1 (programmed raw; pages 2.. of block 3 stay programmable).
fresh() {
  rm -f "$TMP/f.img"
  "$NK" sim create "$TMP/f.img" "${geo[@]}" --full >/dev/null || fail "sim create"
  python3 -c 'import sys; sys.stdout.buffer.write(b"\xff" * 2048 + b"\x00" + b"\xff" * 63)' >"$TMP/marker"
  "$NK" write "$TMP/f.img" "$TMP/marker" "${geo[@]}" --oob --noecc -s $((3 * B + P)) -q ||
    fail "writing the marker"
}

# --- write -N/--noskipbad: the bad block is written into, not skipped.
head -c $((70 * P)) /dev/urandom >"$TMP/in"
fresh
out=$("$NK" write "$TMP/f.img" "$TMP/in" "${geo[@]}" -s $((3 * B + 2 * P)) -j 2>&1) ||
  fail "write skipping the bad block: $out"
[[ $(field "$out" bad_blocks_skipped) == 1 ]] || fail "write did not skip bad block 3: $out"
[[ $(page_raw "$TMP/f.img" $((3 * 64 + 2))) == "$ff_page" ]] || fail "write wrote into bad block 3"
fresh
out=$("$NK" write "$TMP/f.img" "$TMP/in" "${geo[@]}" -s $((3 * B + 2 * P)) -N -j 2>&1) ||
  fail "write -N: $out"
[[ $(field "$out" bad_blocks_skipped) == 0 ]] || fail "write -N skipped a block: $out"
"$NK" read "$TMP/f.img" "${geo[@]}" -s $((3 * B + 2 * P)) -l $((70 * P)) --bb=dumpbad -f "$TMP/got" -q ||
  fail "read back after write -N"
cmp -s "$TMP/in" "$TMP/got" || fail "write -N: block 3 does not hold the data from page 2 on"

# --- write -b/--blockalign 2: bad block 3 makes the whole group 2-3 skipped.
fresh
out=$("$NK" write "$TMP/f.img" "$TMP/in" "${geo[@]}" -s $((2 * B)) -b 2 -j 2>&1) ||
  fail "write -b 2: $out"
[[ $(field "$out" bad_blocks_skipped) == 2 ]] || fail "write -b 2 did not skip blocks 2 and 3: $out"
[[ $(page_raw "$TMP/f.img" $((2 * 64))) == "$ff_page" ]] || fail "write -b 2 wrote into block 2"
"$NK" read "$TMP/f.img" "${geo[@]}" -s $((4 * B)) -l $((70 * P)) --bb=dumpbad -f "$TMP/got" -q
cmp -s "$TMP/in" "$TMP/got" || fail "write -b 2: the data does not start at block 4"
fresh
out=$("$NK" write "$TMP/f.img" "$TMP/in" "${geo[@]}" -s $((2 * B)) -b 1 -j 2>&1)
[[ $(field "$out" bad_blocks_skipped) == 1 ]] || fail "write -b 1 skipped more than block 3: $out"
for bad in 3 0 -1 two; do
  out=$("$NK" write "$TMP/f.img" "$TMP/in" "${geo[@]}" -b "$bad" 2>&1) && fail "-b $bad accepted"
  [[ $out == "nandkit: bad --blockalign '$bad': 1, 2 or 4" ]] || fail "-b $bad: $out"
done
out=$("$NK" write "$TMP/f.img" "$TMP/in" "${geo[@]}" -b 2 -N 2>&1) && fail "-b 2 -N accepted"
grep -q "does not go with --noskipbad" <<<"$out" || fail "-b 2 -N: $out"

# --- write -k/--skip-all-ffs: all-0xFF pages are not programmed.
python3 - "$TMP/ffs" <<'EOF'
import os, sys
a, b = os.urandom(2048), os.urandom(2048)
open(sys.argv[1], 'wb').write(a + b'\xff' * 2048 + b + b'\xff' * 2048 * 2)
EOF
fresh
out=$("$NK" write "$TMP/f.img" "$TMP/ffs" "${geo[@]}" -s $((5 * B)) -k -j 2>&1) || fail "write -k: $out"
[[ $(field "$out" all_ff_pages_skipped) == 3 && $(field "$out" pages_written) == 2 ]] ||
  fail "write -k: wanted 2 pages written, 3 skipped: $out"
# The device's own program count (page 0 of the image file reads the same
# either way: a page programmed with 0xFF data and its code looks erased).
[[ $(field "$out" programs) == 2 ]] || fail "write -k: the device programmed $(field "$out" programs) pages, wanted 2"
fresh
out=$("$NK" write "$TMP/f.img" "$TMP/ffs" "${geo[@]}" -s $((5 * B)) -j 2>&1) || fail "write: $out"
[[ $(field "$out" programs) == 5 && $(field "$out" all_ff_pages_skipped) == 0 ]] ||
  fail "write without -k: wanted 5 programs: $out"

# --- write -O/--onlyoob: records of page+OOB, only the OOB is programmed.
python3 - "$TMP/oobrec" <<'EOF'
import os, sys
recs = b''
for i in range(3):
    recs += os.urandom(2048) + b'\xff\xff' + bytes([i + 1]) * 10 + b'\xff' * 52
open(sys.argv[1], 'wb').write(recs)
EOF
fresh
out=$("$NK" write "$TMP/f.img" "$TMP/oobrec" "${geo[@]}" -s $((6 * B)) -O -j 2>&1) || fail "write -O: $out"
[[ $(field "$out" only_oob) == True ]] || fail "write -O JSON: $out"
for i in 0 1 2; do
  got=$(page_raw "$TMP/f.img" $((6 * 64 + i)))
  want=$(python3 -c 'import sys; i=int(sys.argv[1]); print(("ff"*2048) + "ffff" + ("%02x" % (i+1))*10 + "ff"*52)' $i)
  [[ $got == "$want" ]] || fail "write -O page $i: data not left erased or OOB not as given"
done
out=$("$NK" write "$TMP/f.img" "$TMP/in" "${geo[@]}" -O 2>&1) && fail "write -O of a file without OOB records accepted"
grep -q "page+OOB records" <<<"$out" || fail "write -O on a data-only file: $out"

# --- erase -N/--noskipbad: the bad block is erased too; its marker goes.
fresh
out=$("$NK" erase "$TMP/f.img" 0 5 "${geo[@]}" -j 2>&1) || fail "erase: $out"
[[ $(field "$out" bad_skipped) == 1 && $(field "$out" erased) == 4 ]] || fail "erase did not skip block 3: $out"
[[ $(page_raw "$TMP/f.img" $((3 * 64 + 1))) != "$ff_page" ]] || fail "erase erased bad block 3"
out=$("$NK" erase "$TMP/f.img" 0 5 "${geo[@]}" -N -j 2>&1) || fail "erase -N: $out"
[[ $(field "$out" bad_skipped) == 0 && $(field "$out" erased) == 5 && $(field "$out" bad_erased) == 1 ]] ||
  fail "erase -N: $out"
[[ $(page_raw "$TMP/f.img" $((3 * 64 + 1))) == "$ff_page" ]] || fail "erase -N left block 3's marker"
out=$("$NK" erase "$TMP/f.img" 0 5 "${geo[@]}" -N 2>&1)
grep -q "block 3" <<<"$out" && fail "after erase -N block 3 is still reported: $out"

# --- erase --jffs2 and --unlock: refused in one line, the image untouched.
sum=$(sha256sum <"$TMP/f.img")
for opt in --jffs2 -u --unlock; do
  out=$("$NK" erase "$TMP/f.img" 0 1 "${geo[@]}" $opt 2>&1)
  status=$?
  [[ $status -eq 2 && $(wc -l <<<"$out") -eq 1 ]] || fail "erase $opt: exit $status: $out"
  grep -q "not supported" <<<"$out" || fail "erase $opt does not say it is not supported: $out"
done
grep -q "JFFS2 cleanmarkers" < <("$NK" erase "$TMP/f.img" 0 1 "${geo[@]}" --jffs2 2>&1) ||
  fail "erase --jffs2 does not name the cleanmarkers"
[[ $(sha256sum <"$TMP/f.img") == "$sum" ]] || fail "a refused erase changed the image"

# --help names every option.
for o in --noskipbad --skip-all-ffs --onlyoob --blockalign; do
  "$NK" write --help | grep -q -- "$o" || fail "write --help lacks $o"
done
for o in --noskipbad --jffs2 --unlock; do
  "$NK" erase --help | grep -q -- "$o" || fail "erase --help lacks $o"
done
for o in --keep --reads; do
  "$NK" torture --help | grep -q -- "$o" || fail "torture --help lacks $o"
done

nk_test_end "all passed"

#!/usr/bin/env bash
# nandkit ecc: codes of fixture records match Linux's, correct/check report
# and repair as the fixtures say, and bad input exits 2 with one line naming
# the bad value.
# usage: bash tests/cli/ecc.sh PATH_TO_nandkit FIXTURES_DIR
set -u
nandkit=$1
fixtures=$2/ecc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# field FILE ID FIELD TYPE: a string field of the record with that id and type
field() {
    grep "\"type\":\"$4\",\"id\":\"$2\"" "$fixtures/$1" | head -n 1 |
        sed -e "s/.*\"$3\":\"\\([0-9a-f]*\\)\".*/\\1/"
}

# number FILE ID FIELD TYPE
number() {
    grep "\"type\":\"$4\",\"id\":\"$2\"" "$fixtures/$1" | head -n 1 |
        sed -e "s/.*\"$3\":\\(-\\{0,1\\}[0-9]*\\).*/\\1/"
}

unhex() { xxd -r -p; }

# expect_exit CODE NEEDLE -- nandkit args...: exit status and one stderr
# line naming NEEDLE
expect_error() {
    local code=$1 needle=$2
    shift 3
    "$nandkit" "$@" >"$work/out" 2>"$work/err"
    local got=$?
    [ "$got" -eq "$code" ] || fail "nandkit $*: exit $got, want $code"
    [ "$(wc -l <"$work/err")" -eq 1 ] || fail "nandkit $*: want one line on stderr, got: $(cat "$work/err")"
    grep -qF -- "$needle" "$work/err" || fail "nandkit $*: message does not name '$needle': $(cat "$work/err")"
}

# ----- calc reproduces the stored codes ------------------------------------
for spec in hamming-256-linux.jsonl:hamming256 hamming-256-sm.jsonl:hamming256-sm \
    hamming-512-linux.jsonl:hamming512 hamming-512-sm.jsonl:hamming512-sm \
    bch-m13-t4-512.jsonl:bch4-512 bch-m13-t8-512.jsonl:bch8-512 \
    bch-m14-t8-1024.jsonl:bch8-1024 bch-m14-t16-1024.jsonl:bch16-1024; do
    file=${spec%%:*} scheme=${spec##*:}
    : >"$work/steps"
    : >"$work/want"
    for id in rand-000 rand-001 ff idx; do
        field "$file" "$id" data calc | unhex >>"$work/steps"
        field "$file" "$id" ecc calc >>"$work/want"
    done
    "$nandkit" ecc calc --scheme "$scheme" "$work/steps" >"$work/got" 2>"$work/err" ||
        fail "ecc calc --scheme $scheme exited $?: $(cat "$work/err")"
    cmp -s "$work/got" "$work/want" || fail "ecc calc --scheme $scheme: $(tr '\n' ' ' <"$work/got") != $(tr '\n' ' ' <"$work/want")"
done

# ----- correct: BCH-8, eight errors ------------------------------------------
file=bch-m13-t8-512.jsonl
id=$(grep '"type":"decode"' "$fixtures/$file" | grep '"case":"data"' | grep '"nerr":8,' |
    head -n 1 | sed -e 's/.*"id":"\([^"]*\)".*/\1/')
[ -n "$id" ] || fail "no 8-error record in $file"
field $file "$id" data decode | unhex >"$work/bad"
base=$(grep "\"type\":\"decode\",\"id\":\"$id\"" "$fixtures/$file" | sed -e 's/.*"base":"\([^"]*\)".*/\1/')
field $file "$base" data calc | unhex >"$work/good"
read_ecc=$(field $file "$id" read_ecc decode)
"$nandkit" ecc correct --scheme bch8-512 "$work/bad" --ecc "$read_ecc" -o "$work/fixed" >"$work/got" 2>"$work/err"
status=$?
[ $status -eq 0 ] || fail "ecc correct (8 errors) exited $status: $(cat "$work/err")"
[ "$(cat "$work/got")" = "corrected 8" ] || fail "ecc correct (8 errors) printed '$(cat "$work/got")'"
cmp -s "$work/fixed" "$work/good" || fail "ecc correct -o did not write the repaired data"

# check reports the same and leaves files alone
"$nandkit" ecc check --scheme bch8-512 "$work/bad" --ecc "$read_ecc" >"$work/got" 2>&1 ||
    fail "ecc check (8 errors) failed"
[ "$(cat "$work/got")" = "corrected 8" ] || fail "ecc check printed '$(cat "$work/got")'"

# ----- correct: an uncorrectable step among clean ones -------------------------
id=$(grep '"type":"decode"' "$fixtures/$file" | grep '"nerr":9,' | head -n 1 |
    sed -e 's/.*"id":"\([^"]*\)".*/\1/')
[ "$(number $file "$id" ret decode)" = "-74" ] || fail "fixture $id is not uncorrectable"
field $file rand-002 data calc | unhex >"$work/three"
field $file "$id" data decode | unhex >>"$work/three"
field $file rand-003 data calc | unhex >>"$work/three"
codes="$(field $file rand-002 ecc calc),$(field $file "$id" read_ecc decode),$(field $file rand-003 ecc calc)"
"$nandkit" ecc correct --scheme bch8-512 "$work/three" --ecc "$codes" >"$work/got" 2>"$work/err"
status=$?
[ $status -eq 1 ] || fail "ecc correct with an uncorrectable step exited $status, want 1"
printf 'clean\nuncorrectable\nclean\n' | cmp -s - "$work/got" ||
    fail "ecc correct (uncorrectable) printed: $(tr '\n' ' ' <"$work/got")"

# ----- correct: Hamming single error, codes from a file -------------------------
file=hamming-512-linux.jsonl
id=$(grep '"case":"single-data"' "$fixtures/$file" | head -n 1 | sed -e 's/.*"id":"\([^"]*\)".*/\1/')
field $file "$id" data correct | unhex >"$work/h"
field $file "$id" read_ecc correct >"$work/h.codes"
"$nandkit" ecc correct --scheme hamming512 "$work/h" --ecc-file "$work/h.codes" >"$work/got" 2>&1 ||
    fail "ecc correct hamming512 failed: $(cat "$work/got")"
[ "$(cat "$work/got")" = "corrected 1" ] || fail "ecc correct hamming512 printed '$(cat "$work/got")'"

# calc's output fed back: every step clean
"$nandkit" ecc calc --scheme bch16-1024 "$work/steps" >"$work/codes" 2>/dev/null
"$nandkit" ecc check --scheme bch16-1024 "$work/steps" --ecc-file "$work/codes" >"$work/got" 2>&1 ||
    fail "ecc check of calc's own codes failed"
[ "$(sort -u "$work/got")" = "clean" ] || fail "ecc check of calc's own codes: $(cat "$work/got")"

# ----- bad input: exit 2, one line naming the value ------------------------------
head -c 100 "$work/good" >"$work/short"
expect_error 2 "frobnicate" -- ecc calc --scheme frobnicate "$work/good"
expect_error 2 "bch40-512" -- ecc calc --scheme bch40-512 "$work/good"
expect_error 2 "100" -- ecc calc --scheme bch8-512 "$work/short"
expect_error 2 "no-such-file" -- ecc calc --scheme bch8-512 "$work/no-such-file"
expect_error 2 "zz" -- ecc correct --scheme hamming512 "$work/h" --ecc zz1122
expect_error 2 "abcd" -- ecc correct --scheme hamming512 "$work/h" --ecc abcd
expect_error 2 "2 codes" -- ecc correct --scheme hamming512 "$work/h" --ecc 112233,445566
expect_error 2 "--scheme" -- ecc calc "$work/good"
expect_error 2 "shred" -- ecc shred --scheme bch8-512 "$work/good"

# ----- help tells the truth ------------------------------------------------------
"$nandkit" ecc --help >"$work/help" || fail "ecc --help exited non-zero"
for word in calc correct check hamming256 hamming512-sm bch8-512 bch16-1024 --ecc-file; do
    grep -qF -- "$word" "$work/help" || fail "ecc --help does not mention $word"
done
"$nandkit" --help | grep -q '^  ecc ' || fail "nandkit --help does not list ecc"

if [ $failures -ne 0 ]; then
    echo "$failures failure(s)" >&2
    exit 1
fi
echo "ecc CLI: all checks passed"

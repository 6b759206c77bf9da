#!/usr/bin/env bash
# nandkit bench: output forms (table, --compare, --json, --svg), image and
# bad-input handling. Timing is never asserted: only structure.
# usage: bench.sh NANDKIT_BINARY FIXTURES_DIR
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
quick=(--count 8 --block-count 1 --no-progress)

expect 0 "usage: nandkit bench" -- "$nk" bench --help
expect 0 "page read \(data\+OOB\) .* 88\.54 " -- "$nk" bench "${quick[@]}"
expect 0 "ECC bch8, byte loop" -- "$nk" bench "${quick[@]}" --ecc bch8 --loop byte
expect 0 "ECC hw, unrolled loop" -- "$nk" bench "${quick[@]}" --ecc hw --unroll
expect 0 "page program .* 226\.75 " -- "$nk" bench "${quick[@]}" --chip K9F1208U0C
expect 0 "hardware ECC \(vs software Hamming, byte loops\)" -- "$nk" bench "${quick[@]}" --compare
expect 0 '"ops":\{"page_read":\{"count":8,"avg_us":' -- "$nk" bench "${quick[@]}" --json
expect 0 '"runs":\[' -- "$nk" bench "${quick[@]}" --compare --json

"$nk" bench "${quick[@]}" --compare --svg "$tmp/bench.svg" >/dev/null || fail "bench --svg failed"
xmllint --noout "$tmp/bench.svg" || fail "the SVG is not well-formed XML"
grep -q "<svg xmlns=\"http://www.w3.org/2000/svg\"" "$tmp/bench.svg" || fail "no svg root element"
[[ $(grep -c "<rect" "$tmp/bench.svg") -ge 20 ]] || fail "the SVG draws too few bars"

"$nk" sim create "$tmp/chip.img" --chip K9F1G08U0A >/dev/null || fail "sim create"
expect 0 "K9F1G08U0A: ECC hamming" -- "$nk" bench "$tmp/chip.img" --chip K9F1G08U0A "${quick[@]}"

expect 2 "unknown --ecc 'crc'" -- "$nk" bench --ecc crc
expect 2 "unknown --loop 'fast'" -- "$nk" bench --loop fast
expect 2 "bad --count '0'" -- "$nk" bench --count 0
expect 2 "unknown chip 'NOPE'" -- "$nk" bench --chip NOPE "${quick[@]}"
expect 2 "--geometry describes an IMAGE" -- "$nk" bench --geometry 2048,64,64,1024
expect 1 "cannot write --svg" -- "$nk" bench "${quick[@]}" --svg /nonexistent/dir/x.svg

if [[ $fails -ne 0 ]]; then echo "$fails check(s) failed"; exit 1; fi
echo "all bench CLI checks passed"

#!/usr/bin/env bash
# nandkit bench: output forms (table, --compare, --json, --svg), image and
# bad-input handling. Timing is never asserted: only structure.
# usage: bench.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
expect() {
  local want=$1 pattern=$2; shift 3
  local out status
  out=$("$@" 2>&1); status=$?
  if [[ $status -ne $want ]]; then fail "'$*' exited $status, wanted $want: $out"; return; fi
  grep -Eq -- "$pattern" <<<"$out" || fail "'$*' output lacks /$pattern/: $out"
}
quick=(--count 8 --block-count 1 --no-progress)

expect 0 "usage: nandkit bench" -- "$NK" bench --help
expect 0 "page read \(data\+OOB\) .* 88\.54 " -- "$NK" bench "${quick[@]}"
expect 0 "ECC bch8, byte loop" -- "$NK" bench "${quick[@]}" --ecc bch8 --loop byte
expect 0 "ECC hw, unrolled loop" -- "$NK" bench "${quick[@]}" --ecc hw --unroll
expect 0 "page program .* 226\.75 " -- "$NK" bench "${quick[@]}" --chip K9F1208U0C
expect 0 "hardware ECC \(vs software Hamming, byte loops\)" -- "$NK" bench "${quick[@]}" --compare
expect 0 '"ops":\{"page_read":\{"count":8,"median_us":[0-9.]+,"p99_us":[0-9.]+,"min_us":' -- "$NK" bench "${quick[@]}" --json
expect 0 "median us +p99 us +min us +\(mean\)" -- "$NK" bench "${quick[@]}"
# the limit is computed from the timing the simulator runs (typical), the
# maximum beside it: MT29F32G08ABCDB runs tR 35 us, allows up to 45 us
expect 0 '"page_read":\{.*"limit_us":387\.1400,"limit_max_us":397\.1400' -- "$NK" bench "${quick[@]}" --chip MT29F32G08ABCDB --json
expect 0 '"runs":\[' -- "$NK" bench "${quick[@]}" --compare --json

# --compare attributes a difference only beyond the measured noise
expect 0 "noise = half the interquartile range" -- "$NK" bench "${quick[@]}" --compare

# SVG: one chart per run, with axes, units, a stacked bar per operation
# against the limit; --compare one compact grouped chart. Rendered by a real
# SVG renderer (rsvg-convert) to PNG.
"$NK" bench "${quick[@]}" --svg "$TMP/run.svg" >/dev/null || fail "bench --svg failed"
"$NK" bench "${quick[@]}" --compare --svg "$TMP/bench.svg" >/dev/null || fail "bench --compare --svg failed"
for svg in "$TMP/run.svg" "$TMP/bench.svg"; do
  xmllint --noout "$svg" || fail "$svg is not well-formed XML"
  [[ $(grep -c "<svg xmlns=\"http://www.w3.org/2000/svg\"" "$svg") -eq 1 ]] || fail "$svg: not one svg root"
  rsvg-convert "$svg" -o "${svg%.svg}.png" || fail "rsvg-convert could not render $svg"
  [[ $(head -c 8 "${svg%.svg}.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "${svg%.svg}.png is not a PNG"
done
for label in "page read \(data\+OOB\)" "page program" "block erase" "block read" "block write" \
             "% of its limit" "median above \(\+\) or below \(-\) the limit" "limit 88.54 us" \
             "array busy" "ECC CPU" "other library CPU"; do
  grep -Eq "$label" "$TMP/run.svg" || fail "the run chart lacks '$label'"
done
# stacked segments (array, bus, ECC, other) for the figures
for fill in 4e79a7 f28e2b e15759 59a14f; do
  [[ $(grep -c "fill=\"#$fill\"" "$TMP/run.svg") -ge 3 ]] || fail "the run chart lacks segments of #$fill"
done
height=$(grep -o '<svg [^>]*' "$TMP/bench.svg" | grep -o ' height="[0-9]*"' | tr -dc 0-9)
[[ $height -le 1000 ]] || fail "the --compare chart is $height px tall"
[[ $(grep -c ">hamming / byte<" "$TMP/bench.svg") -eq 5 ]] || fail "the --compare chart lacks a grouped bar per operation"
if [[ -n ${NANDKIT_CHART_DIR:-} ]]; then cp "$TMP/run.png" "$TMP/bench.png" "$NANDKIT_CHART_DIR/"; fi

# The benchmark's spread over 10 identical runs (spread = (max - min) /
# median of the page-read ratios) is printed, never asserted: it includes
# host CPU time, which a busy machine moves. What must hold is that every
# run gives a ratio at all.
for i in $(seq 10); do
  "$NK" bench --json --no-progress > "$TMP/run$i.json" || fail "bench run $i failed"
done
python3 - "$TMP"/run{1..10}.json <<'EOF' || fail "a run gave no page-read ratio"
import json, statistics, sys
ratios = [json.load(open(p))["ops"]["page_read"]["ratio"] for p in sys.argv[1:]]
assert len(ratios) == 10 and all(r > 0 for r in ratios), ratios
spread = (max(ratios) - min(ratios)) / statistics.median(ratios)
print("10 runs, page-read ratio spread %.3f %% (a figure, not a test)" % (100 * spread))
EOF

# On an image (or /dev/mtdN) the benchmark destroys blocks: it needs an
# explicit range and --destructive, says what it touches, and touches
# nothing else.
"$NK" sim create --full "$TMP/chip.img" --geometry 2048,64,64,32 >/dev/null || fail "sim create"
sum() { sha256sum "$1" | cut -d' ' -f1; }
before=$(sum "$TMP/chip.img")
expect 2 "name them with --blocks FIRST-LAST" -- "$NK" bench "$TMP/chip.img" --geometry 2048,64,64,32 "${quick[@]}"
expect 2 "would erase and write blocks 4-11 of .*: add --destructive" -- \
  "$NK" bench "$TMP/chip.img" --geometry 2048,64,64,32 --blocks 4-11 "${quick[@]}"
[[ $(sum "$TMP/chip.img") == "$before" ]] || fail "a refused bench changed the image"
head -c $((4 * 64 * 2112)) "$TMP/chip.img" > "$TMP/head.before"
tail -c $((20 * 64 * 2112)) "$TMP/chip.img" > "$TMP/tail.before"
expect 0 "erases and writes blocks 4-11 of" -- "$NK" bench "$TMP/chip.img" --geometry 2048,64,64,32 \
  --blocks 4-11 --destructive "${quick[@]}"
cmp -s "$TMP/head.before" <(head -c $((4 * 64 * 2112)) "$TMP/chip.img") || fail "bench touched blocks before 4"
cmp -s "$TMP/tail.before" <(tail -c $((20 * 64 * 2112)) "$TMP/chip.img") || fail "bench touched blocks after 11"
[[ $(sum "$TMP/chip.img") != "$before" ]] || fail "bench --destructive wrote nothing"

expect 2 "unknown --ecc 'crc'" -- "$NK" bench --ecc crc
expect 2 "unknown --loop 'fast'" -- "$NK" bench --loop fast
expect 2 "bad --count '0'" -- "$NK" bench --count 0
expect 2 "unknown chip 'NOPE'" -- "$NK" bench --chip NOPE "${quick[@]}"
expect 2 "--geometry describes an IMAGE" -- "$NK" bench --geometry 2048,64,64,1024
expect 1 "cannot write --svg" -- "$NK" bench "${quick[@]}" --svg /nonexistent/dir/x.svg

nk_test_end "all bench CLI checks passed"

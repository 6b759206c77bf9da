#!/usr/bin/env bash
# nandkit bench --sequential: the multi-page figures beside both limits for
# every preset, the section at the end of the table, and bad input. Only
# structure and the datasheet limits (exact numbers) are asserted.
# usage: bench_sequential.sh NANDKIT_BINARY FIXTURES_DIR
set -u
nk=$1
tmp_json=$(mktemp)
tmp_err=$(mktemp)
trap 'rm -f "$tmp_json" "$tmp_err"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect() {
  local want=$1 pattern=$2; shift 3
  local out status
  out=$("$@" 2>&1); status=$?
  if [[ $status -ne $want ]]; then fail "'$*' exited $status, wanted $want: $out"; return; fi
  grep -Eq -- "$pattern" <<<"$out" || fail "'$*' output lacks /$pattern/: $out"
}

expect 0 "--sequential" -- "$nk" bench --help
expect 0 "K9F1G08U0A +1 chip +program +cache program .* 363\.5us .* 303\.0us" -- \
  "$nk" bench --sequential --chip K9F1G08U0A
expect 0 "2 chips +read +interleaved .* 88\.5us .* 63\.5us" -- "$nk" bench --sequential --chip K9F1G08U0A
expect 0 "1 chip +read +read cache .* 67\.4us .* 45\.3us" -- "$nk" bench --sequential
expect 0 "2 chips +fs write +64 KiB writes .* 363\.5us .* 181\.8us" -- "$nk" bench --sequential --chip K9F1G08U0A
expect 0 "pipelined commands: 80h\.\.15h 31h/3Fh 00h\.\.35h\+85h\.\.10h$" -- \
  "$nk" bench --sequential --chip MT29F2G08ABAEA
expect 0 "K9F1208U0C +1 chip +program +page at a time" -- "$nk" bench --sequential
expect 0 "sequential, per page" -- "$nk" bench --count 4 --block-count 1 --no-progress
expect 2 "unknown preset|unknown chip|NOPE" -- "$nk" bench --sequential --chip NOPE
expect 2 "--sequential runs on the simulator presets" -- "$nk" bench --sequential some.img

# --json: one document of the bench family on stdout, nothing on stderr
"$nk" bench --sequential --json --chip K9F1G08U0A > "$tmp_json" 2> "$tmp_err" || fail "--sequential --json failed"
[[ -s $tmp_err ]] && fail "--sequential --json wrote to stderr: $(cat "$tmp_err")"
python3 - "$tmp_json" <<'EOF' || fail "--sequential --json: wrong document"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tool"] == "nandkit bench" and d["format"] == 3 and d["benchmark"] == "sequential", d
chip = d["chips"][0]
assert chip["chip"] == "K9F1G08U0A" and len(chip["rows"]) >= 8
prog = [r for r in chip["rows"] if r["config"] == "1 chip" and r["op"] == "program"][0]
assert abs(prog["single_us"] - 363.54) < 0.005 and abs(prog["pipelined_us"] - 303.0) < 0.05, prog
EOF
expect 0 '"benchmark":"page"' -- "$nk" bench --count 4 --block-count 1 --no-progress --json
expect 0 '"benchmark":"compare"' -- "$nk" bench --count 4 --block-count 1 --no-progress --json --compare

out=$("$nk" bench --sequential --chip NOPE 2>&1)
[[ $(wc -l <<<"$out") -eq 1 ]] || fail "bad --chip gives more than one line: $out"

if [[ $fails -ne 0 ]]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "all passed"

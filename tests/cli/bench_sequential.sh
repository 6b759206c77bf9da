#!/usr/bin/env bash
# nandkit bench --sequential: the multi-page figures beside both limits for
# every preset, the section at the end of the table, and bad input. Only
# structure and the datasheet limits (exact numbers) are asserted.
# usage: bench_sequential.sh NANDKIT_BINARY FIXTURES_DIR
set -u
nk=$1
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

out=$("$nk" bench --sequential --chip NOPE 2>&1)
[[ $(wc -l <<<"$out") -eq 1 ]] || fail "bad --chip gives more than one line: $out"

if [[ $fails -ne 0 ]]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "all passed"

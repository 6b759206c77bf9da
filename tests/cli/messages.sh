#!/bin/bash
# Messages that say what happened: a power cut during mkimage's bad-block
# scan is named as a power cut; fsck of an image whose only written page was
# cut short names that page instead of suggesting another layout; a geometry
# the simulator cannot model, an overflowing --seed and a geometry with a
# trailing comma are bad input (exit 2, one line naming the value); info
# works on images of 1 to 4 blocks (no room for a bad-block table); a file
# that shrinks while mkimage reads it fails naming it and leaves no image;
# ls --json gives bytes that are not UTF-8 back unambiguously (\uDCXX).
#
# usage: bash tests/cli/messages.sh NANDKIT_BINARY
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
G="--geometry 2048,64,64,64"
cd "$TMP" || exit 1

# expect CODE PATTERN -- command...: exit CODE, one stderr line matching PATTERN
expect() {
    local want=$1 pattern=$2
    shift 3
    "$@" > out 2> err
    local got=$?
    [ "$got" = "$want" ] || fail "exit $got, expected $want: $* ($(head -c 300 err))"
    [ "$(wc -l < err)" = 1 ] || fail "expected one line from: $* (got: $(cat err))"
    grep -qE -- "$pattern" err || fail "'$pattern' not in: $(cat err)"
}

mkdir src
echo hello > src/a

# power_cut_during_bad_block_scan_is_named
expect 1 "power cut at flash operation 0, as --power-cut-after asked" -- \
    "$NK" mkimage src cut.img $G --power-cut-after 0 --no-progress
grep -q "no such device" err && fail "a power cut is reported as a missing device"

# fsck_names_the_only_torn_page: the first cut that leaves a page on flash
# cuts the first program; with some seeds the page lands whole, with others
# its tags are torn (the mount's problem list says tags-ecc at page 0).
found=0
for n in $(seq 0 2000); do
    rm -f t.img
    "$NK" mkimage src t.img $G --power-cut-after "$n" --no-progress > /dev/null 2>&1
    if [ -s t.img ]; then found=1; break; fi
done
[ "$found" = 1 ] || fail "no power cut left a page on flash"
torn=0
for seed in $(seq 1 40); do
    rm -f t.img
    "$NK" mkimage src t.img $G --power-cut-after "$n" --seed "$seed" --no-progress > /dev/null 2>&1
    "$NK" fsck t.img $G > out 2> err
    rc=$?
    grep -q "problem: tags-ecc at block 0 page 0" out err || continue
    torn=1
    [ "$rc" = 1 ] || fail "fsck of a torn-only image (seed $seed): exit $rc, expected 1 ($(cat err))"
    grep -q "page 0 (block 0, page 0) was cut short" err ||
        fail "fsck does not name the torn page (seed $seed): $(cat err)"
    grep -q "wrong --layout" err && fail "fsck suggests a wrong layout for a torn page (seed $seed)"
    break
done
[ "$torn" = 1 ] || fail "no seed tore the first page at cut $n"

# geometries_the_simulator_rejects_are_bad_input
expect 2 "65536,4095,4096,16" -- "$NK" sim create big.img --geometry 65536,4095,4096,16
[ -e big.img ] && fail "sim create left an image for a rejected geometry"
expect 2 "65536,4095,4096,16" -- "$NK" mkimage src big.img --geometry 65536,4095,4096,16 --no-progress
ls big.img* > /dev/null 2>&1 && fail "mkimage left a file for a rejected geometry"

# seed_overflow_is_refused
expect 2 "99999999999999999999" -- "$NK" sim create s.img $G --seed 99999999999999999999
# geometry_trailing_comma_is_refused
expect 2 "2048,64,64," -- "$NK" sim create s.img --geometry "2048,64,64,"

# info_works_on_images_of_up_to_4_blocks
for n in 1 2 3 4; do
    rm -f tiny.img tiny.img.nksim
    bad=""
    [ "$n" -ge 3 ] && bad="--bad-blocks 1,2"
    "$NK" sim create tiny.img --geometry 2048,64,64,$n $bad > /dev/null || fail "sim create $n blocks"
    "$NK" info tiny.img --geometry 2048,64,64,$n > out 2> err
    rc=$?
    [ "$rc" = 0 ] || fail "info on $n blocks: exit $rc ($(cat err))"
    want=0
    [ "$n" -ge 3 ] && want=2
    grep -q "^bad blocks    $want found" out || fail "info on $n blocks: $(grep bad out)"
done

# file_shrinking_during_mkimage_fails: truncated as soon as mkimage has it open.
mkdir shrink
truncate -s 64M shrink/big
"$NK" mkimage shrink sh.img --geometry 2048,64,64,1024 --no-progress > out 2> err &
pid=$!
caught=0
while kill -0 "$pid" 2> /dev/null; do
    if ls -l "/proc/$pid/fd" 2> /dev/null | grep -q "shrink/big"; then
        truncate -s 1M shrink/big
        caught=1
        break
    fi
done
wait "$pid"
rc=$?
[ "$caught" = 1 ] || fail "mkimage finished before the file could be shrunk"
[ "$rc" = 1 ] || fail "mkimage of a file that shrank: exit $rc, expected 1"
grep -q "shrink/big changed while being read" err || fail "the shrunk file is not named: $(cat err)"
[ -e sh.img ] && fail "mkimage left an image built from a file that changed"

# ls_json_escapes_non_utf8_bytes_unambiguously: a name with the byte 0xff
# and one with the character U+00FF must come back different.
mkdir names
python3 -c 'import os; open(b"names/\xffraw", "w").close(); open("names/\u00ffchar", "w").close()'
"$NK" mkimage names n.img $G --no-progress > /dev/null || fail "mkimage of odd names"
"$NK" ls --json n.img $G > out 2> err || fail "ls --json: $(cat err)"
python3 - out <<'PY' || fail "ls --json does not give the names' bytes back"
import json, sys
entries = json.load(open(sys.argv[1], encoding="utf-8"))
names = sorted(e["path"].encode("utf-8", "surrogateescape") for e in entries)
want = sorted([b"/\xffraw", "/\u00ffchar".encode(), b"/lost+found"])
if names != want:
    print("got", names, "want", want)
    sys.exit(1)
PY

nk_test_end "messages: all checks passed"

#!/bin/bash
# fsck after an ordinary power cut: a put cut at each of its flash operations
# (--power-cut-after counts from the end of the mount) may leave the page being programmed unreadable. fsck
# reports that as the trace of an interrupted write with exit status 3
# (never 1, which stays for damage); fsck --repair runs the read-write
# mount's recovery, saves, checks, and exits 0 with the image clean. A live
# data chunk that fails its ECC is damage: exit 1.
#
# usage: bash tests/cli/fsck_power_cut.sh NANDKIT_BINARY
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
G="--geometry 2048,64,64,32"
mkdir "$TMP/src"
echo hello > "$TMP/src/a"
"$NK" mkimage "$TMP/src" "$TMP/base.img" $G --no-progress > /dev/null 2>&1 || fail "mkimage"
head -c 30000 /dev/urandom > "$TMP/new"

traces=0
for n in $(seq 1 36); do
    cp "$TMP/base.img" "$TMP/cut.img"
    "$NK" put "$TMP/cut.img" "$TMP/new" /a $G --power-cut-after "$n" --seed "$n" > /dev/null 2>&1
    "$NK" fsck "$TMP/cut.img" $G > "$TMP/out" 2> /dev/null
    rc=$?
    case $rc in
    0) ;;
    3)
        traces=$((traces + 1))
        tail -1 "$TMP/out" | grep -q "of a write cut by power loss: nothing lost" ||
            fail "cut $n: fsck exit 3 without saying why: $(tail -1 "$TMP/out")"
        "$NK" fsck --json "$TMP/cut.img" $G 2> /dev/null | grep -q '"verdict":"interrupted-write"' ||
            fail "cut $n: fsck --json verdict is not interrupted-write"
        "$NK" fsck --repair "$TMP/cut.img" $G > "$TMP/out" 2> /dev/null
        rc=$?
        [ "$rc" = 0 ] || fail "cut $n: fsck --repair exit $rc: $(tail -1 "$TMP/out")"
        "$NK" fsck "$TMP/cut.img" $G > /dev/null 2>&1 || fail "cut $n: not clean after fsck --repair"
        ;;
    *) fail "cut $n: fsck exit $rc after an ordinary power cut: $(grep problem "$TMP/out")" ;;
    esac
done
[ "$traces" -gt 0 ] || fail "no cut left a trace: the campaign does not test the trace verdict"
echo "fsck after cuts: $traces of 36 cuts left a trace"

# damage_is_exit_1: two flipped bits in one ECC step of a live data chunk
# in the middle of a written block.
cp "$TMP/base.img" "$TMP/dmg.img"
head -c 20000 /dev/urandom > "$TMP/more"
"$NK" put "$TMP/dmg.img" "$TMP/more" /b $G > /dev/null 2>&1 || fail "put /b"
python3 - "$TMP/dmg.img" <<'PY' || fail "no page to damage"
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
pages = [off for off in range(0, len(data), 2112)
         if struct.unpack_from("<I", data, off + 2048 + 2)[0] != 0xFFFFFFFF]
# a data chunk (chunk id 1..) of /b with written pages after it
data_pages = [off for off in pages if 1 <= struct.unpack_from("<I", data, off + 2048 + 2 + 8)[0] < 0x80000000]
off = data_pages[len(data_pages) // 2]
data[off + 10] ^= 0x01
data[off + 20] ^= 0x02
open(path, "wb").write(data)
PY
"$NK" fsck "$TMP/dmg.img" $G > "$TMP/out" 2> /dev/null
rc=$?
[ "$rc" = 1 ] || fail "fsck of damaged tags: exit $rc, expected 1"
grep -q "cut by power loss" "$TMP/out" && fail "fsck calls damage a power-cut trace"
nk_test_end "fsck power-cut tests passed"

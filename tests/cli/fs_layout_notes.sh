#!/bin/bash
# What a layout cannot catch is said: building or reading an image in the
# mkyaffs2 layout (no data ECC) prints one note on stderr; the layouts with
# 1-bit Hamming print, where the image is built (mkimage) or checked (fsck),
# one note that 3 flips in a step may be miscorrected, and nothing on reads.
#
# usage: bash tests/cli/fs_layout_notes.sh NANDKIT_BINARY [FIXTURES_DIR]
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"

mkdir -p "$TMP/src"
echo hello > "$TMP/src/a.txt"
G="--geometry 2048,64,64"
for layout in mkyaffs2 linux inband; do
    img="$TMP/$layout.img"
    "$NK" mkimage "$TMP/src" "$img" --geometry 2048,64,64,16 --layout $layout > /dev/null 2> "$TMP/err" ||
        fail "mkimage --layout $layout"
    for cmd in mkimage ls cat fsck; do
        if [ $cmd = ls ]; then
            "$NK" ls "$img" $G --layout $layout > /dev/null 2> "$TMP/err" || fail "ls --layout $layout"
        elif [ $cmd = cat ]; then
            "$NK" cat "$img" /a.txt $G --layout $layout > "$TMP/out" 2> "$TMP/err" ||
                fail "cat --layout $layout"
            [ "$(cat "$TMP/out")" = hello ] || fail "cat --layout $layout printed $(cat "$TMP/out")"
        elif [ $cmd = fsck ]; then
            "$NK" fsck "$img" $G --layout $layout > /dev/null 2> "$TMP/err" || fail "fsck --layout $layout"
        fi
        notes=$(grep -c "no data ECC" "$TMP/err")
        if [ $layout = mkyaffs2 ]; then
            [ "$notes" = 1 ] || fail "$cmd --layout mkyaffs2: $notes notes about the missing data ECC"
            [ "$(wc -l < "$TMP/err")" = 1 ] || fail "$cmd --layout mkyaffs2: stderr is not the one note"
        else
            [ "$notes" = 0 ] || fail "$cmd --layout $layout: a note about a data ECC it has"
            hamming=$(grep -c "hamming.*miscorrected" "$TMP/err")
            want=0
            case $cmd in mkimage | fsck) want=1 ;; esac
            [ "$hamming" = $want ] || fail "$cmd --layout $layout: $hamming notes about 1-bit Hamming"
            [ "$(wc -l < "$TMP/err")" = $want ] || fail "$cmd --layout $layout: stderr is not $want line(s)"
        fi
    done
done

nk_test_end "layout notes: ok"

#!/bin/bash
# Two commands on one image never both write it: a command that writes an
# image holds an exclusive flock on it for its whole run, one that only
# reads a shared one. While another process holds the lock a writer (or,
# against an exclusive holder, a reader) is refused with exit status 5 and
# one line naming the image, and the image is left as it was; with --wait it
# waits, so that concurrent puts all land (none lost, as a copy-and-rename
# writer would lose all but one without the lock).
#
# usage: bash tests/cli/image_lock.sh NANDKIT_BINARY
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
HOLDER_PID=
release() {
    [ -n "$HOLDER_PID" ] && [ -e "$TMP/sleeper.pid" ] && kill "$(cat "$TMP/sleeper.pid")" 2> /dev/null
    [ -n "$HOLDER_PID" ] && wait "$HOLDER_PID" 2> /dev/null
    HOLDER_PID=
    rm -f "$TMP/ready" "$TMP/sleeper.pid"
}
nk_test_cleanup_hook release
command -v flock > /dev/null || { echo "SKIP: no flock(1)"; exit 0; }

# hold MODE: another process holds the image's lock (-x or -s) until release.
hold() {
    flock -o "$1" "$IMG" -c "echo \$\$ > '$TMP/sleeper.pid'; touch '$TMP/ready'; exec sleep 600" &
    HOLDER_PID=$!
    while [ ! -e "$TMP/ready" ]; do sleep 0.01; done
}

G="--geometry 2048,64,64,64"
IMG="$TMP/fs.img"
mkdir "$TMP/src"
echo hello > "$TMP/src/a"
"$NK" mkimage "$TMP/src" "$IMG" $G --no-progress > /dev/null 2>&1 || fail "mkimage"
for i in 1 2 3 4; do head -c $((200000 + i)) /dev/urandom > "$TMP/f$i"; done

# locked_image_refuses_a_writer: one line naming the image, exit 5, nothing written.
for mode in -x -s; do
    hold $mode
    cp "$IMG" "$TMP/before"
    "$NK" put "$IMG" "$TMP/f1" /f1 $G > /dev/null 2> "$TMP/err"
    rc=$?
    [ "$rc" = 5 ] || fail "put on an image locked ($mode) by another process: exit $rc, expected 5"
    [ "$(wc -l < "$TMP/err")" = 1 ] || fail "put on a locked image: not one line: $(cat "$TMP/err")"
    grep -q "$IMG is in use by another nandkit command" "$TMP/err" ||
        fail "put on a locked image: message does not name it: $(cat "$TMP/err")"
    cmp -s "$IMG" "$TMP/before" || fail "put on a locked image ($mode) changed it"
    compgen -G "$IMG.nktmp-*" > /dev/null && fail "put on a locked image left a temporary file"
    "$NK" mkdir "$IMG" /d $G > /dev/null 2>&1 && fail "mkdir on a locked image ($mode) succeeded"
    "$NK" erase "$IMG" 0 0 $G > /dev/null 2> "$TMP/err" && fail "erase on a locked image ($mode) succeeded"
    grep -q "$IMG is in use" "$TMP/err" || fail "erase on a locked image: $(cat "$TMP/err")"
    release
done

# readers_share: ls works while another reader holds a shared lock, not
# while a writer holds it exclusively.
hold -s
"$NK" ls "$IMG" / $G > /dev/null 2>&1 || fail "ls beside another reader was refused"
release
hold -x
"$NK" ls "$IMG" / $G > /dev/null 2> "$TMP/err"
rc=$?
[ "$rc" = 5 ] || fail "ls on an image being written: exit $rc, expected 5"
grep -q "$IMG is in use" "$TMP/err" || fail "ls on a locked image: $(cat "$TMP/err")"
release

# concurrent_puts_with_wait_all_land: four puts started while the image is
# locked, all waiting; released, each takes its turn on the image the one
# before saved.
hold -x
pids=
for i in 1 2 3 4; do
    "$NK" put "$IMG" "$TMP/f$i" "/f$i" $G --wait > "$TMP/out$i" 2>&1 &
    pids="$pids $!"
done
release
i=0
for p in $pids; do
    i=$((i + 1))
    wait "$p" || fail "concurrent put $i with --wait failed: $(cat "$TMP/out$i")"
done
for i in 1 2 3 4; do
    "$NK" cat "$IMG" "/f$i" $G 2> /dev/null | cmp -s - "$TMP/f$i" || fail "concurrent put $i lost"
done
"$NK" cat "$IMG" /a $G 2> /dev/null | cmp -s - "$TMP/src/a" || fail "the file before the puts is lost"
compgen -G "$IMG.nktmp-*" > /dev/null && fail "concurrent puts left a temporary file"

nk_test_end "image lock tests passed"

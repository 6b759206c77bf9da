#!/bin/bash
# --power-cut-after N on a change (put, rm, mkdir, mv, chmod) counts the
# change's own flash operations, from the end of the read-write mount: a
# small N cuts the change, never the mount, and the file system is the one
# before the change (plus put's temporary file), with fsck clean.
#
# usage: bash tests/cli/power_cut_change.sh NANDKIT_BINARY
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
G="--geometry 2048,64,64,256"
mkdir "$TMP/src"
echo old > "$TMP/src/a"
"$NK" mkimage "$TMP/src" "$TMP/base.img" $G --no-progress > /dev/null 2>&1 || fail "mkimage"
head -c 200000 /dev/urandom > "$TMP/new"

# The cut lands in the put: 40 operations into its data.
cp "$TMP/base.img" "$TMP/cut.img"
"$NK" put "$TMP/cut.img" "$TMP/new" /a $G --power-cut-after 40 --seed 7 2> "$TMP/err"
rc=$?
[ $rc = 1 ] || fail "put cut after 40 operations: exit $rc, expected 1"
grep -q "^nandkit: put /a: power cut at flash operation 40" "$TMP/err" ||
    fail "the cut is not named as the put's: $(cat "$TMP/err")"
grep -q "mount" "$TMP/err" && fail "the cut hit the mount: $(cat "$TMP/err")"
[ "$("$NK" cat "$TMP/cut.img" /a $G 2> /dev/null)" = old ] || fail "/a is not the old file after the cut"
"$NK" ls "$TMP/cut.img" / $G 2> /dev/null | grep -q '\.a\.nkput$' ||
    fail "no temporary file: the cut came before the data"
"$NK" fsck "$TMP/cut.img" $G > "$TMP/fsck" 2>&1
rc=$?
[ $rc = 0 ] || [ $rc = 3 ] || fail "fsck after the cut: exit $rc: $(tail -1 "$TMP/fsck")"

# N = 0: the change's first operation, still after the mount.
for cmd in "put $TMP/new /b" "mkdir /d" "rm /a" "mv /a /c" "chmod 600 /a"; do
    cp "$TMP/base.img" "$TMP/cut.img"
    set -- $cmd
    name=$1
    shift
    "$NK" "$name" "$TMP/cut.img" "$@" $G --power-cut-after 0 2> "$TMP/err"
    rc=$?
    [ $rc = 1 ] || fail "$name with --power-cut-after 0: exit $rc, expected 1"
    grep -q "power cut at flash operation 0" "$TMP/err" || fail "$name: cut not named: $(cat "$TMP/err")"
    grep -q "mount failed" "$TMP/err" && fail "$name: the cut hit the mount"
    [ "$("$NK" cat "$TMP/cut.img" /a $G 2> /dev/null)" = old ] || fail "$name: /a changed by a cut change"
done

# Enough operations: the put completes.
cp "$TMP/base.img" "$TMP/cut.img"
"$NK" put "$TMP/cut.img" "$TMP/new" /a $G --power-cut-after 1000 2> "$TMP/err" || fail "put with room: $(cat "$TMP/err")"
"$NK" cat "$TMP/cut.img" /a $G | cmp -s - "$TMP/new" || fail "the completed put did not write /a"

nk_test_end "power_cut_change: all passed"

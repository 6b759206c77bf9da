#!/bin/bash
# extract never follows a symbolic link it did not create: a link already in
# DEST_DIR where the image has a directory, a file or a FIFO is refused (exit
# 1, the entry named), nothing is written outside DEST_DIR and the link's
# target keeps its mode; DEST_DIR that is a regular file gives one line and
# exit 2, not one error per entry.
#
# usage: bash tests/cli/extract_safety.sh NANDKIT_BINARY
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
G="--geometry 2048,64,64,64"
cd "$TMP" || exit 1

mkdir -p src/d
echo inside > src/d/f
echo top > src/top
chmod 0777 src/d src/top
mkfifo src/pipe
for i in 1 2 3 4 5; do echo "$i" > "src/n$i"; done
"$NK" mkimage src img $G --no-progress > /dev/null || fail "mkimage"

# extract_does_not_follow_existing_symlinks
mkdir -p outside dest
echo "keep me" > outside/target
chmod 0755 outside outside/target
ln -s ../outside dest/d
ln -s ../outside/target dest/top
ln -s ../outside/pipe-target dest/pipe
"$NK" extract img dest $G > out 2> err
rc=$?
[ "$rc" = 1 ] || fail "extract over planted links: exit $rc, expected 1 ($(cat err))"
[ -e outside/f ] && fail "extract wrote outside DEST_DIR through a directory link"
[ -e outside/pipe-target ] && fail "extract made a FIFO outside DEST_DIR through a link"
[ "$(stat -c %a outside)" = 755 ] || fail "extract changed the mode of a linked directory to $(stat -c %a outside)"
[ "$(stat -c %a outside/target)" = 755 ] || fail "extract changed the mode of a linked file to $(stat -c %a outside/target)"
[ "$(cat outside/target)" = "keep me" ] || fail "extract wrote into a linked file"
grep -q "dest/d" err || fail "the refused directory link is not named: $(cat err)"
grep -q "dest/top" err || fail "the refused file link is not named: $(cat err)"
[ "$(cat dest/n3)" = 3 ] || fail "the other entries were not extracted"

# extract_into_a_file_is_one_error
echo "not a dir" > plain
"$NK" extract img plain $G > out 2> err
rc=$?
[ "$rc" = 2 ] || fail "extract into a file: exit $rc, expected 2"
[ "$(wc -l < err)" = 1 ] || fail "extract into a file: $(wc -l < err) lines, expected 1: $(head -3 err)"
grep -q "plain" err || fail "extract into a file: DEST not named: $(cat err)"
[ "$(cat plain)" = "not a dir" ] || fail "extract into a file changed the file"

nk_test_end "extract_safety: all checks passed"

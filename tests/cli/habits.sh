#!/bin/bash
# What a shell user expects: read -f creates its file as `>` would (0666
# less the umask, or the old file's mode); ls -l; rm -r; put -r of a
# directory tree; a progress line from put and extract with --progress;
# singular nouns for counts of one; mkimage's flash time said plainly.
#
# usage: bash tests/cli/habits.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
cd "$TMP" || exit 1
G="--geometry 2048,64,64,32"
mkdir -p tree/etc && echo hello > tree/etc/motd

# mkimage_counts_read_as_english
"$NK" mkimage tree fs.img $G > out 2> /dev/null || fail "mkimage failed"
grep -q "^objects: 2 (1 file, 1 directory, 0 symlinks, 0 hard links, 0 special)" out ||
    fail "mkimage objects line: $(grep objects out)"
grep -q " in 1 block, " out || fail "mkimage chunks line: $(grep chunks out)"
grep -q "model" out && fail "mkimage still speaks of a model: $(grep model out)"
grep -q "with the K9F1G08U0A's timing would take about [0-9.]* s for these erases and writes" out ||
    fail "mkimage flash time: $(grep blocks: out)"
"$NK" fsck fs.img $G > out 2>&1
grep -q "^objects: 2 (1 file, 1 directory," out || fail "fsck objects line: $(grep objects out)"

# read_file_mode_follows_the_umask_or_the_old_file
(umask 022 && "$NK" read fs.img -q -l 2048 -f r1.bin $G) || fail "read -f failed"
[ "$(stat -c %a r1.bin)" = 644 ] || fail "read -f under umask 022 made mode $(stat -c %a r1.bin)"
(umask 027 && "$NK" read fs.img -q -l 2048 -f r2.bin $G) || fail "read -f failed"
[ "$(stat -c %a r2.bin)" = 640 ] || fail "read -f under umask 027 made mode $(stat -c %a r2.bin)"
chmod 604 r1.bin
(umask 077 && "$NK" read fs.img -q -l 2048 -f r1.bin $G) || fail "read -f over a file failed"
[ "$(stat -c %a r1.bin)" = 604 ] || fail "read -f over a 0604 file made mode $(stat -c %a r1.bin)"
ls r1.bin.tmp* > /dev/null 2>&1 && fail "read -f left a temporary file"

# ls_l_is_the_long_listing
"$NK" ls -l fs.img /etc $G > out 2> err || fail "ls -l: $(cat err)"
grep -q "^-rw-r--r-- .* motd$" out || fail "ls -l output: $(cat out)"
"$NK" ls fs.img /etc $G | cmp -s - out || fail "ls -l differs from ls"

# put_r_copies_a_tree_and_rm_r_removes_it
mkdir -p src/sub/deeper && echo a > src/a && echo b > src/sub/b && head -c 100000 /dev/urandom > src/sub/deeper/big
ln -s a src/link
"$NK" put -r fs.img src /opt $G 2> err || fail "put -r: $(cat err)"
"$NK" ls -R fs.img /opt $G > out
for p in /opt/a /opt/sub /opt/sub/b /opt/sub/deeper/big "/opt/link -> a"; do
    grep -q " $p\$" out || fail "put -r: $p missing: $(cat out)"
done
"$NK" cat fs.img /opt/sub/deeper/big $G | cmp -s - src/sub/deeper/big || fail "put -r: big differs"
"$NK" put fs.img src /x $G 2> err
[ $? = 2 ] && grep -q "give -r to copy a directory" err || fail "put of a directory without -r: $(cat err)"
"$NK" rm fs.img /opt $G 2> /dev/null && fail "rm of a full directory without -r worked"
"$NK" rm -r fs.img /opt $G 2> err || fail "rm -r: $(cat err)"
"$NK" ls fs.img /opt $G > /dev/null 2>&1
[ $? = 4 ] || fail "rm -r left /opt"
"$NK" ls fs.img /etc/motd $G > /dev/null || fail "rm -r took more than /opt"

# put_and_extract_show_progress_when_asked
"$NK" put --progress fs.img src/sub/deeper/big /big $G 2> err > /dev/null || fail "put --progress failed"
grep -q "^put: 1 file, 0.1 MiB of 0.1 MiB (100%)" err || fail "put --progress: $(cat err)"
"$NK" extract --progress fs.img out.d $G 2> err > /dev/null || fail "extract --progress failed"
grep -q "^extract: 2 files, 0.1 MiB" err || fail "extract --progress: $(cat err)"
"$NK" extract fs.img out2.d $G 2> err > /dev/null
[ -s err ] && fail "extract without a terminal printed: $(cat err)"

nk_test_end "habits: all checks passed"

#!/bin/bash
# An image knows its geometry: with neither --geometry nor --chip a command
# takes it from the image's sidecar, or (a command that only reads) detects
# it from the image's tags and says so on stderr; a writer without a
# sidecar is told the detected geometry to give. mkimage sizes a new image
# given --geometry P,O,N to what the tree takes plus 4 erased blocks, and
# its errors name the user's file, never the temporary copy.
#
# usage: bash tests/cli/geometry_detect.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
FIX=$2/yaffs2
cd "$TMP" || exit 1
mkdir -p tree/etc && echo hello > tree/etc/motd && head -c 300000 /dev/zero > tree/big

# a_sidecar_gives_the_geometry
"$NK" sim create new.img --chip K9F1G08U0A > /dev/null || fail "sim create failed"
"$NK" ls new.img > out 2> err || fail "ls new.img with its sidecar: $(cat err)"
grep -q "lost+found" out || fail "ls new.img lists nothing: $(cat out)"
"$NK" mkdir new.img /d > /dev/null 2> err || fail "mkdir on new.img with its sidecar: $(cat err)"
"$NK" ls new.img | grep -q " d$" || fail "mkdir /d on new.img did not land"

# mkimage_sizes_a_new_image_to_the_tree_plus_a_reserve
"$NK" mkimage tree x.img --geometry 2048,64,64 > out 2> err || fail "mkimage without a block count: $(cat err)"
# 4 headers (the root's, etc, motd, big) and 1 + 147 data chunks of 2048 bytes: 3 blocks, and 4 erased.
grep -q "^size: 7 blocks, what the tree takes and 4 erased" out || fail "mkimage size line: $(cat out)"
[ "$(stat -c %s x.img)" = $((7 * 64 * 2112)) ] || fail "x.img is $(stat -c %s x.img) bytes, not 7 blocks"
[ -e x.img.nksim ] && fail "mkimage made a sidecar"
"$NK" put x.img tree/etc/motd /motd2 --geometry 2048,64,64 > /dev/null 2> err ||
    fail "put into a sized image: $(cat err)"

# a_reader_detects_the_geometry_from_the_tags_and_says_so
"$NK" cat x.img /etc/motd > out 2> err || fail "cat without geometry: $(cat err)"
[ "$(cat out)" = hello ] || fail "cat without geometry read '$(cat out)'"
grep -q "detected 2048+64-byte pages, 64 pages per block, 7 blocks" err || fail "detection not said: $(cat err)"
[ "$(wc -l < err)" = 1 ] || fail "detection took more than one line: $(cat err)"
xz -dc "$FIX/linux-4k.img.xz" > 4k.img && "$NK" ls 4k.img > /dev/null 2> err &&
    grep -q "detected 4096+128-byte pages, 64 pages per block, 128 blocks" err ||
    fail "linux-4k fixture: $(cat err)"
xz -dc "$FIX/mkyaffs2-2k.img.xz" > mk.img && "$NK" ls mk.img --layout mkyaffs2 > /dev/null 2> err &&
    grep -q "detected 2048+64-byte pages" err || fail "mkyaffs2 fixture: $(cat err)"
xz -dc "$FIX/inband-2k.img.xz" > ib.img && "$NK" ls ib.img --layout inband > /dev/null 2> err &&
    grep -q "detected 2048+64-byte pages, 64 pages per block, 256 blocks" err || fail "inband fixture: $(cat err)"

# a_writer_without_a_sidecar_is_told_the_geometry_to_give
cp x.img before.img
"$NK" rm x.img /big > /dev/null 2> err
[ $? = 2 ] || fail "rm without geometry or sidecar did not exit 2"
grep -q "x.img has no sidecar.*--geometry 2048,64,64" err || fail "rm without geometry: $(cat err)"
cmp -s x.img before.img || fail "rm without geometry changed the image"

# errors_name_the_users_file_not_the_temporary_copy
"$NK" mkimage tree z.img > /dev/null 2> err
[ $? = 2 ] || fail "mkimage without geometry did not exit 2"
grep -q "^nandkit: z.img needs --geometry" err || fail "mkimage error: $(cat err)"
grep -q "nktmp" err && fail "mkimage error names the temporary file: $(cat err)"
head -c 1000 /dev/urandom > junk.img
"$NK" ls junk.img > /dev/null 2> err
[ $? = 2 ] || fail "ls of junk without geometry did not exit 2"
grep -q "junk.img needs --geometry" err || fail "ls of junk: $(cat err)"

nk_test_end "geometry: all checks passed"

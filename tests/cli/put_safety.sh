#!/bin/bash
# What put does to the user's things besides PATH: nothing. Its temporary
# name never takes a user's file (an existing /.f.nkput survives a put to
# /f) and never makes a valid name too long (names of 248 to 255 bytes work);
# an IMAGE given as a symlink updates the image it names (the link stays a
# link, the sidecar beside the image is the one read and written); a FIFO as
# HOST_FILE is refused at once, never waited on; errors name what the user
# typed (the image, PATH) and the real cause (an image the user may not
# write, a full host disk, no space in the image); an image whose mode has
# no write bit is refused, root included, unless --force; temporary copies a
# killed command left beside the image go with the next write; a --geometry
# that disagrees with the image's sidecar is refused before anything is
# written.
#
# usage: bash tests/cli/put_safety.sh NANDKIT_BINARY
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
unmount_small() { mountpoint -q "$TMP/small" 2> /dev/null && umount "$TMP/small"; }
nk_test_cleanup_hook unmount_small
cd "$TMP" || exit 1

G="--geometry 2048,64,64,64"
mkdir src
echo hello > src/a
new_image() { rm -f "$1" "$1.nksim"; "$NK" mkimage src "$1" $G --no-progress > /dev/null 2>&1 || fail "mkimage $1"; }
echo new > new
echo mine > mine

# put_never_deletes_a_users_file_named_like_its_temporary_file
new_image fs.img
"$NK" put fs.img mine /.f.nkput $G 2> /dev/null || fail "put /.f.nkput"
"$NK" put fs.img new /f $G 2> /dev/null || fail "put /f beside /.f.nkput"
"$NK" cat fs.img /.f.nkput $G 2> /dev/null | cmp -s - mine || fail "put /f deleted or changed the user's /.f.nkput"
"$NK" cat fs.img /f $G 2> /dev/null | cmp -s - new || fail "put /f beside /.f.nkput: /f is wrong"
"$NK" ls fs.img / $G 2> /dev/null | grep -q "nkput-" && fail "put /f left a temporary file"

# every_valid_name_length_works_with_put
for len in 247 248 250 255; do
    name=$(head -c "$len" /dev/zero | tr '\0' n)
    "$NK" put fs.img new "/$name" $G 2> err || fail "put of a $len-byte name: $(cat err)"
    "$NK" cat fs.img "/$name" $G 2> /dev/null | cmp -s - new || fail "cat of a $len-byte name"
done
name=$(head -c 256 /dev/zero | tr '\0' n)
"$NK" put fs.img new "/$name" $G > /dev/null 2>&1
[ $? = 2 ] || fail "put of a 256-byte name was not refused as bad input"

# a_symlinked_image_is_updated_where_it_is
mkdir real
new_image real/fs.img
"$NK" sim create real/side.img $G > /dev/null 2>&1 || fail "sim create"
"$NK" mkimage src real/side.img $G --no-progress > /dev/null 2>&1 || fail "mkimage over side.img"
ln -s real/fs.img link.img
ln -s real/side.img side-link.img
"$NK" put link.img new /vialink $G 2> err || fail "put through a symlink: $(cat err)"
[ -L link.img ] || fail "put through a symlink replaced the link"
"$NK" cat real/fs.img /vialink $G 2> /dev/null | cmp -s - new || fail "put through a symlink did not update the image it names"
[ -e link.img.nksim ] && fail "put through a symlink made a sidecar beside the link"
cp real/side.img.nksim side.before
"$NK" put side-link.img new /x $G 2> err || fail "put through a symlink to an image with a sidecar: $(cat err)"
[ -L side-link.img ] || fail "put replaced the link to an image with a sidecar"
[ -e side-link.img.nksim ] && fail "put made a sidecar beside the link"
"$NK" cat real/side.img /x $G 2> /dev/null | cmp -s - new || fail "the image behind the link is not updated"
compgen -G "real/*.nktmp-*" > /dev/null && fail "put through a symlink left a temporary file"

# a_fifo_as_host_file_is_refused_at_once
mkfifo fifo
timeout 20 "$NK" put fs.img fifo /ff $G > /dev/null 2> err
rc=$?
[ "$rc" = 124 ] && fail "put of a FIFO hung"
[ "$rc" = 2 ] || fail "put of a FIFO: exit $rc, expected 2"
grep -q "fifo is not a regular file" err || fail "put of a FIFO: $(cat err)"

# no_space_names_the_path_the_user_gave
new_image tiny.img
"$NK" put tiny.img new /first $G > /dev/null 2>&1
head -c 9000000 /dev/urandom > huge
"$NK" put tiny.img huge /big $G > /dev/null 2> err
rc=$?
[ "$rc" = 1 ] || fail "put of a file bigger than the image: exit $rc, expected 1"
grep -q "put /big:" err || fail "no space in the image: message does not name /big: $(cat err)"
grep -q "nkput" err && fail "no space in the image: message names the temporary file: $(cat err)"

# a_read_only_image_is_named_as_such
new_image ro.img
chmod 0444 ro.img
cp ro.img ro.before
"$NK" put ro.img new /x $G > /dev/null 2> err
rc=$?
[ "$rc" = 1 ] || fail "put on a 0444 image: exit $rc, expected 1"
grep -q "ro.img is read-only (mode 0444): give --force" err || fail "put on a 0444 image: $(cat err)"
cmp -s ro.img ro.before || fail "put on a 0444 image without --force changed it"
"$NK" put ro.img new /x $G --force 2> err || fail "put --force on a 0444 image: $(cat err)"
"$NK" cat ro.img /x $G 2> /dev/null | cmp -s - new || fail "put --force on a 0444 image did not write it"
[ "$(stat -c %a ro.img)" = 444 ] || fail "put --force changed the image's mode to $(stat -c %a ro.img)"
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
    chmod 0755 "$TMP"
    chmod 0644 ro.img
    setpriv --reuid=65534 --regid=65534 --clear-groups "$NK" put ro.img new /y $G > /dev/null 2> err
    rc=$?
    [ "$rc" = 1 ] || fail "put on another user's image: exit $rc, expected 1"
    grep -q "ro.img is not writable: Permission denied" err || fail "put on another user's image: $(cat err)"
    grep -q "nktmp" err && fail "put on another user's image names the temporary file: $(cat err)"
fi

# a_full_host_disk_is_named_as_such (root, where a small tmpfs can be mounted)
mkdir small
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=600k tmpfs small 2> /dev/null; then
    "$NK" mkimage src small/fs.img $G --no-progress > /dev/null 2>&1
    cp small/fs.img full.before
    head -c 500000 /dev/urandom > half
    "$NK" put small/fs.img half /half $G > /dev/null 2> err
    rc=$?
    [ "$rc" = 1 ] || fail "put onto a full host disk: exit $rc, expected 1"
    grep -q "small/fs.img.*no space left on the host disk" err || fail "put onto a full host disk: $(cat err)"
    cmp -s small/fs.img full.before || fail "put onto a full host disk changed the image"
    compgen -G "small/fs.img.nktmp-*" > /dev/null && fail "put onto a full host disk left a temporary file"
    umount small
fi

# stale_temporary_copies_go_with_the_next_write: what a kill -9 leaves.
new_image k.img
for s in aaaaaa bbbbbb; do
    cp k.img "k.img.nktmp-$s"
    : > "k.img.nktmp-$s.nksim"
done
: > k.img.nktmp-cccccc.nksim
"$NK" mkdir k.img /d $G 2> err || fail "mkdir beside stale temporary files: $(cat err)"
compgen -G "k.img.nktmp-*" > /dev/null && fail "stale temporary files stay: $(ls k.img.nktmp-*)"
# ... but never one another command holds (it is working in it).
cp k.img k.img.nktmp-dddddd
if command -v flock > /dev/null; then
    flock -o k.img.nktmp-dddddd -c 'echo $$ > sleeper.pid; touch ready; exec sleep 30' &
    holder=$!
    while [ ! -e ready ]; do sleep 0.01; done
    "$NK" mkdir k.img /e $G 2> err || fail "mkdir beside a busy temporary file: $(cat err)"
    [ -e k.img.nktmp-dddddd ] || fail "a temporary file in use was removed"
    kill "$(cat sleeper.pid)" 2> /dev/null
    wait "$holder" 2> /dev/null
fi

# killed_puts_leave_no_copy_for_good: kill -9 while the temporary copy
# exists, three times; the next write removes every copy left.
new_image kill.img
head -c 3000000 /dev/urandom > big3
killed=0
for i in 1 2 3; do
    "$NK" put kill.img big3 "/k$i" $G > /dev/null 2>&1 &
    pid=$!
    while kill -0 "$pid" 2> /dev/null; do
        if compgen -G "kill.img.nktmp-*" > /dev/null; then
            kill -9 "$pid" 2> /dev/null && killed=$((killed + 1))
            break
        fi
    done
    wait "$pid" 2> /dev/null
done
"$NK" mkdir kill.img /after $G 2> err || fail "mkdir after killed puts: $(cat err)"
compgen -G "kill.img.nktmp-*" > /dev/null && fail "killed puts left copies for good: $(ls kill.img.nktmp-*)"
echo "killed puts: $killed of 3 killed while their copy existed"

# a_geometry_that_disagrees_with_the_sidecar_is_refused_before_writing
"$NK" sim create g.img --geometry 2048,64,64,256 > /dev/null 2>&1 || fail "sim create g.img"
"$NK" mkimage src g.img --geometry 2048,64,64,256 --no-progress > /dev/null 2>&1 || fail "mkimage g.img"
cp g.img g.before
cp g.img.nksim g.side.before
"$NK" put g.img new /x --geometry 2048,64,64,2048 > /dev/null 2> err
rc=$?
[ "$rc" = 2 ] || fail "put with a block count the sidecar disagrees with: exit $rc, expected 2"
grep -q "disagrees with g.img, whose sidecar g.img.nksim describes 2048+64 x 64 x 256" err ||
    fail "put with a wrong --geometry: $(cat err)"
cmp -s g.img g.before && cmp -s g.img.nksim g.side.before || fail "put with a wrong --geometry wrote"
"$NK" put g.img new /x --geometry 2048,64,64,256 2> err || fail "put with the right geometry after a refused one: $(cat err)"
# An image without a sidecar gets none from put, so nothing later disagrees.
new_image n.img
"$NK" put n.img new /x $G 2> /dev/null || fail "put on an image without a sidecar"
[ -e n.img.nksim ] && fail "put made a sidecar for an image that had none"

nk_test_end "put safety tests passed"

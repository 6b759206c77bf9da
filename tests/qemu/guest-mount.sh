#!/bin/busybox sh
# /init of the mount guest (ctest qemu_linux_mtd_mount): `nandkit mount
# /dev/mtd0` through the kernel's FUSE on a nandsim K9F1G08 with the
# kernel's on-flash BBT and bad blocks 5 and 10. Busybox writes through the
# mount (tests/qemu/mount-ops.sh), the daemon is stopped by fusermount3 -u,
# by SIGTERM and by SIGKILL, and a read-only mount compares the tree with the
# same operations run on tmpfs. nanddump copies the chip to the virtio disks
# (vda after the clean unmounts, vdb after the kill and the recovery) for the
# host's own check (run-harness.sh). One PASS/FAIL line per check.
. /lib/guest-lib.sh
umask 022
DATA=/data
. /lib/mount-ops.sh
mkdir -p /mnt /etc
ln -sf /proc/self/mounts /etc/mtab # libfuse and fusermount3 update no mtab then

[ -c /dev/fuse ] && pass "dev-fuse" "fuse.ko loaded: $(ls -l /dev/fuse | tr -s ' ')" ||
    fail "dev-fuse" "no /dev/fuse after insmod fuse.ko"

# tree_list DIR [EXCLUDE]: one line per entry below DIR (lost+found and
# names matching the regular expression EXCLUDE aside): type, mode, size,
# links and MD5 of a file; mode of a directory; a symlink's target.
tree_list() {
    (cd "$1" && find . | grep -v -x -e '\.' -e '\./lost+found' -e "${2:-^$}" | sort) |
        while read -r p; do
            f="$1/$p"
            if [ -L "$f" ]; then
                echo "$p -> $(readlink "$f")"
            elif [ -d "$f" ]; then
                echo "$p dir $(stat -c %a "$f")"
            else
                echo "$p file $(stat -c '%a %s %h' "$f") $(md5sum <"$f" | cut -d' ' -f1)"
            fi
        done
}

# same_tree NAME DIR EXPECTED [EXCLUDE] [WHAT]: PASS when the listings agree.
same_tree() {
    tree_list "$2" "$4" >/tmp/got.list
    tree_list "$3" "$4" >/tmp/want.list
    if [ -s /tmp/want.list ] && cmp -s /tmp/got.list /tmp/want.list; then
        pass "$1" "$(wc -l </tmp/want.list) entries${5:+ $5}: names, types, modes, sizes, link counts, MD5s and symlink targets as on tmpfs"
    else
        fail "$1" "$(diff /tmp/want.list /tmp/got.list | grep '^[-+]\.' | head -6 | tr '\n' '|')"
    fi
}

mounted() { grep -q " /mnt fuse" /proc/mounts; }

# mount_start NAME [OPTIONS]: the daemon in the foreground, in the background
# of this shell (PID); waits for the mount.
mount_start() {
    name=$1
    shift
    nandkit mount /dev/mtd0 /mnt -f "$@" 2>>/tmp/mount.err &
    PID=$!
    i=0
    while ! mounted && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    mounted && return 0
    fail "$name" "nandkit mount /dev/mtd0 /mnt -f $* did not come up: $(tr '\n' '|' </tmp/mount.err)"
    return 1
}

# mount_stopped NAME HOW: the daemon exited 0 and the mount is gone.
mount_stopped() {
    wait $PID
    status=$?
    if [ $status -eq 0 ] && ! mounted; then
        pass "$1" "$2: the daemon exited 0, /mnt unmounted"
    else
        fail "$1" "$2: the daemon exited $status, mounted: $(grep ' /mnt ' /proc/mounts): $(tail -n 3 /tmp/mount.err | tr '\n' '|')"
    fi
}

# fsck_clean NAME: nandkit fsck /dev/mtd0 finds 0 problems.
fsck_clean() {
    if nandkit fsck /dev/mtd0 >/tmp/fsck.txt 2>&1 && grep -q ": 0 problems" /tmp/fsck.txt; then
        pass "$1" "$(grep -E '^(objects|blocks):' /tmp/fsck.txt | tr '\n' ';')"
    else
        fail "$1" "$(tr '\n' '|' </tmp/fsck.txt)"
    fi
}

# dump DISK NAME: the whole chip, data and OOB, bad blocks included.
dump() {
    if nanddump --bb=dumpbad --oob -q -f "$1" /dev/mtd0 2>/tmp/dump.err; then
        sync
        pass "$2" "nanddump --bb=dumpbad --oob of /dev/mtd0 to $1 for the host"
        echo "DUMP $1"
    else
        fail "$2" "nanddump: $(tr '\n' '|' </tmp/dump.err)"
    fi
}

run_checks() {
    rm -rf /tmp/base /tmp/expected
    mkdir -p /tmp/base /tmp/expected
    mount_ops_base /tmp/base
    if ! nandkit mkimage /tmp/base /dev/mtd0 --no-progress >/tmp/mk.txt 2>&1; then
        fail "mkimage" "$(tr '\n' '|' </tmp/mk.txt)"
        return
    fi
    pass "mkimage" "$(grep -E '^blocks:' /tmp/mk.txt)"
    mount_ops_base /tmp/expected

    # Read-write, then fusermount3 -u.
    mount_start "mount-rw" || return
    if (mount_ops_first /mnt) 2>/tmp/ops.err; then
        pass "ops-first" "cp, mkdir, echo >, >>, mv, rm, rm -r, ln, ln -s, chmod through the mount"
    else
        fail "ops-first" "$(tr '\n' '|' </tmp/ops.err)"
    fi
    mount_ops_first /tmp/expected
    same_tree "first-live" /mnt /tmp/expected "" "while mounted"
    sync
    fusermount3 -u /mnt 2>/tmp/fu.err || fail "fusermount3" "fusermount3 -u /mnt: $(cat /tmp/fu.err)"
    mount_stopped "unmount-fusermount3" "fusermount3 -u /mnt"

    # Read-write again, stopped with SIGTERM.
    mount_start "mount-rw2" || return
    same_tree "first-remount" /mnt /tmp/expected "" "after fusermount3 -u and a new mount"
    if (mount_ops_second /mnt) 2>/tmp/ops.err; then
        pass "ops-second" "appends, mv across directories and over a file, rm of a symlink, truncate, rmdir"
    else
        fail "ops-second" "$(tr '\n' '|' </tmp/ops.err)"
    fi
    mount_ops_second /tmp/expected
    sync
    kill -TERM $PID
    mount_stopped "unmount-sigterm" "kill -TERM"

    # Read-only: the tree as expected, and nothing can be written.
    mount_start "mount-ro" -o ro || return
    same_tree "ro-tree" /mnt /tmp/expected "" "on a -o ro mount"
    if (echo x >/mnt/ro-write) 2>/tmp/ro.err || ! grep -q "Read-only file system" /tmp/ro.err; then
        fail "ro-refuses" "echo > /mnt/ro-write: $(cat /tmp/ro.err)"
    else
        pass "ro-refuses" "echo > /mnt/ro-write: $(cat /tmp/ro.err)"
    fi
    fusermount3 -u /mnt 2>/tmp/fu.err || fail "fusermount3" "fusermount3 -u /mnt: $(cat /tmp/fu.err)"
    mount_stopped "unmount-ro" "fusermount3 -u /mnt (-o ro)"
    fsck_clean "fsck-clean"
    dump /dev/vda "dump-clean"

    # SIGKILL while a writer fsyncs 300000-byte files one after another.
    mount_start "mount-rw3" || return
    mkdir /mnt/kill
    rm -f /tmp/kill.done
    (
        n=0
        while dd if=$DATA/r300000 of=/mnt/kill/f$((n + 1)) bs=65536 conv=fsync 2>/dev/null; do
            n=$((n + 1))
            echo $n >/tmp/kill.done
        done
    ) &
    writer=$!
    # (The count is empty for a moment while the writer rewrites it.)
    i=0
    while [ $i -lt 600 ]; do
        count=$(cat /tmp/kill.done 2>/dev/null)
        [ "${count:-0}" -ge 5 ] && break
        sleep 0.1
        i=$((i + 1))
    done
    kill -0 $writer 2>/dev/null && writing=yes || writing=no
    kill -KILL $PID
    wait $PID 2>/dev/null
    fusermount3 -u -z /mnt 2>/dev/null
    wait $writer
    done_files=$(cat /tmp/kill.done 2>/dev/null)
    done_files=${done_files:-0}
    if [ $writing = yes ] && [ "$done_files" -ge 5 ]; then
        pass "kill-under-load" "SIGKILL to the daemon with the writer going, after $done_files files fsync'd"
    else
        fail "kill-under-load" "writer still going at the kill: $writing; $done_files files fsync'd (5 wanted)"
    fi
    # Read-only, before any recovery: no damage (a page the kill cut short is
    # a trace of an interrupted write, fsck's exit status 3).
    nandkit fsck /dev/mtd0 >/tmp/fsck.txt 2>&1
    verdict=$?
    if [ $verdict = 0 ] || [ $verdict = 3 ]; then
        pass "kill-fsck" "fsck of the killed file system before recovery: exit $verdict"
    else
        fail "kill-fsck" "exit $verdict: $(grep problem /tmp/fsck.txt | head -n 3 | tr '\n' '|')"
    fi
    mount_start "mount-recover" || return
    why=""
    n=1
    while [ $n -le "$done_files" ]; do
        cmp -s $DATA/r300000 /mnt/kill/f$n || why="$why kill/f$n differs;"
        n=$((n + 1))
    done
    if [ -z "$why" ]; then
        pass "kill-fsyncd" "the $done_files files fsync'd before the SIGKILL read back byte for byte"
    else
        fail "kill-fsyncd" "$why"
    fi
    same_tree "kill-tree" /mnt /tmp/expected '\./kill.*' "outside /kill after the kill"
    # Only the fsync'd files stay, so that the host knows the whole tree.
    for f in /mnt/kill/*; do
        [ "${f#/mnt/kill/f}" -le "$done_files" ] 2>/dev/null || rm -f "$f"
    done
    echo "KILL-FILES $done_files"
    cp $DATA/r65536 /mnt/after-recovery || fail "after-recovery" "cp onto the recovered mount failed"
    fusermount3 -u /mnt 2>/tmp/fu.err || fail "fusermount3" "fusermount3 -u /mnt: $(cat /tmp/fu.err)"
    mount_stopped "unmount-recovered" "fusermount3 -u /mnt after the recovery"
    fsck_clean "fsck-recovered"
    dump /dev/vdb "dump-recovered"
}

if nandsim_load bbt=1 badblocks=5,10; then
    run_checks
    mounted && fusermount3 -u -z /mnt
    nandsim_unload
fi

echo "HARNESS-END"
sync
poweroff -f

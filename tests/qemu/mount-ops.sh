# The file operations of the mount check (tests/qemu/guest-mount.sh), as
# plain commands that busybox sh and bash run alike: the guest runs them on
# the FUSE mount and on a tmpfs copy, the host (run-harness.sh) on a
# directory of its own, so that each side has the tree it expects without
# being told it. DATA holds the host's pseudo-random files r0, r1, r2047 ...
# Every function takes the tree's root; callers set umask 022.

# The tree mkimage builds on /dev/mtd0 before the first mount.
mount_ops_base() {
    mkdir -p "$1/etc" "$1/data" "$1/keep/sub" "$1/gone/inner"
    echo "127.0.0.1 localhost" >"$1/etc/hosts"
    cp "$DATA/r300000" "$1/data/a.bin"
    cp "$DATA/r2049" "$1/data/old.txt"
    cp "$DATA/r2047" "$1/keep/sub/x"
    cp "$DATA/r1" "$1/gone/f1"
    cp "$DATA/r4096" "$1/gone/inner/f2"
    ln -s ../data/a.bin "$1/keep/to-a"
}

# The first read-write mount (unmounted with fusermount3 -u): new files of
# every size class, appends, renames of a file and of a directory, removals,
# a file rewritten shorter, a hard link, symlinks (one dangling), a mode.
mount_ops_first() {
    mkdir -p "$1/new/deep/er"
    cp "$DATA/r1200000" "$1/new/big.bin"
    cp "$DATA/r0" "$1/new/empty"
    cp "$DATA/r2048" "$1/new/deep/er/page"
    cp "$DATA/r65536" "$1/new/deep/r65536"
    echo "hello through FUSE" >"$1/new/hello.txt"
    echo "10.0.0.1 board" >>"$1/etc/hosts"
    mv "$1/data/old.txt" "$1/new/renamed.txt"
    mv "$1/keep" "$1/kept"
    rm "$1/gone/f1"
    rm -r "$1/gone"
    cp "$DATA/r4096" "$1/data/a.bin"
    ln "$1/new/big.bin" "$1/new/big-hard"
    ln -s ../new/big.bin "$1/data/link"
    ln -s /nowhere "$1/dangling"
    chmod 600 "$1/new/deep/er/page"
}

# The second read-write mount (ended with SIGTERM): appends in many small
# writes, a rename across directories, a rename over an existing file, a
# symlink removed, a file truncated, an empty directory removed.
mount_ops_second() {
    mkdir "$1/second" "$1/second/void"
    i=1
    while [ $i -le 40 ]; do
        echo "line $i of a log appended one line per open" >>"$1/second/log"
        i=$((i + 1))
    done
    cp "$DATA/r65536" "$1/second/s.bin"
    mv "$1/new/hello.txt" "$1/second/hello.txt"
    cp "$DATA/r1" "$1/second/one"
    mv "$1/second/one" "$1/new/empty"
    rm "$1/data/link"
    ln -s second/s.bin "$1/top-link"
    truncate -s 5000 "$1/new/big.bin"
    rmdir "$1/second/void"
}

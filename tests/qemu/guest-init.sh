#!/bin/busybox sh
# /init of the QEMU harness guest (busybox sh). Loads the MTD modules,
# loads nandsim as a K9F1G08-like chip in three variants (Hamming with a
# kernel-written BBT and bad blocks 5,10; BCH-4; BCH-8), runs the checks and
# reports one PASS/FAIL/PENDING line per check on the serial console, then
# powers off. The host (run-harness.sh) reads the lines.
. /lib/guest-lib.sh

# cli_error NAME PATTERN -- ARGS: `nandkit ARGS` ends with status 2 and one
# line matching PATTERN.
cli_error() {
    name=$1 pattern=$2
    shift 3
    nandkit "$@" >/tmp/err.txt 2>&1
    status=$?
    if [ $status -eq 2 ] && [ "$(wc -l </tmp/err.txt)" -eq 1 ] && grep -q -- "$pattern" /tmp/err.txt; then
        pass "$name" "nandkit $* -> 2: $(cat /tmp/err.txt)"
    else
        fail "$name" "nandkit $* -> $status: $(tr '\n' '|' </tmp/err.txt) (wanted 2 and one line '$pattern')"
    fi
}

# ---- check 4 helpers: a tree, a build on /dev/mtd0, and two read-backs ------------
fs_tree() {
    rm -rf /tmp/tree
    mkdir -p /tmp/tree/etc/init.d /tmp/tree/data/sub /tmp/tree/empty
    for size in 0 1 2047 2048 2049 4096 65536 300000 1200000; do
        head -c $size /dev/urandom >/tmp/tree/data/size$size
    done
    echo "#!/bin/sh" >/tmp/tree/etc/init.d/rcS
    chmod 0755 /tmp/tree/etc/init.d/rcS
    chmod 0600 /tmp/tree/data/size1
    chmod 01777 /tmp/tree/empty
    ln -s ../data/size2049 /tmp/tree/etc/link
    ln /tmp/tree/data/size300000 /tmp/tree/data/sub/hard
    touch -d "2020-02-02 20:20:20" /tmp/tree/data/size65536
}

# fs_same TREE COPY: contents, symlink, hard link, modes and an mtime survived.
fs_same() {
    why=""
    (cd "$1" && find . | sort) >/tmp/names.1
    (cd "$2" && find . | grep -v '^./lost+found$' | sort) >/tmp/names.2
    cmp -s /tmp/names.1 /tmp/names.2 || why="$why names differ;"
    for f in $(cd "$1" && find . -type f); do
        cmp -s "$1/$f" "$2/$f" || why="$why $f differs;"
    done
    [ "$(readlink "$2/etc/link")" = "../data/size2049" ] || why="$why symlink;"
    [ "$(stat -c %i "$2/data/size300000")" = "$(stat -c %i "$2/data/sub/hard")" ] ||
        why="$why hard link;"
    [ "$(stat -c %a "$2/data/size1") $(stat -c %a "$2/empty") $(stat -c %a "$2/etc/init.d/rcS")" = \
        "600 1777 755" ] || why="$why modes;"
    [ "$(stat -c %Y "$2/data/size65536")" = "$(stat -c %Y "$1/data/size65536")" ] ||
        why="$why mtime;"
    echo "$why"
}

# fs_check NAME BUILD_ECC READ1_ECC READ2_ECC: mkimage with one --mtd-ecc, then
# two mounts that read everything back, with the --mtd-ecc modes given.
fs_check() {
    name=fs-$1 build=$2
    fs_tree
    if ! nandkit mkimage /tmp/tree /dev/mtd0 --mtd-ecc "$build" --no-progress >/tmp/mk.txt 2>&1; then
        fail "$name" "mkimage --mtd-ecc $build: $(tr '\n' '|' </tmp/mk.txt)"
        return
    fi
    sed "s/^/INFO $name mkimage | /" /tmp/mk.txt
    grep -q "6 bad skipped" /tmp/mk.txt || fail "$name-badblocks" "mkimage did not skip 5, 10 and the BBT's 4"
    for round in 1 2; do
        if [ $round = 1 ]; then read=$3; else read=$4; fi
        rm -rf /tmp/copy
        if ! nandkit extract /dev/mtd0 /tmp/copy --mtd-ecc "$read" >/tmp/x.txt 2>&1; then
            fail "$name-read$round" "extract --mtd-ecc $read: $(tr '\n' '|' </tmp/x.txt)"
            continue
        fi
        why=$(fs_same /tmp/tree /tmp/copy)
        if nandkit cat /dev/mtd0 /data/size1200000 --mtd-ecc "$read" | cmp -s - /tmp/tree/data/size1200000; then
            :
        else
            why="$why cat differs;"
        fi
        if [ -z "$why" ]; then
            pass "$name-read$round" "built with --mtd-ecc $build, mounted with --mtd-ecc $read: every file, symlink, hard link, mode and mtime as in the tree"
        else
            fail "$name-read$round" "$why"
        fi
    done
    if nandkit fsck /dev/mtd0 --mtd-ecc "$read" >/tmp/fsck.txt 2>&1 && grep -q ": 0 problems" /tmp/fsck.txt; then
        pass "$name-fsck" "$(grep -E '^(blocks|objects):' /tmp/fsck.txt | tr '\n' ';')"
    else
        fail "$name-fsck" "$(tr '\n' '|' </tmp/fsck.txt)"
    fi
}

# ---- the mtd-utils style commands on /dev/mtd0 -------------------------------------
BLOCK_BYTES=131072
# flip_byte FILE OFFSET: XOR 0x01 into one byte of FILE, in place.
flip_byte() {
    v=$(dd if="$1" bs=1 skip="$2" count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
    printf "\\$(printf %o $((v ^ 1)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# --noecc is raw both ways in the default --mtd-ecc kernel mode: a page
# written with the kernel's ECC, read raw, one data bit flipped, written
# back raw, reads back raw byte for byte (the kernel neither recomputed its
# ECC bytes nor corrected the bit), and through the kernel's ECC as written.
cli_noecc_raw() {
    off=$((40 * BLOCK_BYTES))
    head -c 2048 /dev/urandom >/tmp/p.bin
    why=""
    nandkit erase /dev/mtd0 $off 1 -q >/tmp/e.txt 2>&1 || why="$why erase: $(cat /tmp/e.txt);"
    nandkit write /dev/mtd0 /tmp/p.bin -s $off -q >/tmp/e.txt 2>&1 || why="$why write: $(cat /tmp/e.txt);"
    nandkit read /dev/mtd0 --noecc --oob -s $off -l 2048 -q -f /tmp/raw.bin 2>/tmp/e.txt || why="$why raw read: $(cat /tmp/e.txt);"
    cp /tmp/raw.bin /tmp/raw2.bin
    flip_byte /tmp/raw2.bin 100
    nandkit erase /dev/mtd0 $off 1 -q >/tmp/e.txt 2>&1 || why="$why erase 2: $(cat /tmp/e.txt);"
    nandkit write /dev/mtd0 /tmp/raw2.bin -s $off --noecc --oob -q >/tmp/e.txt 2>&1 || why="$why raw write: $(cat /tmp/e.txt);"
    nandkit read /dev/mtd0 --noecc --oob -s $off -l 2048 -q -f /tmp/raw3.bin 2>/tmp/e.txt || why="$why raw read 2: $(cat /tmp/e.txt);"
    cmp -s /tmp/raw2.bin /tmp/raw3.bin || why="$why the raw page read back differs from the one written raw ($(cmp -l /tmp/raw2.bin /tmp/raw3.bin | wc -l) bytes);"
    nandkit read /dev/mtd0 -s $off -l 2048 -q -f /tmp/cor.bin 2>/tmp/e.txt || why="$why ECC read: $(cat /tmp/e.txt);"
    cmp -s /tmp/p.bin /tmp/cor.bin || why="$why the kernel's ECC did not restore the flipped bit;"
    if [ -z "$why" ]; then
        pass "cli-noecc-raw" "--mtd-ecc kernel: a page with one flipped bit written and read with --noecc stays as written (2112 bytes), the kernel's ECC corrects it"
    else
        fail "cli-noecc-raw" "$why"
    fi
}

# read: -l 0 is to the end, and --bb=padbad past the end stops there (nanddump);
# write - reads standard input (nandwrite); a device that is not MTD says so.
cli_dump_compat() {
    last=$((1023 * BLOCK_BYTES))
    why=""
    nandkit read /dev/mtd0 -s $((1000 * BLOCK_BYTES)) -l 0 --bb=dumpbad --noecc -q -f /tmp/tail.bin 2>/tmp/e.txt || why="$why -l 0 dumpbad: $(cat /tmp/e.txt);"
    [ "$(stat -c %s /tmp/tail.bin 2>/dev/null)" = $((24 * BLOCK_BYTES)) ] || why="$why -l 0 read $(stat -c %s /tmp/tail.bin) bytes, not 24 blocks;"
    nandkit read /dev/mtd0 -s $last -l 1MiB --bb=padbad -q -f /tmp/pad.bin 2>/tmp/e.txt || why="$why padbad past the end: $(cat /tmp/e.txt);"
    [ "$(stat -c %s /tmp/pad.bin 2>/dev/null)" = $BLOCK_BYTES ] || why="$why padbad past the end wrote $(stat -c %s /tmp/pad.bin) bytes, not one block;"
    off=$((41 * BLOCK_BYTES))
    head -c 4096 /dev/urandom >/tmp/s.bin
    nandkit erase /dev/mtd0 $off 1 -q >/tmp/e.txt 2>&1 || why="$why erase: $(cat /tmp/e.txt);"
    cat /tmp/s.bin | nandkit write /dev/mtd0 - -s $off -q >/tmp/e.txt 2>&1 || why="$why write -: $(cat /tmp/e.txt);"
    nandkit read /dev/mtd0 -s $off -l 4096 -q -f /tmp/s2.bin 2>/tmp/e.txt || why="$why read back: $(cat /tmp/e.txt);"
    cmp -s /tmp/s.bin /tmp/s2.bin || why="$why write - did not program standard input;"
    if [ -z "$why" ]; then
        pass "cli-nanddump-compat" "read -l 0 to the end, padbad past the end stops at it, write - from a pipe"
    else
        fail "cli-nanddump-compat" "$why"
    fi
    cli_error "cli-not-mtd" "/dev/null is a character device, not an MTD one" -- info /dev/null --geometry 2048,64,64,4
}

# badblocks --mark on a device whose kernel keeps an on-flash table: the
# kernel marks the block (its sysfs count goes up by one) and rewrites its
# own table; nandkit writes nothing into the table's blocks.
cli_mark_kernel() {
    before=$(cat /sys/class/mtd/mtd0/bad_blocks)
    if nandkit badblocks /dev/mtd0 --mark 20 --write-bbt >/tmp/bb.txt 2>&1 &&
        grep -q "marked       block 20 bad through the kernel" /tmp/bb.txt &&
        grep -q "bad block    20 " /tmp/bb.txt &&
        grep -q "main table   block 1023" /tmp/bb.txt &&
        [ "$(cat /sys/class/mtd/mtd0/bad_blocks)" = $((before + 1)) ]; then
        pass "cli-mark-kernel" "sysfs bad_blocks $before -> $(cat /sys/class/mtd/mtd0/bad_blocks); $(grep -E '^(main|mirror|total)' /tmp/bb.txt | tr -s ' ' | tr '\n' ';')"
    else
        fail "cli-mark-kernel" "sysfs bad_blocks $before -> $(cat /sys/class/mtd/mtd0/bad_blocks): $(tr '\n' '|' </tmp/bb.txt)"
    fi
    cli_error "cli-mtd-write-bbt" "the kernel keeps the bad-block table of /dev/mtd0" -- badblocks /dev/mtd0 --write-bbt
}

# ---- variant 1: Hamming, on-flash BBT, bad blocks 5 and 10 ---------------------
if nandsim_load bbt=1 badblocks=5,10; then
    # Check 1: nandkit info (both modes) and bench.
    for mode in kernel nandkit; do
        if nandkit info /dev/mtd0 --mtd-ecc $mode >/tmp/info.txt 2>&1 &&
            grep -q "geometry      2048 + 64 bytes/page, 64 pages/block, 1024 blocks" /tmp/info.txt &&
            grep -q "bad blocks    2 found" /tmp/info.txt; then
            pass "info-$mode" "$(sed -n 's/^geometry *//p' /tmp/info.txt); $(sed -n 's/^bad blocks *//p' /tmp/info.txt)"
        else
            fail "info-$mode" "$(tr '\n' '|' </tmp/info.txt)"
        fi
    done
    # Blocks 100.. are free for the benchmark to erase and write; the
    # K9F1G08U0A datasheet gives the limits nandsim's figures sit beside.
    for mode in kernel nandkit; do
        if nandkit bench /dev/mtd0 --mtd-ecc $mode --chip K9F1G08U0A --blocks 100-199 --destructive \
            --count 64 --block-count 4 --no-progress >/tmp/bench.txt 2>&1 &&
            grep -q "^page read (data+OOB)" /tmp/bench.txt; then
            pass "bench-$mode" "nandkit bench /dev/mtd0 --mtd-ecc $mode (wall time):"
            sed 's/^/INFO bench | /' /tmp/bench.txt
        else
            fail "bench-$mode" "$(tr '\n' '|' </tmp/bench.txt)"
        fi
    done
    nk_mtd_guest time /dev/mtd0

    # Bad input on an MTD path: a missing device is named (not taken for an
    # image file), the device describes itself (no --chip/--geometry), the
    # mode is checked, and a layout the kernel's OOB layout cannot carry is
    # refused by the mount naming both sides.
    cli_error "cli-mtd-missing" "cannot open /dev/mtd7" -- info /dev/mtd7
    cli_error "cli-mtd-chip" "/dev/mtd0 describes itself" -- info /dev/mtd0 --chip K9F1G08U0A
    cli_error "cli-mtd-geometry" "/dev/mtd0 describes itself" -- badblocks /dev/mtd0 --geometry 2048,64,64
    cli_error "cli-mtd-ecc-mode" "unknown --mtd-ecc 'hardware'" -- info /dev/mtd0 --mtd-ecc hardware
    cli_error "cli-mtd-layout" "layout mkyaffs2 keeps its tags in OOB bytes 0-27; device's free OOB bytes start at byte 2 (kernel on 64-byte OOB)" -- ls /dev/mtd0 --layout mkyaffs2

    # Check 3: BBT agreement (read-only), and the CLI's view of it.
    nk_mtd_guest bbt /dev/mtd0 5,10
    if nandkit badblocks /dev/mtd0 --dry-run >/tmp/bb.txt 2>&1 &&
        grep -q "bad block    5 " /tmp/bb.txt && grep -q "bad block    10 " /tmp/bb.txt &&
        grep -q "total        2 bad of 1024 blocks" /tmp/bb.txt; then
        pass "badblocks-cli" "$(grep -E '^(main|mirror|total)' /tmp/bb.txt | tr -s ' ' | tr '\n' ';')"
    else
        fail "badblocks-cli" "$(tr '\n' '|' </tmp/bb.txt)"
    fi

    # Check 2: ECC agreement with software Hamming.
    nk_mtd_guest ecc /dev/mtd0 hamming

    # Check 4: a nandkit file system on /dev/mtd0 through the backend: built
    # from a tree with mkimage, then mounted and read back twice (every
    # nandkit ls/cat/extract/fsck is a mount and an unmount), in each ECC mode.
    fs_check kernel-ecc kernel kernel kernel
    nk_mtd_guest fs /dev/mtd0 5,10
    fs_check nandkit-ecc nandkit kernel nandkit
    nk_mtd_guest fs /dev/mtd0 5,10

    # The mtd-utils style commands as mtd-utils users expect them; the
    # kernel's table changes last.
    cli_noecc_raw
    cli_dump_compat
    cli_mark_kernel
    nandsim_unload
fi

# ---- variants 2 and 3: BCH-4 and BCH-8 over 512-byte steps -----------------------
for t in 4 8; do
    if nandsim_load bch=$t; then
        nk_mtd_guest ecc /dev/mtd0 bch$t
        nandsim_unload
    fi
done

echo "HARNESS-END"
sync
poweroff -f

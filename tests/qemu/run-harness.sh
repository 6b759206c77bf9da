#!/usr/bin/env bash
# Boots Debian's own kernel under QEMU with nandsim and runs nandkit's Linux
# MTD checks inside it (tests/qemu/guest-init.sh). See docs/linux-mtd.md.
#
# usage: run-harness.sh --nandkit PATH --guest PATH --work DIR
#                       [--suite mtd|mount] [--kernel-cache DIR]
#
# --suite mount (ctest qemu_linux_mtd_mount) runs tests/qemu/guest-mount.sh
# instead: `nandkit mount /dev/mtd0` through the kernel's FUSE. Its initramfs
# adds fuse.ko, the virtio disk modules, fusermount3, nanddump, the host's
# pseudo-random data files and tests/qemu/mount-ops.sh; the guest dumps the
# chip to two virtio disks, and the host checks each dump against the tree
# it built by running mount-ops.sh itself (tests/qemu/check-dump.py).
#
# The kernel is never installed on the host: the package that
# linux-image-amd64 depends on is fetched with `apt-get download` into
# DIR/kernel or the --kernel-cache DIR (cached), and vmlinuz plus the needed
# modules are unpacked with dpkg-deb. The uncompressed vmlinux is carved out
# of vmlinuz (its xz/gzip/zstd payload) because it boots faster. The
# initramfs holds busybox-static,
# the modules in dependency order (from each module's .modinfo "depends="),
# nandkit and the guest driver with the shared libraries they need.
#
# Exit status: 0 when every check passed, 1 on a failure or when
# qemu-system-x86_64 is missing (scripts/install-deps.sh qemu installs it).
# Environment: NANDKIT_QEMU_KVM=1 tries KVM first (short timeout, then TCG).
set -euo pipefail

nandkit="" guest="" work="" suite=mtd kernel_cache=""
while [[ $# -gt 0 ]]; do
    case "$1" in
    --nandkit) nandkit=$2; shift 2 ;;
    --guest) guest=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --suite) suite=$2; shift 2 ;;
    --kernel-cache) kernel_cache=$2; shift 2 ;;
    *) echo "run-harness: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[[ -n $nandkit && -n $guest && -n $work ]] || {
    echo "usage: run-harness.sh --nandkit PATH --guest PATH --work DIR [--suite mtd|mount]" \
        "[--kernel-cache DIR]" >&2
    exit 2
}
[[ $suite == mtd || $suite == mount ]] || {
    echo "run-harness: unknown --suite '$suite' (mtd, mount)" >&2
    exit 2
}
kernel_cache=${kernel_cache:-$work/kernel}
here=$(cd "$(dirname "$0")" && pwd)
start=$SECONDS
log() { printf 'harness: %s (%ds)\n' "$*" $((SECONDS - start)); }
die() { printf 'harness: FAIL: %s\n' "$*" >&2; exit 1; }

missing=()
tools=(qemu-system-x86_64 busybox)
[[ $suite == mount ]] && tools+=(fusermount3 nanddump python3)
declare -A tool_path=()
for tool in "${tools[@]}"; do
    # nanddump is in /usr/sbin, which a user's PATH may leave out.
    tool_path[$tool]=$(PATH=$PATH:/usr/sbin:/sbin command -v "$tool" || true)
    [[ -n ${tool_path[$tool]} ]] || missing+=("$tool")
done
if [[ ${#missing[@]} -gt 0 ]]; then
    die "missing ${missing[*]} (scripts/install-deps.sh qemu installs them)"
fi
[[ -x $nandkit ]] || die "no nandkit binary at $nandkit"
[[ -x $guest ]] || die "no guest driver at $guest"
nandkit=$(realpath "$nandkit") guest=$(realpath "$guest")
cpio_cmd=(cpio)
command -v cpio >/dev/null || cpio_cmd=(busybox cpio)

# ----- the kernel package ---------------------------------------------------------
mkdir -p "$work" "$kernel_cache"
work=$(cd "$work" && pwd)
cd "$kernel_cache"
package=$(apt-cache depends linux-image-amd64 2>/dev/null |
    awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
if [[ -z $package ]]; then
    # No package lists (apt-get update never ran): use a cached download.
    deb=$(ls -t linux-image-*-amd64_*.deb 2>/dev/null | head -n 1 || true)
    [[ -n $deb ]] || die "apt-cache knows no linux-image-amd64: run apt-get update"
    package=${deb%%_*}
else
    deb=$(ls "${package}"_*.deb 2>/dev/null | head -n 1 || true)
    if [[ -z $deb ]]; then
        log "downloading $package"
        apt-get download -q "$package" >download.log 2>&1 || {
            cat download.log >&2
            die "apt-get download $package failed"
        }
        deb=$(ls "${package}"_*.deb | head -n 1)
    fi
fi
tree="$kernel_cache/${deb%.deb}"
# What is unpacked; a tree unpacked with another list is unpacked again.
wanted=('boot/vmlinuz-*' '*/kernel/drivers/mtd/*' '*/kernel/lib/bch.ko*'
    '*/kernel/fs/fuse/fuse.ko*' '*/kernel/drivers/virtio/*' '*/kernel/drivers/block/virtio_blk.ko*')
if [[ "$(cat "$tree/.complete" 2>/dev/null)" != "${wanted[*]}" ]]; then
    log "unpacking $deb"
    rm -rf "$tree"
    mkdir -p "$tree"
    # Only what the guests need: the kernel image, the MTD/BCH modules, FUSE
    # and the virtio disk.
    dpkg-deb --fsys-tarfile "$deb" |
        tar -x -C "$tree" --wildcards --no-anchored "${wanted[@]}" 2>/dev/null || true
    vmlinuz=$(ls "$tree"/boot/vmlinuz-* 2>/dev/null | head -n 1 || true)
    [[ -n $vmlinuz ]] || die "no boot/vmlinuz-* in $deb"
    # Compressed modules (newer kernels) are unpacked: busybox insmod wants plain ELF.
    find "$tree" -name '*.ko.xz' -exec xz -d {} + 2>/dev/null || true
    find "$tree" -name '*.ko.zst' -exec zstd -q -d --rm {} + 2>/dev/null || true
    # vmlinux: find the payload's magic in the bzImage and decompress it.
    for kind in xz gzip zstd; do
        case $kind in
        xz) magic='\xfd7zXZ\x00'; unpack=(xz -dc --single-stream) ;;
        gzip) magic='\x1f\x8b\x08\x00'; unpack=(gzip -dc) ;;
        zstd) magic='\x28\xb5\x2f\xfd'; unpack=(zstd -dc) ;;
        esac
        command -v "${unpack[0]}" >/dev/null || continue
        offset=$(LC_ALL=C grep -obUaP "$magic" "$vmlinuz" 2>/dev/null | head -n 1 | cut -d: -f1 || true)
        [[ -n $offset ]] || continue
        tail -c +$((offset + 1)) "$vmlinuz" | "${unpack[@]}" >"$tree/vmlinux" 2>/dev/null || true
        # Trailing bytes after the payload may make the tool complain; the
        # ELF it wrote is what counts.
        [[ $(head -c 4 "$tree/vmlinux" | od -An -tx1 | tr -d ' \n') == 7f454c46 ]] && break
        rm -f "$tree/vmlinux"
    done
    echo "${wanted[*]}" >"$tree/.complete"
fi
vmlinuz=$(ls "$tree"/boot/vmlinuz-* | head -n 1)
kernel_image=$vmlinuz
[[ -f $tree/vmlinux ]] && kernel_image=$tree/vmlinux

# ----- modules in load order -----------------------------------------------------------
declare -A module_path=()
while IFS= read -r ko; do
    name=$(basename "$ko" .ko)
    module_path[${name//-/_}]=$ko
done < <(find "$tree" -name '*.ko')
order=()
declare -A placed=()
add_module() {
    local name=${1//-/_} dep
    [[ -n ${placed[$name]:-} ]] && return 0
    [[ -n ${module_path[$name]:-} ]] || die "module $name not in $deb"
    for dep in $(tr '\0' '\n' <"${module_path[$name]}" | sed -n 's/^depends=//p' | tr ',' ' '); do
        add_module "$dep"
    done
    placed[$name]=1
    order+=("$name")
}
add_module nandsim
if [[ $suite == mount ]]; then
    add_module fuse
    add_module virtio_pci
    add_module virtio_blk
fi

# ----- initramfs -----------------------------------------------------------------------
root="$work/root"
rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp,lib/modules}
cp "$here/guest-lib.sh" "$root/lib/guest-lib.sh"
cp "$(command -v busybox)" "$root/bin/busybox"
for name in "${order[@]}"; do
    cp "${module_path[$name]}" "$root/lib/modules/$name.ko"
done
# nandsim is loaded by the init script with per-variant parameters.
printf '%s\n' "${order[@]}" | grep -vx nandsim >"$root/lib/modules/order"
programs=("$nandkit" "$guest")
if [[ $suite == mtd ]]; then
    cp "$here/guest-init.sh" "$root/init"
else
    cp "$here/guest-mount.sh" "$root/init"
    cp "$here/mount-ops.sh" "$root/lib/mount-ops.sh"
    for tool in fusermount3 nanddump; do
        cp "${tool_path[$tool]}" "$root/bin/$tool"
        programs+=("${tool_path[$tool]}")
    done
    # glibc opens libgcc_s.so.1 when FUSE's loop cancels its worker threads
    # (the daemon aborts without it); ldd does not list it.
    libgcc=$(/sbin/ldconfig -p | awk '/libgcc_s\.so\.1 .*x86-64/ {print $NF; exit}')
    [[ -n $libgcc ]] || die "no libgcc_s.so.1 (ldconfig -p) for the FUSE daemon"
    mkdir -p "$root$(dirname "$libgcc")"
    cp -L "$libgcc" "$root$libgcc"
    # The files the operations copy: fixed pseudo-random bytes, the same in
    # the guest and in the host's expected trees.
    rm -rf "$work/data"
    mkdir -p "$work/data"
    python3 - "$work/data" <<'PY'
import os, random, sys
rnd = random.Random(20261202)
for size in (0, 1, 2047, 2048, 2049, 4096, 65536, 300000, 1200000):
    path = os.path.join(sys.argv[1], "r%d" % size)
    with open(path, "wb") as f:
        f.write(rnd.randbytes(size))
    os.chmod(path, 0o644)
PY
    cp -r "$work/data" "$root/data"
fi
chmod 755 "$root/init"
cp "$nandkit" "$root/bin/nandkit"
cp "$guest" "$root/bin/nk_mtd_guest"
# Shared libraries of the programs (and the loader), at their host paths.
for lib in $(for p in "${programs[@]}"; do ldd "$p"; done 2>/dev/null | grep -o '/[^ ]*' | sort -u); do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
done
(cd "$root" && find . | "${cpio_cmd[@]}" -o -H newc 2>/dev/null) >"$work/initramfs.cpio"
log "initramfs $(($(stat -c %s "$work/initramfs.cpio") / 1024)) KiB, modules: ${order[*]}"

# ----- boot ------------------------------------------------------------------------------
serial="$work/serial.log"
# The mount suite's guest dumps the chip (1024 blocks of 64 pages of 2112
# bytes) to vda after the clean unmounts and to vdb after the kill.
disks=()
if [[ $suite == mount ]]; then
    for disk in dump-clean dump-recovered; do
        rm -f "$work/$disk.img"
        truncate -s $((1024 * 64 * 2112)) "$work/$disk.img"
        disks+=(-drive "file=$work/$disk.img,format=raw,if=virtio")
    done
fi
boot() {
    local accel=$1 limit=$2
    log "booting $(basename "$kernel_image") with $accel"
    timeout "$limit" qemu-system-x86_64 -accel "$accel" -m 512 -smp 1 \
        -nographic -nodefaults -serial stdio -no-reboot \
        -kernel "$kernel_image" -initrd "$work/initramfs.cpio" "${disks[@]}" \
        -append "console=ttyS0 panic=-1 quiet loglevel=3" </dev/null >"$serial" 2>&1 || true
}
booted=false
if [[ ${NANDKIT_QEMU_KVM:-0} == 1 && -w /dev/kvm ]]; then
    boot kvm 20
    grep -q HARNESS-END "$serial" && booted=true
fi
$booted || boot tcg 240

tr -d '\r' <"$serial" >"$work/guest.log"

# ----- the mount suite: the host's own reading of the two dumps -------------------------
# The expected trees come from mount-ops.sh run here, not from the guest; the
# guest only says how many files its writer had fsync'd before the kill.
if [[ $suite == mount ]]; then
    rm -rf "$work/expected" "$work/expected-recovered"
    mkdir -p "$work/expected"
    (umask 022 && DATA="$work/data" && . "$here/mount-ops.sh" && mount_ops_base "$work/expected" &&
        mount_ops_first "$work/expected" && mount_ops_second "$work/expected") ||
        die "mount-ops.sh failed on the host"
    cp -a "$work/expected" "$work/expected-recovered"
    kill_files=$(sed -n 's/^KILL-FILES \([0-9][0-9]*\)$/\1/p' "$work/guest.log")
    (
        umask 022
        mkdir "$work/expected-recovered/kill"
        for n in $(seq "${kill_files:-0}"); do
            cp "$work/data/r300000" "$work/expected-recovered/kill/f$n"
        done
        cp "$work/data/r65536" "$work/expected-recovered/after-recovery"
    )
    for disk in dump-clean:vda:expected dump-recovered:vdb:expected-recovered; do
        IFS=: read -r name dev tree <<<"$disk"
        if grep -qx "DUMP /dev/$dev" "$work/guest.log"; then
            # Exit 0 only when its three checks passed; a crash is a failure too.
            if ! python3 "$here/check-dump.py" "$nandkit" "$work/$name.img" "$work/$tree" \
                "host-$name" >"$work/$name.check" 2>&1; then
                grep -q '^FAIL ' "$work/$name.check" ||
                    echo "FAIL host-$name: check-dump.py: $(tail -n 1 "$work/$name.check")" >>"$work/$name.check"
            fi
            cat "$work/$name.check" >>"$work/guest.log"
        else
            echo "FAIL host-$name: the guest wrote no dump to /dev/$dev" >>"$work/guest.log"
        fi
    done
fi

grep -E '^(PASS|FAIL|PENDING|INFO) ' "$work/guest.log" || true
passed=$(grep -c '^PASS ' "$work/guest.log" || true)
failed=$(grep -c '^FAIL ' "$work/guest.log" || true)
pending=$(grep -c '^PENDING ' "$work/guest.log" || true)
if ! grep -q '^HARNESS-END' "$work/guest.log"; then
    tail -n 40 "$serial" >&2
    echo "harness: the guest did not finish (see $serial)" >&2
    failed=$((failed + 1))
fi
log "done: $passed passed, $failed failed, $pending pending"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]

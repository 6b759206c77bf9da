#!/usr/bin/env bash
# Boots Debian's own kernel under QEMU with nandsim and runs nandkit's Linux
# MTD checks inside it (tests/qemu/guest-init.sh). See docs/linux-mtd.md.
#
# usage: run-harness.sh --nandkit PATH --guest PATH --work DIR
#
# The kernel is never installed on the host: the package that
# linux-image-amd64 depends on is fetched with `apt-get download` into
# DIR/kernel (cached), and vmlinuz plus the needed modules are unpacked with
# dpkg-deb. The uncompressed vmlinux is carved out of vmlinuz (its xz/gzip/
# zstd payload) because it boots faster. The initramfs holds busybox-static,
# the modules in dependency order (from each module's .modinfo "depends="),
# nandkit and the guest driver with the shared libraries they need.
#
# Exit status: 0 when every check passed, 1 on a failure or when
# qemu-system-x86_64 is missing (scripts/install-deps.sh qemu installs it).
# Environment: NANDKIT_QEMU_KVM=1 tries KVM first (short timeout, then TCG).
set -euo pipefail

nandkit="" guest="" work=""
while [[ $# -gt 0 ]]; do
    case "$1" in
    --nandkit) nandkit=$2; shift 2 ;;
    --guest) guest=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "run-harness: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[[ -n $nandkit && -n $guest && -n $work ]] || {
    echo "usage: run-harness.sh --nandkit PATH --guest PATH --work DIR" >&2
    exit 2
}
here=$(cd "$(dirname "$0")" && pwd)
start=$SECONDS
log() { printf 'harness: %s (%ds)\n' "$*" $((SECONDS - start)); }
die() { printf 'harness: FAIL: %s\n' "$*" >&2; exit 1; }

missing=()
for tool in qemu-system-x86_64 busybox; do
    command -v "$tool" >/dev/null || missing+=("$tool")
done
if [[ ${#missing[@]} -gt 0 ]]; then
    die "missing ${missing[*]} (scripts/install-deps.sh qemu installs them)"
fi
[[ -x $nandkit ]] || die "no nandkit binary at $nandkit"
[[ -x $guest ]] || die "no guest driver at $guest"
cpio_cmd=(cpio)
command -v cpio >/dev/null || cpio_cmd=(busybox cpio)

# ----- the kernel package ---------------------------------------------------------
mkdir -p "$work/kernel"
cd "$work/kernel"
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
tree="$work/kernel/${deb%.deb}"
if [[ ! -f $tree/.complete ]]; then
    log "unpacking $deb"
    rm -rf "$tree"
    mkdir -p "$tree"
    # Only what the guest needs: the kernel image and the MTD/BCH modules.
    dpkg-deb --fsys-tarfile "$deb" |
        tar -x -C "$tree" --wildcards --no-anchored \
            'boot/vmlinuz-*' '*/kernel/drivers/mtd/*' '*/kernel/lib/bch.ko*' 2>/dev/null || true
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
    touch "$tree/.complete"
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

# ----- initramfs -----------------------------------------------------------------------
root="$work/root"
rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp,lib/modules}
cp "$(command -v busybox)" "$root/bin/busybox"
for name in "${order[@]}"; do
    cp "${module_path[$name]}" "$root/lib/modules/$name.ko"
done
# nandsim is loaded by the init script with per-variant parameters.
printf '%s\n' "${order[@]}" | grep -vx nandsim >"$root/lib/modules/order"
cp "$here/guest-init.sh" "$root/init"
chmod 755 "$root/init"
cp "$nandkit" "$root/bin/nandkit"
cp "$guest" "$root/bin/nk_mtd_guest"
# Shared libraries of both programs (and the loader), at their host paths.
for lib in $( (ldd "$nandkit"; ldd "$guest") 2>/dev/null | grep -o '/[^ ]*' | sort -u); do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
done
(cd "$root" && find . | "${cpio_cmd[@]}" -o -H newc 2>/dev/null) >"$work/initramfs.cpio"
log "initramfs $(($(stat -c %s "$work/initramfs.cpio") / 1024)) KiB, modules: ${order[*]}"

# ----- boot ------------------------------------------------------------------------------
serial="$work/serial.log"
boot() {
    local accel=$1 limit=$2
    log "booting $(basename "$kernel_image") with $accel"
    timeout "$limit" qemu-system-x86_64 -accel "$accel" -m 512 -smp 1 \
        -nographic -nodefaults -serial stdio -no-reboot \
        -kernel "$kernel_image" -initrd "$work/initramfs.cpio" \
        -append "console=ttyS0 panic=-1 quiet loglevel=3" </dev/null >"$serial" 2>&1 || true
}
booted=false
if [[ ${NANDKIT_QEMU_KVM:-0} == 1 && -w /dev/kvm ]]; then
    boot kvm 20
    grep -q HARNESS-END "$serial" && booted=true
fi
$booted || boot tcg 240

tr -d '\r' <"$serial" | grep -E '^(PASS|FAIL|PENDING|INFO) ' || true
passed=$(tr -d '\r' <"$serial" | grep -c '^PASS ' || true)
failed=$(tr -d '\r' <"$serial" | grep -c '^FAIL ' || true)
pending=$(tr -d '\r' <"$serial" | grep -c '^PENDING ' || true)
if ! tr -d '\r' <"$serial" | grep -q '^HARNESS-END'; then
    tail -n 40 "$serial" >&2
    echo "harness: the guest did not finish (see $serial)" >&2
    failed=$((failed + 1))
fi
log "done: $passed passed, $failed failed, $pending pending"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]

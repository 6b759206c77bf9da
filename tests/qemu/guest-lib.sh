# Sourced by the QEMU guests' /init scripts (busybox sh): the base mounts,
# the PASS/FAIL lines the host counts, the modules in /lib/modules/order and
# nandsim as a K9F1G08-like chip.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t devtmpfs dev /dev
mount -t proc proc /proc
mount -t sysfs sys /sys
mkdir -p /tmp
echo "HARNESS-BEGIN $(uname -r)"

pass() { echo "PASS $1: $2"; }
fail() { echo "FAIL $1: $2"; }

for module in $(cat /lib/modules/order); do
    insmod "/lib/modules/$module.ko" || fail "insmod-$module" "insmod $module.ko failed"
done

# K9F1G08U0A: 2048+64 bytes/page, 64 pages/block, 1024 blocks.
ID=0xec,0xf1,0x00,0x15
nandsim_load() {
    if ! insmod /lib/modules/nandsim.ko id_bytes=$ID "$@"; then
        fail "nandsim" "insmod nandsim $* failed"
        return 1
    fi
    i=0
    while [ ! -c /dev/mtd0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    [ -c /dev/mtd0 ] || { fail "nandsim" "no /dev/mtd0 after nandsim $*"; return 1; }
    echo "INFO nandsim $*: $(grep mtd0 /proc/mtd), ECC $(cat /sys/class/mtd/mtd0/ecc_strength) bit/$(cat /sys/class/mtd/mtd0/ecc_step_size) B"
}
nandsim_unload() {
    rmmod nandsim || fail "nandsim" "rmmod nandsim failed"
    i=0
    while [ -c /dev/mtd0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}

#!/usr/bin/env bash
# Cortex-M4 code size of nandkit's core per layer (arm-none-eabi-gcc -Os
# -mthumb -mcpu=cortex-m4, text + data of each object file), for the full
# core and for the minimal core of a small system (READ ID + legacy table,
# device layer, Hamming, BBT, partitions; knobs in docs/porting.md), and the
# minimal core as linked into the Cortex-M4 example (--gc-sections: only
# what the application calls). Every build is -Werror.
#
# usage: scripts/size-report.sh [--knobs] [BUILD_DIR [LIMIT]]
#   BUILD_DIR  default build-size
#   LIMIT      bytes: exit 1 when the minimal core (sum of its objects) is larger
#   --knobs    also build with each knob alone and print the bytes it saves
set -euo pipefail
cd "$(dirname "$0")/.."
knobs=0
if [ "${1:-}" = --knobs ]; then
  knobs=1
  shift
fi
out=${1:-build-size}
limit=${2:-0}
toolchain=$PWD/cmake/arm-none-eabi.cmake
minimal=(-DNANDKIT_BCH=OFF -DNANDKIT_PARAM_PAGES=OFF -DNANDKIT_CHIP_MODELS=K9F1G08U0A
         -DNANDKIT_DIAG_TEXT=OFF -DNANDKIT_FS=OFF -DNANDKIT_MULTIPAGE=OFF -DNANDKIT_HAMMING_FAST=OFF
         -DNANDKIT_SPINAND=OFF)

build_core() { # DIR CMAKE_ARGS...
  local dir=$1; shift
  # Objects of an earlier configuration would be counted too: start clean.
  rm -rf "$dir"
  cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DNANDKIT_CORE_ONLY=ON \
        -DCMAKE_BUILD_TYPE=MinSizeRel -DNANDKIT_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j "$(nproc)" >/dev/null
}

build_core "$out/full"
build_core "$out/minimal" "${minimal[@]}"
# The example application linked with the minimal configuration.
rm -rf "$out/example"
cmake -S examples/cortex-m4 -B "$out/example" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
      -DCMAKE_BUILD_TYPE=MinSizeRel -DNANDKIT_WERROR=ON "${minimal[@]}" >/dev/null
cmake --build "$out/example" -j "$(nproc)" >/dev/null

# One knob at a time against the full core (NANDKIT_MULTIPAGE=OFF needs the
# file system off: against the core without it).
knob_runs=()
if [ "$knobs" = 1 ]; then
  build_core "$out/knob-nofs-base" -DNANDKIT_FS=OFF
  i=0
  for knob in -DNANDKIT_BCH=OFF -DNANDKIT_PARAM_PAGES=OFF -DNANDKIT_CHIP_MODELS=K9F1G08U0A \
              -DNANDKIT_DIAG_TEXT=OFF -DNANDKIT_HAMMING_FAST=OFF -DNANDKIT_FS=OFF \
              -DNANDKIT_FS_BUILDER=OFF -DNANDKIT_FS_CHECK=OFF -DNANDKIT_SPINAND=OFF \
              "-DNANDKIT_MULTIPAGE=OFF"; do
    i=$((i + 1))
    if [ "$knob" = -DNANDKIT_MULTIPAGE=OFF ]; then
      build_core "$out/knob-$i" -DNANDKIT_FS=OFF "$knob"
      knob_runs+=("$knob|$out/knob-$i|$out/knob-nofs-base")
    else
      build_core "$out/knob-$i" "$knob"
      knob_runs+=("$knob|$out/knob-$i|$out/full")
    fi
  done
fi

python3 - "$out" "$limit" "${knob_runs[@]}" <<'PY'
import collections, os, re, subprocess, sys

out, limit, knob_runs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
LAYERS = ["base", "chip", "hamming", "bch", "engine+layout", "nand+badblock", "multipage+array",
          "bbt+part", "fs"]
MINIMAL = ["base", "chip", "hamming", "engine+layout", "nand+badblock", "multipage+array",
           "bbt+part"]


def layer_of(directory, name):
    if directory in ("base", "chip", "fs"):
        return directory
    if name == "hamming":
        return "hamming"
    if name.startswith("bch"):
        return "bch"
    if directory == "ecc":
        return "engine+layout"
    if name in ("multipage", "array"):
        return "multipage+array"
    return "nand+badblock" if name in ("nand", "badblock") else "bbt+part"


def layer_sizes(build):
    objects = []
    for root, _, files in os.walk(os.path.join(build, "src")):
        objects += [os.path.join(root, f) for f in files if f.endswith(".obj")]
    sizes = collections.Counter()
    lines = subprocess.run(["arm-none-eabi-size"] + sorted(objects), check=True,
                           capture_output=True, text=True).stdout.splitlines()[1:]
    for line in lines:
        text, data, _bss, _dec, _hex, path = line.split(None, 5)
        directory, name = path.split("/")[-2], path.split("/")[-1][: -len(".c.obj")]
        sizes[layer_of(directory, name)] += int(text) + int(data)
    return sizes


def linked_core(map_path):
    """text + data of the core's input sections kept in a linker map."""
    total, pending = 0, None
    text = open(map_path).read()
    text = text[text.index("Linker script and memory map"):]
    for line in text.splitlines():
        m = re.match(r"^ (\.(?:text|rodata|data)\S*)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+))?$", line)
        if m and m.group(2) is None:
            pending = m.group(1)
            continue
        if m:
            size, obj = int(m.group(3), 16), m.group(4)
        else:
            m = re.match(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)$", line)
            if not (m and pending):
                pending = None
                continue
            size, obj = int(m.group(2), 16), m.group(3)
        pending = None
        if "libnandkit_core.a" in obj:
            total += size
    return total


full = layer_sizes(os.path.join(out, "full"))
mini = layer_sizes(os.path.join(out, "minimal"))
print("Cortex-M4 size per layer, bytes of text+data (arm-none-eabi-gcc -Os -mthumb -mcpu=cortex-m4)")
print("%-15s %10s %10s" % ("layer", "full core", "minimal"))
for layer in LAYERS:
    print("%-15s %10s %10s" % (layer, full.get(layer, "-"), mini.get(layer, "-")))
full_min = sum(full[l] for l in MINIMAL)
mini_min = sum(mini[l] for l in MINIMAL)
print("%-15s %10d %10d" % ("minimal core", full_min, mini_min))
linked = linked_core(os.path.join(out, "example", "nand_fmc.map"))
print("minimal-core total: %d bytes (%.1f KB) compiled with the knobs; %d bytes (%.1f KB) "
      "linked into examples/cortex-m4 (goal: 12 KB)" % (mini_min, mini_min / 1024, linked, linked / 1024))
for run in knob_runs:
    knob, build, base = run.split("|")
    saved = sum(layer_sizes(base).values()) - sum(layer_sizes(build).values())
    print("knob %-36s saves %6d bytes%s" % (knob[2:], saved,
                                           " (against the core without FS)" if "nofs" in base else ""))
if limit and mini_min > limit:
    print("size-report: the minimal core is %d bytes, over the limit of %d" % (mini_min, limit))
    sys.exit(1)
PY

#!/usr/bin/env bash
# Cortex-M4 code size of nandkit's core per layer (arm-none-eabi-gcc -Os
# -mthumb -mcpu=cortex-m4, text + data of each object file), for the full
# core and for the minimal core of a small system (READ ID + legacy table,
# device layer, Hamming, BBT, partitions; knobs in docs/porting.md), and the
# minimal core as linked into the Cortex-M4 example (--gc-sections: only
# what the application calls); the example images with their own knobs and
# with NANDKIT_FS=OFF; and the C library and libgcc symbols the core needs
# (exit 1 for any other outside symbol: the core calls no OS, no malloc, no
# stdio). Every build is -Werror. The tables of docs/porting.md sit between
# "<!-- size-report:NAME -->" and "<!-- /size-report:NAME -->"; --update
# writes them there, --check exits 1 when one of DOC's figures is more than
# 10 % off (a figure typed in, or left behind by a change).
#
# usage: scripts/size-report.sh [--knobs] [--update DOC | --check DOC] [BUILD_DIR [LIMIT]]
#   BUILD_DIR  default build-size
#   LIMIT      bytes: exit 1 when the minimal core (sum of its objects) is larger
#   --knobs    also build with each knob alone and print the bytes it saves
#              (the knob table of DOC needs it)
set -euo pipefail
cd "$(dirname "$0")/.."
knobs=0 doc= docmode=
if [ "${1:-}" = --knobs ]; then
  knobs=1
  shift
fi
if [ "${1:-}" = --update ] || [ "${1:-}" = --check ]; then
  docmode=${1#--} doc=$2
  shift 2
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
# The example as it ships (its own knobs: file system without builder and
# fsck), and without the file system.
for variant in images:-DNANDKIT_FS=ON images-nofs:-DNANDKIT_FS=OFF; do
  rm -rf "$out/${variant%%:*}"
  cmake -S examples/cortex-m4 -B "$out/${variant%%:*}" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
        -DCMAKE_BUILD_TYPE=MinSizeRel -DNANDKIT_WERROR=ON "${variant#*:}" >/dev/null
  cmake --build "$out/${variant%%:*}" -j "$(nproc)" >/dev/null
done

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

python3 - "$out" "$limit" "$docmode" "$doc" "${knob_runs[@]}" <<'PY'
import collections, os, re, subprocess, sys

out, limit, docmode, doc, knob_runs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
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


def linked_core(map_path, only=None):
    """text + data of the core's input sections kept in a linker map (with
    `only`: of those object files alone, e.g. the file system's)."""
    total, pending = 0, None
    text = open(map_path).read()
    text = text[text.index("Linker script and memory map"):]
    for line in text.splitlines():
        m = re.match(r"^ (\.(?:text|rodata|data)\S*)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+))?$", line)
        if m and m.group(2) is None:
            pending = m.group(1)
            continue
        if m:
            size, obj, section = int(m.group(3), 16), m.group(4), m.group(1)
        else:
            m = re.match(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)$", line)
            if not (m and pending):
                pending = None
                continue
            size, obj, section = int(m.group(2), 16), m.group(3), pending
        pending = None
        member = re.search(r"\((\w+)\.c\.obj\)$", obj)
        if "libnandkit_core.a" not in obj:
            continue
        if only is not None:
            name = member.group(1) if member else ""
            # A name two directories share (layout.c): the file system's
            # functions are nk_fs_*.
            if name not in only or (name in SHARED_OBJECTS and ".nk_fs_" not in section):
                continue
        total += size
    return total


FS_OBJECTS = {f[:-2] for f in os.listdir("src/fs") if f.endswith(".c")}
SHARED_OBJECTS = {f[:-2] for d in os.listdir("src") if d != "fs" and os.path.isdir("src/" + d)
                  for f in os.listdir("src/" + d) if f.endswith(".c")} & FS_OBJECTS


def n(v):
    return "{:,}".format(v).replace(",", " ")


def image_size(elf):
    line = subprocess.run(["arm-none-eabi-size", elf], check=True, capture_output=True,
                          text=True).stdout.splitlines()[1].split()
    return int(line[0]), int(line[1]), int(line[2])


def outside_symbols(build):
    """Symbols the core archive uses and does not define."""
    archive = os.path.join(build, "src", "libnandkit_core.a")
    nm = lambda *a: subprocess.run(["arm-none-eabi-nm", *a, archive], check=True,
                                   capture_output=True, text=True).stdout.splitlines()
    undefined = {l.split()[-1] for l in nm("-u") if len(l.split()) == 2}
    defined = {l.split()[-1] for l in nm("--defined-only") if len(l.split()) == 3}
    return sorted(undefined - defined)


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
tables = {}
knob_rows = ["| knob | saves (bytes) |", "|---|---:|"]
for run in knob_runs:
    knob, build, base = run.split("|")
    saved = sum(layer_sizes(base).values()) - sum(layer_sizes(build).values())
    print("knob %-36s saves %6d bytes%s" % (knob[2:], saved,
                                           " (against the core without FS)" if "nofs" in base else ""))
    knob_rows.append("| `%s` | %s%s |" % (knob[2:], n(saved),
                                         " (against the core without FS)" if "nofs" in base else ""))
if knob_runs:
    tables["knobs"] = "\n".join(knob_rows)

# The example images: as shipped and without the file system.
rows = ["| image | text | data | bss |", "|---|---:|---:|---:|"]
for label, elf in (("`nand_fmc.elf` (FMC port, hardware ECC hooks)", "images/nand_fmc.elf"),
                   ("`nand_gpio.elf` (GPIO bit-bang)", "images/nand_gpio.elf"),
                   ("`nand_fmc.elf` with `-DNANDKIT_FS=OFF` (device, BBT, partitions; no mount)",
                    "images-nofs/nand_fmc.elf")):
    t, d, b = image_size(os.path.join(out, elf))
    rows.append("| %s | %s | %s | %s |" % (label, n(t), n(d), n(b)))
fmc_map = os.path.join(out, "images", "nand_fmc.map")
core_in, fs_in = linked_core(fmc_map), linked_core(fmc_map, FS_OBJECTS)
nofs_in = linked_core(os.path.join(out, "images-nofs", "nand_fmc.map"))
rows.append("| of `nand_fmc.elf`'s text+data: nandkit's core (linker map) / its file system | %s / %s | | |"
            % (n(core_in), n(fs_in)))
rows.append("| of the `NANDKIT_FS=OFF` image: nandkit's core | %s | | |" % n(nofs_in))
tables["images"] = "\n".join(rows)
print("examples/cortex-m4 as shipped: nand_fmc.elf text %d; the core %d bytes of it, its file "
      "system %d; with NANDKIT_FS=OFF the core is %d" % (image_size(os.path.join(out, "images/nand_fmc.elf"))[0],
                                                        core_in, fs_in, nofs_in))

rows = ["| layer (bytes) | full core | minimal (knobs) |", "|---|---:|---:|"]
names = {"base": "base (diag, errors)", "hamming": "Hamming", "bch": "BCH",
         "engine+layout": "engine + layout", "nand+badblock": "nand + badblock",
         "multipage+array": "multi-page + arrays", "bbt+part": "bbt + part", "fs": "file system"}
for layer in LAYERS:
    rows.append("| %s | %s | %s |" % (names.get(layer, layer),
                                     n(full[layer]) if layer in full else "—",
                                     n(mini[layer]) if layer in mini else "—"))
rows.append("| **minimal-core layers** | %s | **%s** (objects) / **%s** linked |"
            % (n(full_min), n(mini_min), n(linked)))
tables["layers"] = "\n".join(rows)

# What the core needs from outside: the C library's string functions and
# libgcc's helpers, nothing else.
LIBC = {"memchr", "memcmp", "memcpy", "memmove", "memset", "strchr", "strcmp", "strlen",
        "strncmp", "strnlen"}
failed = False
syms = {}
for label, build in (("full core", "full"), ("minimal core", "minimal")):
    syms[label] = outside_symbols(os.path.join(out, build))
    print("%s needs: %s" % (label, " ".join(syms[label])))
    other = [s for s in syms[label] if s not in LIBC and not re.match(r"^__(aeabi_\w+|\w+[sdt]i\d)$", s)]
    if other:
        print("size-report: the %s calls outside the C library's string functions and libgcc: %s"
              % (label, " ".join(other)))
        failed = True
rows = ["| build | C library | libgcc |", "|---|---|---|"]
for label, names_ in syms.items():
    rows.append("| %s | %s | %s |" % (label, ", ".join("`%s`" % s for s in names_ if s in LIBC),
                                      ", ".join("`%s`" % s for s in names_ if s not in LIBC)))
tables["symbols"] = "\n".join(rows)

def numbers(t):
    return [int(x.replace(" ", "")) for x in
            re.findall(r"(?<![\w.-])\d{1,3}(?: \d{3})*(?![\w.])", t)]


if doc:
    text = open(doc).read()
    for name, table in tables.items():
        pat = re.compile(r"(<!-- size-report:%s -->\n)(.*?)(<!-- /size-report:%s -->)"
                         % (name, name), re.S)
        m = pat.search(text)
        if not m:
            print("size-report: %s has no size-report:%s block" % (doc, name))
            failed = True
            continue
        if docmode == "update":
            text = text[:m.start(2)] + table + "\n" + text[m.end(2):]
            continue
        have, want = numbers(m.group(2)), numbers(table + "\n")
        off = [(h, w) for h, w in zip(have, want) if abs(h - w) > 0.1 * w]
        if len(have) != len(want) or off:
            print("size-report: the %s table of %s is more than 10 %% off the build (%s); "
                  "scripts/size-report.sh --knobs --update %s" % (
                      name, doc, ", ".join("%d documented, %d built" % hw for hw in off[:4])
                      or "%d figures, %d built" % (len(have), len(want)), doc))
            failed = True
        elif m.group(2) != table + "\n":
            print("note: the %s table of %s is within 10 %% of the build, not equal" % (name, doc))
    if docmode == "update":
        open(doc, "w").write(text)
        print("size-report: %s tables written into %s" % (", ".join(tables), doc))
if limit and mini_min > limit:
    print("size-report: the minimal core is %d bytes, over the limit of %d" % (mini_min, limit))
    failed = True
sys.exit(1 if failed else 0)
PY

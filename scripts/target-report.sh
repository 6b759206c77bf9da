#!/usr/bin/env bash
# The figures the test firmware measured on the emulated Cortex-M4
# (tests/target/firmware.c, run by tests/target/run.sh under qemu-system-arm
# -icount) as the tables of docs/porting.md: RAM, painted stack per call,
# instructions per page per ECC, and from those counts the estimated time
# per page on the eCos NAND library's two boards beside its published
# figures (the model's assumptions in ECOS_* below, printed as the
# ecos-model table). The tables sit in the doc between
# "<!-- target-report:NAME -->" and "<!-- /target-report:NAME -->".
#
# usage: scripts/target-report.sh OUTPUT [STRICT]               print the tables
#        scripts/target-report.sh --update DOC OUTPUT [STRICT]  write them into DOC
#        scripts/target-report.sh --check DOC OUTPUT [STRICT]   exit 1 when a figure passes its
#                                      limit or DOC's figure is more than 10 % (and 64) off,
#                                      an estimate more than 10 % (and 2 µs), or the
#                                      ecos-model table differs at all
#   OUTPUT   the Cortex-M4 firmware's output (build/target/m4.out after ctest -R target_)
#   STRICT   the Cortex-M3 output built without unaligned accesses (build/target/m3.out):
#            its page figures as rows of their own
#
# Limits: every nandkit call's stack (from its call site) at most 2 560
# bytes, the project's budget for a chain (scripts/stack-report.sh computes
# the same from the call graph); the file system's RAM for the firmware's
# 8 MiB partition at most 16 384 bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=print doc=
if [[ ${1:-} == --update || ${1:-} == --check ]]; then
  mode=${1#--} doc=$2
  shift 2
fi
[[ $# -eq 1 || $# -eq 2 ]] || { sed -n '2,24p' "$0" >&2; exit 2; }
python3 - "$mode" "$doc" "$@" <<'PY'
import re, sys

mode, doc, output = sys.argv[1:4]
strict = sys.argv[4] if len(sys.argv) > 4 else None
STACK_LIMIT, FS_RAM_LIMIT = 2560, 16384
def load(path, prefix=""):
    figures = {}
    for line in open(path):
        parts = line.split()
        if parts[:1] != ["figure"]:
            continue
        if parts[1] == "instr":  # figure instr ENGINE WHAT OWN WITH_PORT
            figures[("instr", prefix + parts[2] + " " + parts[3])] = [int(v) for v in parts[4:]]
        else:
            figures[(parts[1], prefix + parts[2])] = [int(v) for v in parts[3:]]
    return figures


fig = load(output)
if strict:
    fig.update({k: v for k, v in load(strict, "m3:").items() if k[0] == "instr"})


def get(kind, name, i=0):
    if (kind, name) not in fig:
        sys.exit("target-report: %s has no figure '%s %s' (did the firmware finish?)"
                 % (output, kind, name))
    return fig[(kind, name)][i]


def n(v):
    return "{:,}".format(v).replace(",", " ")


tables = {}
tables["ram"] = "\n".join([
    "| Cortex-M4, measured (8 MiB partition of 64 blocks; a 300 KiB file and 20 small ones) | bytes |",
    "|---|---:|",
    "| file system, Linux layout, read-write, after the writes (`nk_fs_ram_usage` peak) | %s |"
    % n(get("fs_ram_peak", "linux")),
    "| the same after a power cut and a scan mount (peak) | %s |" % n(get("fs_ram_peak", "linux-scan")),
    "| file system, in-band layout over BCH-8 (peak) | %s |" % n(get("fs_ram_peak", "inband")),
    "| `struct nk_fs` / `struct nk_nand` / `struct nk_part` | %s / %s / %s |"
    % (n(get("sizeof", "struct_nk_fs")), n(get("sizeof", "struct_nk_nand")),
       n(get("sizeof", "struct_nk_part"))),
    "| device + bad-block table workspace: declared (`NK_NAND_WORKSPACE_SIZE` + `NK_BBT_WORKSPACE_SIZE`) / written | %s / %s |"
    % (n(get("workspace", "declared")), n(get("workspace", "written"))),
    "| BCH-8 codec workspace (512-byte steps): full / small tables | %s / %s |"
    % (n(get("bch_workspace", "bch8-512")), n(get("bch_workspace", "bch8-512-small"))),
])

calls = [name for (kind, name) in fig if kind == "stack" and name != "main"]
rows = ["| call (from its call site) | stack, bytes |", "|---|---:|"]
rows += ["| `%s` | %s |" % (c, n(get("stack", c))) for c in calls]
rows.append("| the firmware's deepest (`main` and the test's own frames included) | %s |"
            % n(get("stack", "main")))
tables["stack"] = "\n".join(rows)

engines = [("raw", "none (raw)"), ("hamming256", "Hamming, 256-byte steps"),
           ("hamming512", "Hamming, 512-byte steps"), ("bch8", "BCH-8, full tables"),
           ("bch8-small", "BCH-8, small tables")]
if strict:
    engines += [("m3:" + key, label + "; Cortex-M3, no unaligned access")
                for key, label in engines if key in ("raw", "hamming256", "bch8")]
rows = ["| ECC | program | read, 0 flips | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 flips per step | "
        "read, 0 flips, with the RAM port |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
for key, label in engines:
    cells = [n(get("instr", key + " program"))]
    for flips in range(9):
        name = "%s read-%d" % (key, flips)
        cells.append(n(fig[("instr", name)][0]) if ("instr", name) in fig else "—")
    cells.append(n(get("instr", key + " read-0", 1)))
    rows.append("| %s | %s |" % (label, " | ".join(cells)))
tables["instr"] = "\n".join(rows)

# ----- the eCos NAND library's two boards, estimated from the counts above -----
# Every assumption of the estimate is here (and printed as the ecos-model
# table); the chip's geometry and array times come from the chip table
# (src/chip/id_table.c), the instruction counts from the run.
ECOS_CHIP = "K9F1G08U0A"
ECOS_SOURCE = "the eCos NAND library's published figures"
ECOS_BOARDS = [  # key, core and board, MHz, CPI range, CPU cycles per bus byte, read / program µs
    ("lpc2468", "ARM7TDMI, NXP LPC2468", 48, (1.5, 2.5), (6, 10), 3578, 2680),
    ("s3c2410", "ARM920T, Samsung S3C2410", 200, (1.2, 2.0), (10, 16), 452, 623),
]
ECOS_CPI_WHY = {
    "lpc2468": "no cache; code from on-chip flash through the MAM, data in SRAM; loads and taken "
               "branches cost 3 cycles",
    "s3c2410": "16 KiB I and D caches, code and data from SDRAM; cache misses and the "
               "write buffer draining",
}
ECOS_BUS_WHY = {
    "lpc2468": "the EMC's static-memory read or write of the data register (its wait states at "
               "48 MHz) plus the port's load, store and loop",
    "s3c2410": "the NAND controller's TACLS + TWRPH0 + TWRPH1 at HCLK = 100 MHz (two CPU "
               "cycles each) plus the port's load, store and loop",
}
ECOS_ROWS = [  # engine, label, operations (flip counts measured last)
    ("raw", "none (raw)", ["program", "read-0"]),
    ("hamming256", "Hamming, 256-byte steps", ["program", "read-0", "read-1"]),
    ("hamming512", "Hamming, 512-byte steps", ["program", "read-0", "read-1"]),
    ("bch8", "BCH-8, full tables", ["program", "read-0", "read-1", "read-8"]),
    ("bch8-small", "BCH-8, small tables", ["program", "read-0", "read-8"]),
]
ECOS_COMPARED = "hamming256"  # the eCos library's ECC: Linux's single-bit Hamming


def chip_table_entry(model):
    text = open("src/chip/id_table.c").read()
    start = text.find('.model = "%s"' % model)
    if start < 0:
        sys.exit("target-report: %s is not in src/chip/id_table.c" % model)
    end = text.find(".model =", start + 1)
    block = text[start:end if end > 0 else len(text)]

    def field(name):
        m = re.search(r"\.%s = (\d+)(?: \* NK_(US|MS))?" % name, block)
        if not m:
            sys.exit("target-report: %s has no %s in src/chip/id_table.c" % (model, name))
        return int(m.group(1)) * {None: 1, "US": 1000, "MS": 1000000}[m.group(2)]
    return {k: field(k) for k in ("page_size", "oob_size", "col_cycles", "row_cycles", "tR_ns",
                                  "tPROG_ns", "tPROG_max_ns", "tRC_ns", "tWC_ns")}


chip = chip_table_entry(ECOS_CHIP)
address = chip["col_cycles"] + chip["row_cycles"]
page_bytes = chip["page_size"] + chip["oob_size"]
# 00h + address + 30h, the page; 80h + address + the page + 10h, then 70h and the status byte.
bus_bytes = {"read": 2 + address + page_bytes, "program": 2 + address + page_bytes + 2}
chip_ns = {"read": chip["tR_ns"], "program": chip["tPROG_ns"]}
cycle_ns = {"read": chip["tRC_ns"], "program": chip["tWC_ns"]}


def us(ns):
    return int(round(ns / 1000.0))


def span(lo, hi):
    return "%s–%s" % (n(us(lo)), n(us(hi))) if us(lo) != us(hi) else n(us(lo))


def ecos_estimate(board, engine, what):
    _, _, mhz, cpi, cycles, _, _ = board
    kind = "program" if what == "program" else "read"
    own = get("instr", engine + " " + what)
    strict = fig.get(("instr", "m3:" + engine + " " + what))
    instr = (own, max(own, strict[0]) if strict else own)
    byte_ns = [max(c * 1000.0 / mhz, cycle_ns[kind]) for c in cycles]
    bus = [bus_bytes[kind] * b for b in byte_ns]
    cpu = [instr[0] * cpi[0] * 1000.0 / mhz, instr[1] * cpi[1] * 1000.0 / mhz]
    total = [chip_ns[kind] + bus[i] + cpu[i] for i in range(2)]
    return kind, instr, bus, cpu, total


tables["ecos-model"] = "\n".join([
    "| assumption | %s | %s | basis |" % (ECOS_BOARDS[0][1], ECOS_BOARDS[1][1]),
    "|---|---|---|---|",
    "| CPU clock, MHz | %d | %d | the eCos library's boards |" % (ECOS_BOARDS[0][2], ECOS_BOARDS[1][2]),
    "| cycles per instruction (CPI) | %s–%s | %s–%s | LPC2468: %s; S3C2410: %s |"
    % (ECOS_BOARDS[0][3][0], ECOS_BOARDS[0][3][1], ECOS_BOARDS[1][3][0], ECOS_BOARDS[1][3][1],
       ECOS_CPI_WHY["lpc2468"], ECOS_CPI_WHY["s3c2410"]),
    "| CPU cycles per bus byte (wait states and the port's loop) | %d–%d | %d–%d | LPC2468: %s; S3C2410: %s; never below tRC/tWC = %d/%d ns |"
    % (ECOS_BOARDS[0][4][0], ECOS_BOARDS[0][4][1], ECOS_BOARDS[1][4][0], ECOS_BOARDS[1][4][1],
       ECOS_BUS_WHY["lpc2468"], ECOS_BUS_WHY["s3c2410"], chip["tRC_ns"], chip["tWC_ns"]),
    "| bus bytes per page read / program | %s / %s | %s / %s | %s+%s-byte page, %d address cycles, the commands, and the program's status read |"
    % (n(bus_bytes["read"]), n(bus_bytes["program"]), n(bus_bytes["read"]), n(bus_bytes["program"]),
       chip["page_size"], chip["oob_size"], address),
    "| chip time per read (tR) / program (tPROG), µs | %d / %d | %d / %d | %s, typical (tPROG at most %d µs), `src/chip/id_table.c` |"
    % (us(chip["tR_ns"]), us(chip["tPROG_ns"]), us(chip["tR_ns"]), us(chip["tPROG_ns"]),
       ECOS_CHIP, us(chip["tPROG_max_ns"])),
    "| instructions per page | the counts above, nandkit's own (the port's `exec_op` left out) | the same | Cortex-M4 run; where the Cortex-M3 run without unaligned accesses counted more, that count is the upper end (ARMv4T has no unaligned access either) |",
    "| published read / program, µs | %s / %s | %s / %s | %s |"
    % (n(ECOS_BOARDS[0][5]), n(ECOS_BOARDS[0][6]), n(ECOS_BOARDS[1][5]), n(ECOS_BOARDS[1][6]),
       ECOS_SOURCE),
])

for board in ECOS_BOARDS:
    rows = ["| ECC | operation | instructions | chip, µs | bus, µs | CPU (ECC + driver), µs "
            "| estimate, µs | chip / bus / CPU | %s, µs |" % ECOS_SOURCE,
            "|---|---|---:|---:|---:|---:|---:|---|---:|"]
    for engine, label, whats in ECOS_ROWS:
        for what in whats:
            kind, instr, bus, cpu, total = ecos_estimate(board, engine, what)
            flips = "" if what == "program" else (
                ", no flips" if what == "read-0" else ", %s flip(s) per step" % what[5:])
            mid = [(chip_ns[kind]), (bus[0] + bus[1]) / 2, (cpu[0] + cpu[1]) / 2]
            share = " / ".join("%d %%" % round(100.0 * v / sum(mid)) for v in mid)
            published = "—"
            if engine == ECOS_COMPARED and what in ("program", "read-0"):
                published = n(board[6] if what == "program" else board[5])
            rows.append("| %s | %s%s | %s | %s | %s | %s | %s | %s | %s |" % (
                label, kind, flips, n(instr[0]) if instr[0] == instr[1]
                else "%s–%s" % (n(instr[0]), n(instr[1])), n(us(chip_ns[kind])),
                span(*bus), span(*cpu), span(*total), share, published))
    tables["ecos-" + board[0]] = "\n".join(rows)
compared = next(label for engine, label, _ in ECOS_ROWS if engine == ECOS_COMPARED)
rows = ["| board | operation | estimate with %s, µs | published, µs | published / estimate "
        "| published minus the estimate's upper end, µs | the same per bus byte, CPU cycles |"
        % compared, "|---|---|---:|---:|---|---:|---:|"]
for board in ECOS_BOARDS:
    for what, published in (("read-0", board[5]), ("program", board[6])):
        kind, _, _, _, total = ecos_estimate(board, ECOS_COMPARED, what)
        left = max(0, published - us(total[1]))
        rows.append("| %s, %d MHz | %s | %s | %s | %.1f–%.1f | %s | %s |" % (
            board[1], board[2], kind, span(*total), n(published),
            published * 1000.0 / total[1], published * 1000.0 / total[0], n(left),
            n(int(round(left * board[2] / float(bus_bytes[kind]))))))
tables["ecos-compare"] = "\n".join(rows)
# Tables computed from the run and the assumptions: any difference in the
# assumptions fails; the estimates move with the counts they come from.
EXACT = {"ecos-model"}

# Limits.
over = ["stack of %s: %d bytes, over %d" % (c, get("stack", c), STACK_LIMIT)
        for c in calls if get("stack", c) > STACK_LIMIT]
for layout in ("linux", "linux-scan", "inband"):
    if get("fs_ram_peak", layout) > FS_RAM_LIMIT:
        over.append("file-system RAM (%s): %d bytes, over %d"
                    % (layout, get("fs_ram_peak", layout), FS_RAM_LIMIT))

if mode == "print":
    for name, table in tables.items():
        print("<!-- target-report:%s -->\n%s\n<!-- /target-report:%s -->\n" % (name, table, name))
    for o in over:
        print("over the limit: " + o)
    sys.exit(1 if over else 0)

text = open(doc).read()
failed = list(over)
for name, table in tables.items():
    pat = re.compile(r"(<!-- target-report:%s -->\n)(.*?)(<!-- /target-report:%s -->)"
                     % (re.escape(name), re.escape(name)), re.S)
    m = pat.search(text)
    if not m:
        failed.append("%s has no target-report:%s block" % (doc, name))
        continue
    if mode == "update":
        text = text[:m.start(2)] + table + "\n" + text[m.end(2):]
        continue
    if name in EXACT:
        if m.group(2) != table + "\n":
            failed.append("%s: the %s table is not what the script computes (its assumptions "
                          "changed: scripts/target-report.sh --update)" % (doc, name))
        continue
    # A documented figure more than 10 % away from the measured one.
    def numbers(t):
        return [int(x.replace(" ", "")) for x in re.findall(r"(?<![\w.-])\d{1,3}(?: \d{3})*(?![\w.])", t)]
    have, want = numbers(m.group(2)), numbers(table + "\n")
    if len(have) != len(want):
        failed.append("%s: the %s table has %d figures, the measurement %d" % (doc, name, len(have), len(want)))
        continue
    floor = 2 if name.startswith("ecos-") else 64  # the estimates are in µs
    off = [(h, w) for h, w in zip(have, want) if abs(h - w) > max(0.1 * w, floor)]
    if off:
        failed.append("%s: %s table figures more than 10 %% off: %s" % (
            doc, name, ", ".join("%d documented, %d measured" % hw for hw in off[:5])))
    elif m.group(2) != table + "\n":
        print("note: the %s table of %s differs from the measurement by less than 10 %%"
              " (scripts/target-report.sh --update %s %s)" % (name, doc, doc, output))
if mode == "update":
    open(doc, "w").write(text)
for f in failed:
    print("target-report: " + f)
if not failed:
    print("target-report: every figure within its limit%s"
          % ("" if mode == "update" else " and within 10 % of " + doc))
sys.exit(1 if failed else 0)
PY

#!/usr/bin/env bash
# The figures the test firmware measured on the emulated Cortex-M4
# (tests/target/firmware.c, run by tests/target/run.sh under qemu-system-arm
# -icount) as the tables of docs/porting.md: RAM, painted stack per call,
# instructions per page per ECC. The tables sit in the doc between
# "<!-- target-report:NAME -->" and "<!-- /target-report:NAME -->".
#
# usage: scripts/target-report.sh OUTPUT [STRICT]               print the tables
#        scripts/target-report.sh --update DOC OUTPUT [STRICT]  write them into DOC
#        scripts/target-report.sh --check DOC OUTPUT [STRICT]   exit 1 when a figure passes its
#                                      limit or DOC's figure is more than 10 % (and 64) off
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
[[ $# -eq 1 || $# -eq 2 ]] || { sed -n '2,21p' "$0" >&2; exit 2; }
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
    # A documented figure more than 10 % away from the measured one.
    def numbers(t):
        return [int(x.replace(" ", "")) for x in re.findall(r"(?<![\w.-])\d{1,3}(?: \d{3})*(?![\w.])", t)]
    have, want = numbers(m.group(2)), numbers(table + "\n")
    if len(have) != len(want):
        failed.append("%s: the %s table has %d figures, the measurement %d" % (doc, name, len(have), len(want)))
        continue
    off = [(h, w) for h, w in zip(have, want) if abs(h - w) > max(0.1 * w, 64)]
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

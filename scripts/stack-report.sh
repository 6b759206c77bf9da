#!/usr/bin/env bash
# Worst stack chain of nandkit's core on Cortex-M4 (arm-none-eabi-gcc -Os
# -mthumb -mcpu=cortex-m4): every function's frame from -fstack-usage, the
# call graph from -fcallgraph-info, summed along the deepest path from each
# entry point. Indirect calls are resolved to the functions the core (and
# the FMC example port, for exec_op) installs in its ops tables; the one
# recursion (nk_bta_split, the BCH root finder) is counted at its bound:
# each level has a smaller polynomial of degree > 4 and a larger trace
# recursion goes into the smaller factor only (degree <= half), so at most
# 1 + ceil(log2(t_max / 4)) frames.
#
# usage: scripts/stack-report.sh [--update DOC | --check DOC] [T_MAX] [LIMIT] [ANY_LIMIT]
#   --update   write the table of worst chains into DOC (between
#              "<!-- stack-report:chains -->" and "<!-- /stack-report:chains -->")
#   --check    exit 1 when one of that table's figures is more than 10 % off
#   T_MAX      NK_BCH_T_MAX to build with (default 8, the cross-build default)
#   LIMIT      bytes: exit 1 when the chain of a listed entry point (mount,
#              open, page read/program, table attach, identify, file read,
#              fsck) exceeds it (default: none)
#   ANY_LIMIT  bytes: exit 1 when the deepest chain of any function at all
#              exceeds it (default: none)
set -euo pipefail
cd "$(dirname "$0")/.."
docmode= doc=
if [ "${1:-}" = --update ] || [ "${1:-}" = --check ]; then
  docmode=${1#--} doc=$2
  shift 2
fi
t_max=${1:-8}
limit=${2:-0}
any_limit=${3:-0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/include/nandkit"
sed -e 's/@PROJECT_VERSION@/0/' -e 's/@PROJECT_VERSION_[A-Z]*@/0/' cmake/version.h.in \
    >"$work/include/nandkit/version.h"
for src in src/*/*.c examples/cortex-m4/fmc_port.c; do
  obj="$work/$(echo "$src" | tr / _).o"
  arm-none-eabi-gcc -std=c11 -Os -mthumb -mcpu=cortex-m4 -mfloat-abi=soft -DNK_NO_FORMAT_CHECK \
    -DNK_BCH_T_MAX="$t_max" -Iinclude -I"$work/include" -Isrc -I"$(dirname "$src")" \
    -Iexamples/cortex-m4 -fstack-usage -fcallgraph-info=su -c "$src" -o "$obj"
done

python3 - "$work" "$t_max" "$limit" "$any_limit" "$docmode" "$doc" <<'PY'
import glob, os, re, sys

work, t_max, limit, any_limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
docmode, doc = sys.argv[5], sys.argv[6]
M_MAX = 15
RECURSION = {"nk_bta_split": 1 + ((t_max + 3) // 4 - 1).bit_length()}
ROOTS = ["nk_fs_mount", "nk_nand_open", "nk_bbt_attach", "nk_fs_file_read", "nk_nand_read_page",
         "nk_nand_program_page", "nk_chip_identify", "nk_bch_init", "nk_fs_build_end", "nk_fs_check"]

frames, edges, where = {}, {}, {}
for ci in glob.glob(os.path.join(work, "*.ci")):
    for line in open(ci):
        m = re.match(r'node: \{ title: "([^"]+)" label: "([^\\]+)\\n([^\\]+)\\n(\d+) bytes \((\w+)', line)
        if m:
            title, name = m.group(1), m.group(2)
            frames[title] = int(m.group(4))
            where[title] = m.group(3)
            continue
        m = re.match(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)" label: "([^"]+)"', line)
        if m:
            edges.setdefault(m.group(1), set()).add((m.group(2), m.group(3)))

by_name = {}
for title in frames:
    by_name.setdefault(title.split(":")[-1], []).append(title)


def resolve(target, source, site):
    if target in frames:
        return [target]
    if target == "__indirect_call":
        # The call site's source line names the field: ops->correct(...).
        path, line = site.rsplit(":", 2)[0], int(site.rsplit(":", 2)[1])
        text = open(path).read().splitlines()
        fields = re.findall(r"(?:->|\.)(\w+)\(", " ".join(text[line - 1:line + 1]))
        return sorted(set().union(*[ops.get(f, set()) for f in fields])) if fields else []
    same_file = [t for t in by_name.get(target, []) if t.split(":")[0] == source.split(":")[0]]
    return same_file or by_name.get(target, [])


# Functions installed in ops tables (".field = function" in the sources),
# grouped by field, and which caller reaches which field.
ops = {}
for src in glob.glob("src/*/*.c") + ["examples/cortex-m4/fmc_port.c"]:
    for field, fn in re.findall(r"\.(\w+) = (\w+),?", open(src).read()):
        if fn in by_name:
            ops.setdefault(field, set()).update(by_name[fn])

memo = {}


def worst(title, stack=()):
    if title in memo:
        return memo[title]
    if title in stack:
        return 0, []
    best, chain = 0, []
    for target, site in edges.get(title, ()):
        for t in resolve(target, title, site):
            if t == title:
                continue
            s, c = worst(t, stack + (title,))
            if s > best:
                best, chain = s, c
    name = title.split(":")[-1]
    own = frames.get(title, 0) * RECURSION.get(name, 1)
    memo[title] = (own + best, [(title, frames.get(title, 0), RECURSION.get(name, 1))] + chain)
    return memo[title]


print("Cortex-M4 worst stack chains (NK_BCH_T_MAX=%d; arm-none-eabi-gcc -Os; "
      "ports and allocator callbacks: the FMC example port)" % t_max)
listed_root, listed_total = None, -1
for root in ROOTS:
    titles = by_name.get(root, [])
    if not titles:
        continue
    total, chain = worst(titles[0])
    if total > listed_total:
        listed_root, listed_total = root, total
    print("  %-22s %6d bytes" % (root, total))
# Any function at all (every public call, not only the ones listed): the
# deepest chain of the whole call graph.
worst_root, worst_total = listed_root, listed_total
for title in sorted(frames):
    total, _ = worst(title)
    if total > worst_total:
        worst_root, worst_total = title.split(":")[-1], total
print("  %-22s %6d bytes  (deepest of any function)" % (worst_root, worst_total))
for root in dict.fromkeys([listed_root, worst_root]):
    total, chain = worst(by_name[root][0])
    print("worst chain, from %s (%d bytes):" % (root, total))
    for title, frame, times in chain:
        name = title.split(":")[-1]
        print("  %6d  %s%s  (%s)" % (frame * times, name, " x%d" % times if times > 1 else "",
                                     where.get(title, "?").split("/")[-1]))
# The table of docs/porting.md, section 4: the listed entry points and the
# file-system calls that rewrite an object header.
LABELS = {"nk_fs_mount": " (loading a checkpoint)",
          "nk_nand_open": " (identify with a JEDEC parameter page)",
          "nk_nand_read_page": " (through BCH-%d)" % t_max}
GROUPS = [["nk_fs_mount"], ["nk_nand_open"], ["nk_chip_identify"], ["nk_fs_file_read"],
          ["nk_bbt_attach"], ["nk_nand_read_page"], ["nk_nand_program_page"], ["nk_bch_init"],
          ["nk_fs_check"], ["nk_fs_link"], ["nk_fs_file_open"], ["nk_fs_rename"],
          ["nk_fs_chmod", "nk_fs_chown", "nk_fs_utimes"], ["nk_fs_unlink", "nk_fs_rmdir"],
          ["nk_fs_file_truncate"]]
rows = ["| worst chain, bytes (`NK_BCH_T_MAX=%d`) | |" % t_max, "|---|---:|"]
for group in GROUPS:
    group = [g for g in group if g in by_name]
    if not group:
        continue
    sizes = ["{:,}".format(worst(by_name[g][0])[0]).replace(",", " ") for g in group]
    if len(set(sizes)) == 1:
        sizes = sizes[:1]
    rows.append("| %s%s | %s |" % (", ".join("`%s`" % g for g in group),
                                   LABELS.get(group[0], "") if len(group) == 1 else "",
                                   ", ".join(sizes)))
rows.append("| deepest of any function: `%s` | %s |"
            % (worst_root, "{:,}".format(worst_total).replace(",", " ")))
table = "\n".join(rows) + "\n"
doc_failed = False
if doc:
    text = open(doc).read()
    m = re.search(r"(<!-- stack-report:chains -->\n)(.*?)(<!-- /stack-report:chains -->)", text, re.S)
    if not m:
        print("stack-report: %s has no stack-report:chains block" % doc)
        doc_failed = True
    elif docmode == "update":
        open(doc, "w").write(text[:m.start(2)] + table + text[m.end(2):])
        print("stack-report: the chains table written into %s" % doc)
    else:
        num = lambda t: [int(x.replace(" ", "")) for x in
                         re.findall(r"(?<![\w.=-])\d{1,3}(?: \d{3})*(?![\w.])", t)]
        have, want = num(m.group(2)), num(table)
        off = [(h, w) for h, w in zip(have, want) if abs(h - w) > 0.1 * w]
        if len(have) != len(want) or off:
            print("stack-report: the chains table of %s is more than 10 %% off (%s); "
                  "scripts/stack-report.sh --update %s %d" % (
                      doc, ", ".join("%d documented, %d computed" % hw for hw in off[:4])
                      or "%d figures, %d computed" % (len(have), len(want)), doc, t_max))
            doc_failed = True
if limit:
    # Entry points (functions nothing here calls) whose chain passes LIMIT.
    called = set()
    for source, targets in edges.items():
        for target, site in targets:
            called.update(t for t in resolve(target, source, site) if t != source)
    over = sorted(((worst(t)[0], t.split(":")[-1]) for t in frames
                   if t not in called and worst(t)[0] > limit), reverse=True)
    if over:
        print("entry points over %d bytes: %s" % (limit, ", ".join("%s %d" % (n, b) for b, n in over)))
failed = False
if limit and listed_total > limit:
    print("stack-report: %s needs %d bytes, over the limit of %d" % (listed_root, listed_total, limit))
    failed = True
if any_limit and worst_total > any_limit:
    print("stack-report: %s needs %d bytes, over the limit of %d for any function"
          % (worst_root, worst_total, any_limit))
    failed = True
sys.exit(1 if failed or doc_failed else 0)
PY

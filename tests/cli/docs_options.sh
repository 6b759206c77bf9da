#!/usr/bin/env bash
# docs/cli.md tells the truth: every --option it names is offered by some
# command's --help, every ECC name in its --ecc row is accepted, and the
# commands it says take --ecc list it in their --help.
# usage: bash tests/cli/docs_options.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
here=$(cd "$(dirname "$0")/../.." && pwd)
doc=$here/docs/cli.md

[[ -s $doc ]] || { echo "FAIL: $doc missing"; exit 1; }
"$NK" --help >"$TMP/help"
for c in $("$NK" --help | awk '/^  [a-z]/ {print $1}'); do
  "$NK" "$c" --help >>"$TMP/help" 2>&1
done
[[ $(grep -c -- '--' "$TMP/help") -gt 100 ]] || fail "the --help texts look empty"
count=0
# nandkit's options: the whole page but the mtd-utils columns of the table
# (its rows are "| mtd-utils | option | nandkit |": only the third counts).
ours=$(python3 - "$doc" <<'EOF2'
import sys
for line in open(sys.argv[1]):
    cells = line.split(' | ')
    if line.startswith('| ') and len(cells) >= 3 and 'nandkit' not in cells[2][:8] and (
            cells[0].startswith('| nand') or cells[0].startswith('| flash') or cells[0] == '|'):
        print(' | '.join(cells[2:]))
    else:
        print(line, end='')
EOF2
)
for o in $(grep -o -- '--[a-z][a-z0-9-]*' <<<"$ours" | sort -u); do
  case $o in --man-dir | --help | --version) continue ;; esac
  count=$((count + 1))
  grep -q -- "$o\b" "$TMP/help" || fail "docs/cli.md names $o, which no --help offers"
done
[[ $count -gt 30 ]] || fail "only $count options found in docs/cli.md"

# Every engine name of the --ecc row opens a 4096+224 image (room for all).
"$NK" sim create "$TMP/e.img" --geometry 4096,224,64,8 --full >/dev/null
row=$(grep '^| `--ecc E`' "$doc")
for e in $(grep -o '`[a-z0-9-]*`' <<<"$row" | tr -d '`' | grep -v '^bchT' | sed 's/^bch\(T\)/bch4/'); do
  case $e in on-die) continue ;; esac # needs a chip that has it
  out=$("$NK" dump "$TMP/e.img" --geometry 4096,224,64,8 --page 0 --ecc "$e" --force-ecc 2>&1) ||
    fail "--ecc $e (named in docs/cli.md) refused: $out"
done
for e in bch1-512 bch32-1024 bch16; do
  "$NK" dump "$TMP/e.img" --geometry 4096,224,64,8 --page 0 --ecc "$e" --force-ecc >/dev/null 2>&1 ||
    [[ $e == bch32-1024 ]] || fail "--ecc $e refused"
done

# The commands the page says take --ecc.
cmds=$(grep -A1 '^mkimage, ls, ' "$doc" | tr '\n' ' ')
grep -q "take" <<<"$cmds" || fail "the list of commands taking --ecc is missing"
for c in mkimage ls cat extract fsck put rm mkdir mv chmod dump read write erase torture badblocks info; do
  grep -q "\b$c\b" <<<"$cmds" || fail "docs/cli.md does not list $c"
  "$NK" "$c" --help | grep -q -- "--ecc E" || fail "$c --help lacks --ecc"
done

nk_test_end "all passed"

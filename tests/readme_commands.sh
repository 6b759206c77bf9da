#!/bin/bash
# README.md's nandkit command block (between <!-- readme-commands --> and
# <!-- /readme-commands -->) runs as written, in order, from the root of a
# fresh copy of the repository's inputs, with build/tools/nandkit the
# nandkit under test. A line ending in "# exits N" must exit with N; every
# other line must exit 0. Each line runs under bash with pipefail.
#
# usage: bash tests/readme_commands.sh SOURCE_DIR NANDKIT_BINARY
set -u
src=$1
nk=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

block=$(sed -n '/^<!-- readme-commands -->$/,/^<!-- \/readme-commands -->$/p' "$src/README.md" |
        sed -n '/^```sh$/,/^```$/p' | sed '1d;$d')
lines=$(printf '%s\n' "$block" | grep -c .)
[ "$lines" -ge 10 ] || { echo "FAIL: README.md has no command block (found $lines lines)"; exit 1; }

# A fresh copy of what the commands read: README, the examples and the
# fixtures; the tool where README expects it.
mkdir -p "$TMP/repo/build/tools" "$TMP/repo/tests"
cp -R "$src/README.md" "$src/examples" "$TMP/repo/"
cp -R "$src/tests/fixtures" "$TMP/repo/tests/"
ln -s "$(cd "$(dirname "$nk")" && pwd)/$(basename "$nk")" "$TMP/repo/build/tools/nandkit"

n=0
while IFS= read -r line; do
    [ -n "$line" ] || continue
    n=$((n + 1))
    want=0
    if [[ $line =~ \#\ exits\ ([0-9]+)[[:space:]]*$ ]]; then
        want=${BASH_REMATCH[1]}
    fi
    (cd "$TMP/repo" && bash -o pipefail -c "$line") > "$TMP/out" 2>&1 < /dev/null
    rc=$?
    if [ "$rc" != "$want" ]; then
        fail "line $n exits $rc, not $want: $line"
        tail -5 "$TMP/out" | sed 's/^/    /'
    else
        echo "ok $n: ${line%%  *}"
    fi
done <<< "$block"

[ "$n" = "$lines" ] || fail "ran $n of $lines lines"

# What the text after the block says of the cut put: /etc/notes is the old
# file, the temporary file holds part of the new one, nothing is damaged.
if grep -q -- '--power-cut-after 40' <<< "$block"; then
    g="--geometry 2048,64,64,256"
    cd "$TMP/repo" || exit 1
    build/tools/nandkit cat new.img /etc/notes $g 2> /dev/null | cmp -s - examples/demo/notes.txt ||
        fail "after the cut put, /etc/notes is not examples/demo/notes.txt"
    build/tools/nandkit ls new.img /etc $g 2> /dev/null | grep -q ' \.notes\.nkput$' ||
        fail "after the cut put, no /etc/.notes.nkput"
    # "the whole put takes about N" (the directory's time stamps add a few
    # when a second ticks over): cut after N - 20 it fails, after N + 10 it is done.
    ops=$(grep -o 'the whole put takes about [0-9]*' README.md | grep -o '[0-9]*$')
    [ -n "$ops" ] || fail "README no longer says how many operations the put takes"
    nk() { build/tools/nandkit "$@" > /dev/null 2>&1; }
    nk mkimage examples/demo/rootfs check.img $g && nk put check.img examples/demo/notes.txt /etc/notes $g &&
        nk mkdir -p check.img /var/log $g || fail "rebuilding new.img as it was before the cut"
    cp check.img check-short.img
    nk put check-short.img out/data/rand100k.bin /etc/notes $g --power-cut-after $((ops - 20)) --seed 7 &&
        fail "the put completed within $((ops - 20)) operations: README says about $ops"
    nk put check.img out/data/rand100k.bin /etc/notes $g --power-cut-after $((ops + 10)) --seed 7 ||
        fail "the put did not complete within $((ops + 10)) operations: README says about $ops"
fi
[ $FAILS = 0 ] && echo "readme_commands: all $n lines ran as written"
exit $((FAILS > 0))

#!/usr/bin/env bash
# The manual pages say what --help says (they are made from the same text),
# bash completion offers the commands and options --help lists, -V/--version,
# dump --json and dump on a bad block.
# usage: manual.sh NANDKIT_BINARY FIXTURES_DIR
set -u
nk=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect() {
  local want=$1 pattern=$2; shift 3
  local out status
  out=$("$@" 2>&1); status=$?
  if [[ $status -ne $want ]]; then fail "'$*' exited $status, wanted $want: $out"; return; fi
  grep -Eq -- "$pattern" <<<"$out" || fail "'$*' output lacks /$pattern/: $out"
}

expect 0 "^nandkit [0-9]+\.[0-9]+" -- "$nk" -V
expect 0 "^nandkit [0-9]+\.[0-9]+" -- "$nk" --version
[[ $("$nk" -V) == $("$nk" --version) ]] || fail "-V and --version differ"

# manual pages: one per command, each option of --help in its page, and
# groff renders every page without a warning
mkdir "$tmp/man"
"$nk" --man-dir "$tmp/man" || fail "--man-dir failed"
commands=$("$nk" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
[[ $(wc -w <<<"$commands") -ge 15 ]] || fail "nandkit --help lists too few commands: $commands"
[[ -s $tmp/man/nandkit.1 ]] || fail "no nandkit.1"
for cmd in $commands; do
  page=$tmp/man/nandkit-$cmd.1
  [[ -s $page ]] || { fail "no manual page for $cmd"; continue; }
  summary=$("$nk" --help | awk -v c="$cmd" '$1 == c { $1 = ""; sub(/^ +/, ""); print }')
  grep -qF -- "$(sed 's/-/\\-/g' <<<"$summary")" "$page" || fail "nandkit-$cmd.1 lacks the summary '$summary'"
  for option in $("$nk" "$cmd" --help | grep -oE -- '(^|[ ,[])--[a-z][-a-z0-9]*' | grep -oE -- '--[a-z][-a-z0-9]*' | sort -u); do
    grep -qF -- "$(sed 's/-/\\-/g' <<<"$option")" "$page" || fail "nandkit-$cmd.1 lacks $option (in --help)"
  done
  warnings=$(groff -man -ww -z "$page" 2>&1)
  [[ -z $warnings ]] || fail "groff warns on nandkit-$cmd.1: $warnings"
  rendered=$(MANWIDTH=100 man -l "$page" 2>/dev/null | col -b)
  grep -q "^OPTIONS" <<<"$rendered" || grep -q "^SYNOPSIS" <<<"$rendered" || fail "nandkit-$cmd.1 renders without sections"
done
expect 0 "--bb METHOD" -- bash -c "MANWIDTH=100 man -l '$tmp/man/nandkit-read.1' | col -b"

# bash completion from the same texts
source "$here/../../tools/completion/nandkit.bash"
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _nandkit; echo "${COMPREPLY[*]}"; }
out=$(complete_words "$nk" "")
for cmd in read write erase torture bench info; do
  grep -qw "$cmd" <<<"$out" || fail "completion of the command lacks $cmd: $out"
done
out=$(complete_words "$nk" read --n)
grep -qw -- "--noecc" <<<"$out" || fail "completion of 'read --n' lacks --noecc: $out"
out=$(complete_words "$nk" read --bb "")
[[ $out == "skipbad padbad dumpbad" ]] || fail "completion of --bb: $out"
out=$(complete_words "$nk" info --chip K9F)
grep -qw K9F1G08U0A <<<"$out" || fail "completion of --chip lacks K9F1G08U0A: $out"
out=$(complete_words "$nk" sim "")
[[ $out == "create list" ]] || fail "completion of sim: $out"
# --bb=VALUE (bash splits the word at '='), ecc's actions and schemes, no file names
out=$(complete_words "$nk" read x.img --bb = "")
[[ $out == "skipbad padbad dumpbad" ]] || fail "completion of --bb=: $out"
out=$(complete_words "$nk" read x.img --bb "=")
[[ $out == "skipbad padbad dumpbad" ]] || fail "completion of --bb= with nothing after: $out"
out=$(complete_words "$nk" read x.img --bb = pa)
[[ $out == "padbad" ]] || fail "completion of --bb=pa: $out"
out=$(complete_words "$nk" ecc "")
[[ $out == "calc check correct" ]] || fail "completion of ecc: $out"
out=$(complete_words "$nk" ecc calc --scheme "")
grep -qw hamming256 <<<"$out" && grep -qw bch8-512 <<<"$out" || fail "completion of --scheme: $out"
out=$(complete_words "$nk" ecc calc --scheme = "")
grep -qw hamming256 <<<"$out" || fail "completion of --scheme=: $out"
out=$(complete_words "$nk" help "p")
[[ $out == "put" ]] || fail "completion of help p: $out"

# nandkit.1: the text after the last command is a paragraph of its own, and
# the exit-status table is in every page
last=$(tail -1 <<<"$commands")
awk -v c="$last" '$0 == ".B " c { getline; getline; print; exit }' "$tmp/man/nandkit.1" > "$tmp/after"
[[ $(cat "$tmp/after") == .PP ]] || fail "nandkit.1: the text after $last is not a new paragraph: $(cat "$tmp/after")"
for page in "$tmp"/man/*.1; do
  grep -q "not found: the image, a path in it, or a host file" "$page" || fail "$page lacks the exit-status table"
done

# dump: a factory-bad block is named as such; --json
img=$tmp/chip.img
"$nk" sim create --full "$img" --geometry 2048,64,64,16 --bad-blocks 3, >/dev/null
expect 0 "ecc: not checked: block 3 is bad" -- "$nk" dump "$img" --geometry 2048,64,64,16 --page 193
out=$("$nk" dump "$img" --geometry 2048,64,64,16 --page 193 2>&1)
grep -q uncorrectable <<<"$out" && fail "dump calls a bad block's page uncorrectable"
"$nk" dump "$img" --geometry 2048,64,64,16 --page 65 --json > "$tmp/d.json" || fail "dump --json failed"
python3 - "$tmp/d.json" <<'EOF' || fail "dump --json: wrong document"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["page"] == 65 and d["block"] == 1 and d["page_in_block"] == 1, d
assert d["bad_block"] is False and d["ecc"]["status"] == "clean" and d["ecc"]["engine"] == "hamming256", d
assert d["data"] == "ff" * 2048 and d["oob"] == "ff" * 64
EOF
expect 0 '"bad_block":true,"ecc":\{"engine":"hamming256","status":"bad-block"' -- "$nk" dump "$img" --geometry 2048,64,64,16 --page 192 --json

if [[ $fails -ne 0 ]]; then echo "$fails check(s) failed"; exit 1; fi
echo "all manual checks passed"

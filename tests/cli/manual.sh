#!/usr/bin/env bash
# The manual pages say what --help says (they are made from the same text),
# bash completion offers the commands and options --help lists, -V/--version,
# dump --json and dump on a bad block.
# usage: manual.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
here=$(cd "$(dirname "$0")" && pwd)
expect() {
  local want=$1 pattern=$2; shift 3
  local out status
  out=$("$@" 2>&1); status=$?
  if [[ $status -ne $want ]]; then fail "'$*' exited $status, wanted $want: $out"; return; fi
  grep -Eq -- "$pattern" <<<"$out" || fail "'$*' output lacks /$pattern/: $out"
}

expect 0 "^nandkit [0-9]+\.[0-9]+" -- "$NK" -V
expect 0 "^nandkit [0-9]+\.[0-9]+" -- "$NK" --version
[[ $("$NK" -V) == $("$NK" --version) ]] || fail "-V and --version differ"

# manual pages: one per command, each option of --help in its page, and
# groff renders every page without a warning
mkdir "$TMP/man"
"$NK" --man-dir "$TMP/man" || fail "--man-dir failed"
commands=$("$NK" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
[[ $(wc -w <<<"$commands") -ge 15 ]] || fail "nandkit --help lists too few commands: $commands"
[[ -s $TMP/man/nandkit.1 ]] || fail "no nandkit.1"
for cmd in $commands; do
  page=$TMP/man/nandkit-$cmd.1
  [[ -s $page ]] || { fail "no manual page for $cmd"; continue; }
  summary=$("$NK" --help | awk -v c="$cmd" '$1 == c { $1 = ""; sub(/^ +/, ""); print }')
  grep -qF -- "$(sed 's/-/\\-/g' <<<"$summary")" "$page" || fail "nandkit-$cmd.1 lacks the summary '$summary'"
  for option in $("$NK" "$cmd" --help | grep -oE -- '(^|[ ,[])--[a-z][-a-z0-9]*' | grep -oE -- '--[a-z][-a-z0-9]*' | sort -u); do
    grep -qF -- "$(sed 's/-/\\-/g' <<<"$option")" "$page" || fail "nandkit-$cmd.1 lacks $option (in --help)"
  done
  warnings=$(groff -man -ww -z "$page" 2>&1)
  [[ -z $warnings ]] || fail "groff warns on nandkit-$cmd.1: $warnings"
  rendered=$(MANWIDTH=100 man -l "$page" 2>/dev/null | col -b)
  grep -q "^OPTIONS" <<<"$rendered" || grep -q "^SYNOPSIS" <<<"$rendered" || fail "nandkit-$cmd.1 renders without sections"
done
expect 0 "--bb METHOD" -- bash -c "MANWIDTH=100 man -l '$TMP/man/nandkit-read.1' | col -b"

# bash completion from the same texts
source "$here/../../tools/completion/nandkit.bash"
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _nandkit; echo "${COMPREPLY[*]}"; }
out=$(complete_words "$NK" "")
for cmd in read write erase torture bench info; do
  grep -qw "$cmd" <<<"$out" || fail "completion of the command lacks $cmd: $out"
done
out=$(complete_words "$NK" read --n)
grep -qw -- "--noecc" <<<"$out" || fail "completion of 'read --n' lacks --noecc: $out"
out=$(complete_words "$NK" read --bb "")
[[ $out == "skipbad padbad dumpbad" ]] || fail "completion of --bb: $out"
out=$(complete_words "$NK" info --chip K9F)
grep -qw K9F1G08U0A <<<"$out" || fail "completion of --chip lacks K9F1G08U0A: $out"
out=$(complete_words "$NK" sim "")
[[ $out == "create list" ]] || fail "completion of sim: $out"
# --bb=VALUE (bash splits the word at '='), ecc's actions and schemes, no file names
out=$(complete_words "$NK" read x.img --bb = "")
[[ $out == "skipbad padbad dumpbad" ]] || fail "completion of --bb=: $out"
out=$(complete_words "$NK" read x.img --bb "=")
[[ $out == "skipbad padbad dumpbad" ]] || fail "completion of --bb= with nothing after: $out"
out=$(complete_words "$NK" read x.img --bb = pa)
[[ $out == "padbad" ]] || fail "completion of --bb=pa: $out"
out=$(complete_words "$NK" ecc "")
[[ $out == "calc check correct" ]] || fail "completion of ecc: $out"
out=$(complete_words "$NK" ecc calc --scheme "")
grep -qw hamming256 <<<"$out" && grep -qw bch8-512 <<<"$out" || fail "completion of --scheme: $out"
out=$(complete_words "$NK" ecc calc --scheme = "")
grep -qw hamming256 <<<"$out" || fail "completion of --scheme=: $out"
out=$(complete_words "$NK" help "p")
[[ $out == "put" ]] || fail "completion of help p: $out"

# nandkit.1: the text after the last command is a paragraph of its own, and
# the exit-status table is in every page
last=$(tail -1 <<<"$commands")
awk -v c="$last" '$0 == ".B " c { getline; getline; print; exit }' "$TMP/man/nandkit.1" > "$TMP/after"
[[ $(cat "$TMP/after") == .PP ]] || fail "nandkit.1: the text after $last is not a new paragraph: $(cat "$TMP/after")"
for page in "$TMP"/man/*.1; do
  grep -q "not found: the image, a path in it, or a host file" "$page" || fail "$page lacks the exit-status table"
done

# dump: a factory-bad block is named as such; --json
img=$TMP/chip.img
"$NK" sim create --full "$img" --geometry 2048,64,64,16 --bad-blocks 3, >/dev/null
expect 0 "ecc: not checked: block 3 is bad" -- "$NK" dump "$img" --geometry 2048,64,64,16 --page 193
out=$("$NK" dump "$img" --geometry 2048,64,64,16 --page 193 2>&1)
grep -q uncorrectable <<<"$out" && fail "dump calls a bad block's page uncorrectable"
"$NK" dump "$img" --geometry 2048,64,64,16 --page 65 --json > "$TMP/d.json" || fail "dump --json failed"
python3 - "$TMP/d.json" <<'EOF' || fail "dump --json: wrong document"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["page"] == 65 and d["block"] == 1 and d["page_in_block"] == 1, d
assert d["bad_block"] is False and d["ecc"]["status"] == "clean" and d["ecc"]["engine"] == "hamming256", d
assert d["data"] == "ff" * 2048 and d["oob"] == "ff" * 64
EOF
expect 0 '"bad_block":true,"ecc":\{"engine":"hamming256","status":"bad-block"' -- "$NK" dump "$img" --geometry 2048,64,64,16 --page 192 --json

nk_test_end "all manual checks passed"

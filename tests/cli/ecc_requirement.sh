#!/usr/bin/env bash
# The chip's ECC requirement against the layout's ECC: a weaker engine is
# refused in one line naming both, unless --force-ecc; a layout without data
# ECC (mkyaffs2) is a deliberate choice and is not refused.
# usage: bash tests/cli/ecc_requirement.sh NANDKIT_BINARY FIXTURES_DIR
set -u
nk=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect STATUS PATTERN -- command...: exit status and a regex on stdout+stderr
expect() {
  local want=$1 pattern=$2; shift 3
  local out status
  out=$("$@" 2>&1); status=$?
  if [[ $status -ne $want ]]; then fail "'$*' exited $status, wanted $want: $out"; return; fi
  if ! grep -Eq -- "$pattern" <<<"$out"; then fail "'$*' output lacks /$pattern/: $out"; fi
}

mkdir "$tmp/tree"
printf 'kept\n' >"$tmp/tree/f"

# MT29F8G08ABABA requires 4 bits per 512 bytes; the linux layout's Hamming
# corrects 1 per 256.
weaker="ECC 'hamming256' \(1 bit\(s\) per 256 bytes\), weaker than the 4 bit\(s\) per 512 bytes MT29F8G08ABABA requires: give --force-ecc"
expect 2 "$weaker" -- "$nk" mkimage "$tmp/tree" "$tmp/img" --chip MT29F8G08ABABA
[[ -e "$tmp/img" ]] && fail "a refused mkimage left an image behind"
out=$("$nk" mkimage "$tmp/tree" "$tmp/img" --chip MT29F8G08ABABA 2>&1 >/dev/null)
[[ $(wc -l <<<"$out") -eq 1 ]] || fail "the refusal is not one line: $out"
expect 0 "objects: " -- "$nk" mkimage "$tmp/tree" "$tmp/img" --chip MT29F8G08ABABA --force-ecc
expect 2 "$weaker" -- "$nk" ls "$tmp/img" --chip MT29F8G08ABABA
expect 0 " f$" -- "$nk" ls "$tmp/img" --chip MT29F8G08ABABA --force-ecc
expect 0 "^kept$" -- "$nk" cat "$tmp/img" /f --chip MT29F8G08ABABA --force-ecc

# A chip whose requirement Hamming meets needs no flag.
expect 0 "objects: " -- "$nk" mkimage "$tmp/tree" "$tmp/img1" --chip K9F1G08U0A
expect 0 " f$" -- "$nk" ls "$tmp/img1" --chip K9F1G08U0A

# No data ECC at all is the mkyaffs2 format's own choice: not refused.
expect 0 "objects: " -- "$nk" mkimage "$tmp/tree" "$tmp/img2" --chip MT29F8G08ABABA --layout mkyaffs2
expect 0 " f$" -- "$nk" ls "$tmp/img2" --chip MT29F8G08ABABA --layout mkyaffs2

# --help tells of the flag.
expect 0 "--force-ecc" -- "$nk" ls --help

# info names the engine the device would choose for the chip.
expect 0 "bch4-512" -- "$nk" info --chip MT29F8G08ABABA

if [[ $fails -ne 0 ]]; then echo "$fails failure(s)"; exit 1; fi
echo "all passed"

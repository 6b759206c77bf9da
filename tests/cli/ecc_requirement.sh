#!/usr/bin/env bash
# The chip's ECC requirement against --ecc: the default is the engine the
# device picks for the chip; a weaker engine is refused in one line naming
# both, unless --force-ecc; a layout without data ECC (mkyaffs2) is a
# deliberate choice and is not refused; tags that do not fit the OOB bytes
# the ECC leaves free are refused naming both counts.
# usage: bash tests/cli/ecc_requirement.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"

# expect STATUS PATTERN -- command...: exit status and a regex on stdout+stderr
expect() {
  local want=$1 pattern=$2; shift 3
  local out status
  out=$("$@" 2>&1); status=$?
  if [[ $status -ne $want ]]; then fail "'$*' exited $status, wanted $want: $out"; return; fi
  if ! grep -Eq -- "$pattern" <<<"$out"; then fail "'$*' output lacks /$pattern/: $out"; fi
}

mkdir "$TMP/tree"
printf 'kept\n' >"$TMP/tree/f"

# MT29F8G08ABABA requires 4 bits per 512 bytes. Without --ecc the device
# picks what the requirement calls for (BCH-4 over 512 bytes); Hamming,
# 1 bit per 256, is refused in one line naming both unless --force-ecc.
expect 0 "objects: " -- "$NK" mkimage "$TMP/tree" "$TMP/img0" --chip MT29F8G08ABABA
expect 0 " f$" -- "$NK" ls "$TMP/img0" --chip MT29F8G08ABABA
expect 0 "^kept$" -- "$NK" cat "$TMP/img0" /f --chip MT29F8G08ABABA
expect 0 "ecc: bch4-512, clean" -- "$NK" dump "$TMP/img0" --chip MT29F8G08ABABA --page 0
expect 0 "^kept$" -- "$NK" cat "$TMP/img0" /f --chip MT29F8G08ABABA --ecc bch4

weaker="--ecc hamming \('hamming256', 1 bit\(s\) per 256 bytes\) is weaker than the 4 bit\(s\) per 512 bytes MT29F8G08ABABA requires: give --force-ecc"
expect 2 "$weaker" -- "$NK" mkimage "$TMP/tree" "$TMP/img" --chip MT29F8G08ABABA --ecc hamming
[[ -e "$TMP/img" ]] && fail "a refused mkimage left an image behind"
out=$("$NK" mkimage "$TMP/tree" "$TMP/img" --chip MT29F8G08ABABA --ecc hamming 2>&1 >/dev/null)
[[ $(wc -l <<<"$out") -eq 1 ]] || fail "the refusal is not one line: $out"
expect 0 "objects: " -- "$NK" mkimage "$TMP/tree" "$TMP/img" --chip MT29F8G08ABABA --ecc hamming --force-ecc
sum=$(sha256sum "$TMP/img")
for cmd in "ls $TMP/img" "cat $TMP/img /f" "fsck $TMP/img" "extract $TMP/img $TMP/out" \
  "dump $TMP/img --page 0" "read $TMP/img -f $TMP/r.bin" "put $TMP/img $TMP/tree/f /g" \
  "write $TMP/img $TMP/tree/f --pad" "erase $TMP/img 0 1" "info $TMP/img"; do
  # shellcheck disable=SC2086
  expect 2 "$weaker" -- "$NK" $cmd --chip MT29F8G08ABABA --ecc hamming
done
[[ $(sha256sum "$TMP/img") == "$sum" ]] || fail "a refused command changed the image"
[[ -e "$TMP/out" || -e "$TMP/r.bin" ]] && fail "a refused command wrote its output"
expect 0 " f$" -- "$NK" ls "$TMP/img" --chip MT29F8G08ABABA --ecc hamming --force-ecc
expect 0 "^kept$" -- "$NK" cat "$TMP/img" /f --chip MT29F8G08ABABA --ecc hamming --force-ecc
expect 0 "ecc: hamming256, clean" -- "$NK" dump "$TMP/img" --page 0 --chip MT29F8G08ABABA --ecc hamming --force-ecc
# No ECC at all is weaker too when asked for by name.
expect 2 "--ecc none \\(no ECC\\) is weaker than the 4 bit\\(s\\) per 512 bytes MT29F8G08ABABA" \
  -- "$NK" ls "$TMP/img" --chip MT29F8G08ABABA --ecc none
# A stronger engine than required is accepted.
expect 0 "objects: " -- "$NK" mkimage "$TMP/tree" "$TMP/img8" --chip MT29F8G08ABABA --ecc bch8
expect 0 "^kept$" -- "$NK" cat "$TMP/img8" /f --chip MT29F8G08ABABA --ecc bch8

# A chip whose requirement Hamming meets needs no flag.
expect 0 "objects: " -- "$NK" mkimage "$TMP/tree" "$TMP/img1" --chip K9F1G08U0A
expect 0 " f$" -- "$NK" ls "$TMP/img1" --chip K9F1G08U0A
expect 0 "ecc: hamming256, clean" -- "$NK" dump "$TMP/img1" --chip K9F1G08U0A --page 0

# No data ECC at all is the mkyaffs2 format's own choice: not refused, and
# no engine can be added to it.
expect 0 "objects: " -- "$NK" mkimage "$TMP/tree" "$TMP/img2" --chip MT29F8G08ABABA --layout mkyaffs2
expect 0 " f$" -- "$NK" ls "$TMP/img2" --chip MT29F8G08ABABA --layout mkyaffs2
expect 2 "^nandkit: --ecc bch8: the mkyaffs2 layout has no data ECC" \
  -- "$NK" ls "$TMP/img2" --chip MT29F8G08ABABA --layout mkyaffs2 --ecc bch8

# BCH-8 in Linux's layout of a 2048+64 page takes 52 OOB bytes and leaves
# 10 free: too few for the 28 bytes of YAFFS2 tags. Refused naming both,
# with the in-band layout suggested, before anything is written; in-band
# works.
geo=(--geometry 2048,64,64,32)
expect 2 "^nandkit: --layout linux needs 28 free OOB bytes per page for the YAFFS2 tags, but ECC 'bch8-512' in Linux's layout leaves 10 of the 64-byte OOB: use --layout inband" \
  -- "$NK" mkimage "$TMP/tree" "$TMP/img3" "${geo[@]}" --ecc bch8
[[ -e "$TMP/img3" ]] && fail "the refused bch8 mkimage left an image behind"
expect 0 "inband layout" -- "$NK" mkimage "$TMP/tree" "$TMP/img3" "${geo[@]}" --ecc bch8 --layout inband
expect 2 "needs 28 free OOB bytes .* leaves 10 " -- "$NK" ls "$TMP/img3" "${geo[@]}" --ecc bch8
expect 0 "^kept$" -- "$NK" cat "$TMP/img3" /f "${geo[@]}" --ecc bch8 --layout inband
# Page commands that do not carry YAFFS2 tags take bch8 on that page.
expect 0 "ecc: bch8-512, clean" -- "$NK" dump "$TMP/img3" "${geo[@]}" --ecc bch8 --page 0
# BCH-4 leaves 34 free bytes: the tags fit.
expect 0 "linux layout" -- "$NK" mkimage "$TMP/tree" "$TMP/img4" "${geo[@]}" --ecc bch4
expect 0 "^kept$" -- "$NK" cat "$TMP/img4" /f "${geo[@]}" --ecc bch4
# Codes that do not fit the OOB at all, and names that mean nothing.
expect 2 "^nandkit: --ecc bch16 does not fit a 2048\+64 page: 26 code bytes per 512-byte step" \
  -- "$NK" dump "$TMP/img4" "${geo[@]}" --ecc bch16 --page 0
expect 2 "^nandkit: unknown --ecc 'bch8x'" -- "$NK" ls "$TMP/img4" "${geo[@]}" --ecc bch8x
expect 2 "^nandkit: --ecc 'bch40': strength 40 out of range" -- "$NK" ls "$TMP/img4" "${geo[@]}" --ecc bch40
expect 2 "^nandkit: --ecc on-die: .* has no on-die ECC" -- "$NK" ls "$TMP/img4" "${geo[@]}" --ecc on-die

# --help tells of the options.
expect 0 "--force-ecc" -- "$NK" ls --help
for c in mkimage ls cat extract fsck dump read write erase torture put rm mkdir mv chmod info badblocks; do
  expect 0 "--ecc E " -- "$NK" "$c" --help
done

# info names the engine the device would choose for the chip.
expect 0 "bch4-512" -- "$NK" info --chip MT29F8G08ABABA

nk_test_end "all passed"

#!/bin/bash
# Errors that say what is wrong: an image read with an ECC it was not
# written with is refused naming the engine that reads it; a directory moved
# into itself is named as such, not "invalid argument".
#
# usage: bash tests/cli/plain_errors.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"
cd "$TMP" || exit 1
G="--geometry 2048,64,64,16"
mkdir -p tree/etc && echo hello > tree/etc/motd && seq 1 5000 > tree/numbers
"$NK" mkimage tree fs.img $G > /dev/null 2>&1 || fail "mkimage (default ECC) failed"
"$NK" mkimage tree bch.img $G --ecc bch4 --layout inband > /dev/null 2>&1 || fail "mkimage --ecc bch4 failed"

# expect CODE TEXT -- command...: exit CODE, one line on stderr holding TEXT.
expect() {
    local want=$1 text=$2
    shift 3
    "$@" > /dev/null 2> err
    local got=$?
    [ "$got" = "$want" ] || fail "exit $got, expected $want: $* ($(cat err))"
    [ "$(wc -l < err)" = 1 ] || fail "not one line from: $* ($(cat err))"
    grep -q -- "$text" err || fail "'$text' not in the error of $*: $(cat err)"
}

# an_image_read_with_the_wrong_ecc_names_the_one_that_reads_it
expect 2 "fs.img: the data ECC does not match: .* fail hamming512 (--ecc hamming512); they read clean with --ecc hamming256" -- \
    "$NK" ls fs.img --ecc hamming512 $G
expect 2 "the data ECC does not match: .* fail bch4-512 (--ecc bch4); they read clean with --ecc hamming256" -- \
    "$NK" cat fs.img /etc/motd --ecc bch4 $G
expect 2 "bch.img: the data ECC does not match: .* fail hamming256 (the chip's default); they read clean with --ecc bch4" -- \
    "$NK" ls bch.img --layout inband $G
expect 2 "the data ECC does not match" -- "$NK" rm fs.img /numbers --ecc bch4 $G
"$NK" ls bch.img --layout inband --ecc bch4 $G > /dev/null 2> err || fail "the right ECC is refused: $(cat err)"
"$NK" ls fs.img $G > /dev/null 2> err || fail "the default ECC is refused on its own image: $(cat err)"

# a_directory_cannot_move_into_itself
"$NK" mkdir fs.img /etc/sub $G > /dev/null 2>&1 || fail "mkdir /etc/sub failed"
expect 2 "mv /etc to /etc/sub: a directory cannot move into itself" -- "$NK" mv fs.img /etc /etc/sub $G
expect 2 "mv /etc to /etc/sub/x: a directory cannot move into itself" -- "$NK" mv fs.img /etc /etc/sub/x $G
expect 2 "a name ending in . or .. cannot be renamed" -- "$NK" mv fs.img /etc/. /x $G
"$NK" ls fs.img /etc $G | grep -q " sub$" || fail "a refused mv changed the tree"

nk_test_end "plain errors: all checks passed"

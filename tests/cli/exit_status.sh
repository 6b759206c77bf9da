#!/bin/bash
# One exit-status table for every command (docs/cli.md, "Exit status"):
# 0 done, 1 failed, 2 bad input, 3 fsck's interrupted-write traces, 4 not
# found (the image, a path in it, a host file), 5 the image in use. Each
# command's not-found and bad-input cases, an option a command does not take
# refused in one line naming it, and `help COMMAND` printing that command's
# help with the table.
#
# usage: bash tests/cli/exit_status.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"

# expect CODE TEXT -- command...: exit CODE and one stderr line holding TEXT.
expect() {
    local want=$1 text=$2
    shift 3
    "$@" > /dev/null 2> "$TMP/err"
    local got=$?
    [ "$got" = "$want" ] || fail "exit $got, expected $want: $* ($(head -c 300 "$TMP/err"))"
    [ "$(wc -l < "$TMP/err")" = 1 ] || fail "not one line from: $* ($(cat "$TMP/err"))"
    grep -q -- "$text" "$TMP/err" || fail "'$text' not in the error of $*: $(cat "$TMP/err")"
}

G="--geometry 2048,64,64"
mkdir -p "$TMP/tree/etc" && echo hello > "$TMP/tree/etc/motd" && echo x > "$TMP/host"
"$NK" mkimage "$TMP/tree" "$TMP/fs.img" $G,16 > /dev/null 2>&1 || fail "mkimage failed"
IMG=$TMP/fs.img

# every_command_reports_a_missing_image_as_not_found
for cmd in "ls" "cat @ /etc/motd" "extract @ $TMP/out" "fsck" "put @ $TMP/host /h" "rm @ /etc/motd" \
    "mkdir @ /d" "mv @ /etc /e" "chmod @ 644 /etc/motd" "dump @ --page 0" "read @ -f $TMP/o" \
    "write @ $TMP/host" "erase @ 0 1" "badblocks" "info" "torture @ -b 0+1 --destructive"; do
    set -- $cmd
    name=$1
    shift
    args=("$@")
    [ ${#args[@]} = 0 ] && args=(@)
    args=("${args[@]/@/$TMP/none.img}")
    expect 4 "none.img" -- "$NK" "$name" "${args[@]}" $G
done

# paths_missing_in_the_image_are_not_found_for_readers_and_writers_alike
expect 4 "/nope" -- "$NK" ls "$IMG" /nope $G
expect 4 "/nope" -- "$NK" cat "$IMG" /nope $G
expect 4 "/nope" -- "$NK" rm "$IMG" /nope $G
expect 4 "/nope" -- "$NK" mv "$IMG" /nope /x $G
expect 4 "/nope" -- "$NK" chmod "$IMG" 644 /nope $G
expect 4 "/nope" -- "$NK" mkdir "$IMG" /nope/d $G
expect 4 "/nope" -- "$NK" put "$IMG" "$TMP/host" /nope/h $G

# host_files_missing_are_not_found
expect 4 "$TMP/absent" -- "$NK" put "$IMG" "$TMP/absent" /h $G
expect 4 "$TMP/absent" -- "$NK" write "$IMG" "$TMP/absent" $G
expect 4 "$TMP/absent" -- "$NK" mkimage "$TMP/absent" "$TMP/n.img" $G,16

# bad_input_is_2_for_every_command
expect 2 "bad --seed" -- "$NK" ls "$IMG" --seed x $G
expect 2 "bad --seed" -- "$NK" rm "$IMG" /etc/motd --seed x $G
expect 2 "not a directory\|is a directory" -- "$NK" cat "$IMG" /etc $G
expect 2 "chmod: bad mode" -- "$NK" chmod "$IMG" 999 /etc/motd $G
expect 2 "unknown option '--bogus'" -- "$NK" fsck "$IMG" --bogus $G
expect 2 "unknown command 'bogus'" -- "$NK" bogus

# options_that_do_not_apply_are_refused_in_one_line_naming_them
for cmd in ls cat extract dump read info; do
    expect 2 "$cmd: --power-cut-after does not apply" -- "$NK" "$cmd" "$IMG" --power-cut-after 3 $G
    expect 2 "$cmd: --force does not apply" -- "$NK" "$cmd" "$IMG" --force $G
    "$NK" "$cmd" --help | grep -q -- "--power-cut-after" && fail "$cmd --help offers --power-cut-after"
done
expect 2 "--mtd-ecc does not apply to $IMG" -- "$NK" ls "$IMG" --mtd-ecc nandkit $G
expect 2 "--mtd-ecc does not apply" -- "$NK" rm "$IMG" /etc/motd --mtd-ecc kernel $G
"$NK" put --help | grep -q -- "--power-cut-after" || fail "put --help does not offer --power-cut-after"
expect 2 "prettyprint" -- "$NK" read "$IMG" -p $G
expect 2 "bench: --power-cut-after does not apply" -- "$NK" bench --power-cut-after 3
expect 2 "bench: --layout does not apply" -- "$NK" bench --layout inband
expect 2 "sim create: --power-cut-after does not apply" -- "$NK" sim create "$TMP/s.img" --chip K9F1G08U0A --power-cut-after 3
[ -e "$TMP/s.img" ] && fail "a refused sim create made its image"
# every shared option a command's --help lists, it takes: none is refused
for cmd in ls cat extract dump read info put rm mkdir mv chmod mkimage fsck write erase torture badblocks bench; do
    for option in $("$NK" "$cmd" --help | grep -oE -- '--(layout|seed|mtd-ecc|force-ecc|bit-error-rate|wait|force|power-cut-after)\b' | sort -u); do
        "$NK" "$cmd" "$option" 2>&1 | grep -q "does not apply" && fail "$cmd --help offers $option but refuses it"
    done
done

# help_command_prints_that_commands_help_and_the_table
"$NK" help put > "$TMP/help" || fail "help put failed"
head -1 "$TMP/help" | grep -q "usage: nandkit put" || fail "help put: $(head -1 "$TMP/help")"
grep -q "4 not found" "$TMP/help" || fail "help put does not give the exit-status table"
"$NK" put --help | cmp -s - "$TMP/help" || fail "help put and put --help differ"
expect 2 "help: unknown command 'bogus'" -- "$NK" help bogus

nk_test_end "exit status: all checks passed"

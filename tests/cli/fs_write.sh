#!/bin/bash
# The commands that change an image: put -> cat round trips (multi-chunk and
# empty files, replacing a file), rm / mkdir / mv / chmod seen by ls, one-line
# errors with exit status 2 for missing parents and bad modes, and a power-cut
# campaign: a put over an existing file cut at every flash operation leaves
# the old file or the whole new one, and fsck finds nothing wrong but the
# page torn by the cut.
#
# usage: bash tests/cli/fs_write.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"

for layout in linux inband mkyaffs2; do
    G="--geometry 2048,64,64,32 --layout $layout"
    IMG="$TMP/$layout.img"
    mkdir -p "$TMP/src/etc"
    printf 'hello\n' > "$TMP/src/etc/motd"
    "$NK" mkimage "$TMP/src" "$IMG" $G --no-progress > /dev/null || { fail "mkimage $layout"; continue; }

    # Round trips: several chunks (not a whole number of them), empty, replaced.
    head -c 10000 /dev/urandom > "$TMP/big"
    : > "$TMP/empty"
    head -c 4096 /dev/urandom > "$TMP/exact"
    for f in big empty exact; do
        "$NK" put "$IMG" "$TMP/$f" "/etc/$f" $G || fail "$layout: put $f"
        "$NK" cat "$IMG" "/etc/$f" $G > "$TMP/got" || fail "$layout: cat $f"
        cmp -s "$TMP/got" "$TMP/$f" || fail "$layout: $f read back differs"
    done
    head -c 3000 /dev/urandom > "$TMP/big2"
    "$NK" put "$IMG" "$TMP/big2" /etc/big $G || fail "$layout: put over a file"
    "$NK" cat "$IMG" /etc/big $G | cmp -s - "$TMP/big2" || fail "$layout: replaced file differs"
    "$NK" ls "$IMG" /etc $G > "$TMP/ls"
    grep -q "\.big\.nkput" "$TMP/ls" && fail "$layout: put left its temporary name"
    grep -q " 3000 .* big$" "$TMP/ls" || fail "$layout: ls does not show big with 3000 bytes"

    # mkdir (-p, --mode), mv, chmod, rm seen by ls.
    "$NK" mkdir "$IMG" /data $G || fail "$layout: mkdir"
    "$NK" mkdir -p --mode 700 "$IMG" /data/a/b $G || fail "$layout: mkdir -p"
    "$NK" mv "$IMG" /etc/exact /data/a/b/moved $G || fail "$layout: mv"
    "$NK" chmod "$IMG" 600 /data/a/b/moved $G || fail "$layout: chmod"
    "$NK" rm "$IMG" /etc/motd $G || fail "$layout: rm file"
    "$NK" mkdir "$IMG" /gone $G && "$NK" rm "$IMG" /gone $G || fail "$layout: rm empty dir"
    "$NK" ls -R --json "$IMG" $G > "$TMP/tree.json" || fail "$layout: ls -R"
    python3 - "$TMP/tree.json" <<'PY' || fail "$layout: ls after mkdir/mv/chmod/rm is wrong"
import json, sys
t = {e["path"]: e for e in json.load(open(sys.argv[1]))}
assert t["/data/a"]["type"] == "dir" and int(t["/data/a"]["mode"], 8) & 0o7777 == 0o700, t["/data/a"]
assert t["/data/a/b/moved"]["size"] == 4096
assert int(t["/data/a/b/moved"]["mode"], 8) & 0o7777 == 0o600
for gone in ("/etc/motd", "/etc/exact", "/gone"):
    assert gone not in t, gone
PY
    "$NK" cat "$IMG" /data/a/b/moved $G | cmp -s - "$TMP/exact" || fail "$layout: moved file differs"
    "$NK" fsck --quiet "$IMG" $G > /dev/null || fail "$layout: fsck after the changes"
done

# Errors: one line, exit status 2, naming the bad value.
G="--geometry 2048,64,64,32"
IMG="$TMP/linux.img"
expect_user_error() {
    local want=$1 status=2
    shift
    [ "$1" = --not-found ] && status=4 && shift
    "$@" > /dev/null 2> "$TMP/err"
    local got=$?
    [ "$got" = $status ] || fail "exit $got, expected $status: $*"
    [ "$(wc -l < "$TMP/err")" = 1 ] || fail "expected one line from: $* (got: $(cat "$TMP/err"))"
    grep -q -- "$want" "$TMP/err" || fail "error does not name '$want': $(cat "$TMP/err")"
}
expect_user_error "/missing" --not-found "$NK" put "$IMG" "$TMP/big" /missing/f $G
expect_user_error "/missing" --not-found "$NK" mkdir "$IMG" /missing/d $G
expect_user_error "/nothing" --not-found "$NK" rm "$IMG" /nothing $G
expect_user_error "/nothing" --not-found "$NK" mv "$IMG" /nothing /x $G
expect_user_error "/data" "$NK" rm "$IMG" /data $G
expect_user_error "999" "$NK" chmod "$IMG" 999 /data $G
expect_user_error "$TMP/absent" --not-found "$NK" put "$IMG" "$TMP/absent" /f $G
expect_user_error "/etc" "$NK" put "$IMG" "$TMP/big" /etc $G
"$NK" rm "$IMG" /data $G 2> "$TMP/err"
grep -q "not empty" "$TMP/err" || fail "rm of a full directory does not say it is not empty"

# Power-cut campaign: put NEW over OLD, cut at every flash operation.
mkdir -p "$TMP/camp"
head -c 9000 /dev/urandom > "$TMP/old"
head -c 7000 /dev/urandom > "$TMP/new"
"$NK" mkimage "$TMP/camp" "$TMP/base.img" $G --no-progress > /dev/null || fail "campaign mkimage"
"$NK" put "$TMP/base.img" "$TMP/old" /f $G || fail "campaign: put old"
cuts=0
torn=0
completed=0
for n in $(seq 1 3000); do
    cp "$TMP/base.img" "$TMP/cut.img"
    rm -f "$TMP/cut.img.nksim"
    [ -e "$TMP/base.img.nksim" ] && cp "$TMP/base.img.nksim" "$TMP/cut.img.nksim"
    "$NK" put "$TMP/cut.img" "$TMP/new" /f $G --power-cut-after "$n" --seed "$n" 2> "$TMP/err"
    rc=$?
    if [ $rc = 0 ]; then
        completed=$n
        "$NK" cat "$TMP/cut.img" /f $G | cmp -s - "$TMP/new" || fail "put with no cut: /f is not the new file"
        break
    fi
    cuts=$((cuts + 1))
    grep -q "power cut at flash operation $n" "$TMP/err" || fail "cut $n not named: $(cat "$TMP/err")"
    if "$NK" cat "$TMP/cut.img" /f $G > "$TMP/got" 2> /dev/null; then
        cmp -s "$TMP/got" "$TMP/old" || cmp -s "$TMP/got" "$TMP/new" ||
            fail "cut $n: /f is neither the old nor the new file ($(wc -c < "$TMP/got") bytes)"
    else
        fail "cut $n: /f unreadable (the old file existed)"
    fi
    # fsck: clean, except that the page being programmed when the power went
    # may be left torn (its tags or data unreadable, the chunk ignored):
    # exactly one such page, nothing else.
    if ! "$NK" fsck "$TMP/cut.img" $G > "$TMP/fsck"; then
        if [ "$(grep -c '^problem: ' "$TMP/fsck")" = 1 ] &&
            grep -Eq '^problem: (tags-ecc|torn-chunk) ' "$TMP/fsck"; then
            torn=$((torn + 1))
        else
            fail "cut $n: fsck: $(grep '^problem' "$TMP/fsck")"
        fi
    fi
done
[ "$completed" -gt 1 ] || fail "the campaign never saw the put complete"
echo "put campaign: $cuts cut points (every flash operation of the put), completed at $completed; $torn left one torn page"

nk_test_end "fs_write: all passed"

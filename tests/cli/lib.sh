# Shared setup of the shell tests in tests/cli/ and tests/fuse/, sourced
# (never run: CMake registers every other tests/cli/*.sh):
#
#   . "$(dirname "$0")/lib.sh"
#   nk_test_begin "$@"      # NK (the nandkit binary, absolute), TMP (a fresh
#                           # directory, removed at exit unless KEEP is set),
#                           # FAILS = 0, fail MESSAGE..., say MESSAGE...
#   nk_test_end "all ... checks passed"
#
# nk_test_begin leaves the shell in the directory it was in; a test that
# works inside TMP cds there itself. nk_test_cleanup_hook NAME runs the
# function NAME first at exit (an unmount, a kill), before TMP is removed.

nk_test_cleanup_hooks=()

nk_test_cleanup() {
    local hook
    for hook in "${nk_test_cleanup_hooks[@]}"; do
        "$hook"
    done
    [ -n "${KEEP:-}" ] || rm -rf "$TMP"
}

nk_test_cleanup_hook() {
    nk_test_cleanup_hooks+=("$1")
}

nk_test_begin() {
    set -u
    NK=$(realpath "$1")
    TMP=$(mktemp -d)
    FAILS=0
    nk_test_t0=$SECONDS
    trap nk_test_cleanup EXIT
}

# A progress line with the seconds since nk_test_begin.
say() {
    echo "[$((SECONDS - nk_test_t0)) s] $*"
}

fail() {
    echo "FAIL: $*"
    FAILS=$((FAILS + 1))
}

# Exits 1 naming the count when a check failed, else prints MESSAGE.
nk_test_end() {
    if [ "$FAILS" -ne 0 ]; then
        echo "$FAILS check(s) failed"
        exit 1
    fi
    echo "$1"
}

# A test that needs TOOL fails (never skips) when it is missing: CI
# installs it (scripts/install-deps.sh GROUP).
nk_test_need() {
    local tool=$1 group=$2
    command -v "$tool" > /dev/null ||
        { echo "FAIL: $tool is not installed (scripts/install-deps.sh $group)"; exit 1; }
}

# ----- FUSE (nandkit mount) -------------------------------------------------
# nk_test_mount_setup makes MNT ($TMP/mnt) and, at exit, unmounts it and
# kills a daemon still running. The helpers mount IMG on MNT with the image
# options in G (word-split: "--geometry P,O,N,B" or "--chip NAME"); the
# daemon's stderr collects in $TMP/mount.err.

nk_test_mount_cleanup() {
    fusermount3 -u -z "$MNT" 2> /dev/null
    [ -n "$PID" ] && kill -9 "$PID" 2> /dev/null
}

nk_test_mount_setup() {
    MNT=$TMP/mnt
    PID=
    mkdir -p "$MNT"
    nk_test_cleanup_hook nk_test_mount_cleanup
}

# nk_mount_fg [OPTIONS...]: the daemon in the foreground (-f), in the
# background of this shell, PID set; waits until the mount is there.
# Returns 1 (after a line with the daemon's words) when it never comes up.
nk_mount_fg() {
    "$NK" mount "$IMG" "$MNT" $G -f "$@" 2>> "$TMP/mount.err" &
    PID=$!
    for _ in $(seq 400); do
        mountpoint -q "$MNT" && return 0
        kill -0 "$PID" 2> /dev/null || break
        sleep 0.05
    done
    echo "mount did not come up: $(cat "$TMP/mount.err")"
    return 1
}

# fusermount3 -u, then the daemon must exit 0.
nk_unmount() {
    fusermount3 -u "$MNT" || fail "fusermount3 -u"
    wait "$PID" || fail "the daemon exited with $?: $(tail -3 "$TMP/mount.err")"
    PID=
}

# SIGKILL to the daemon (a crash), and the dead mount cleared away.
nk_mount_kill() {
    kill -9 "$PID"
    { wait "$PID"; } 2> /dev/null
    PID=
    fusermount3 -u -z "$MNT" 2> /dev/null
    for _ in $(seq 100); do mountpoint -q "$MNT" || break; sleep 0.05; done
}

# Prints the errno name a Python statement raises (OSError), or "ok".
nk_errno_of() {
    python3 -c "
import errno, os, sys, ctypes
try:
    exec(sys.argv[1])
    print('ok')
except OSError as e:
    print(errno.errorcode[e.errno])
" "$1"
}

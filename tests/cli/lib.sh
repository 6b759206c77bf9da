# Shared setup of the shell tests in tests/cli/ and tests/fuse/, sourced
# (never run: CMake registers every other tests/cli/*.sh):
#
#   . "$(dirname "$0")/lib.sh"
#   nk_test_begin "$@"      # NK (the nandkit binary, absolute), TMP (a fresh
#                           # directory, removed at exit unless KEEP is set),
#                           # FAILS = 0, fail MESSAGE...
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
    trap nk_test_cleanup EXIT
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

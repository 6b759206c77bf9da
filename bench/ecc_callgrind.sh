#!/usr/bin/env bash
# Instructions per ECC operation, from callgrind (deterministic, unlike time).
# usage: bench/ecc_callgrind.sh [PATH_TO_bench_ecc] [CALLS]
# Only instructions inside the library function (nk_*_calculate or
# nk_*_correct and what they call) are collected (--toggle-collect), so the
# harness's loop and error injection do not count; a run with 0 calls is
# subtracted to cancel the set-up's own calls. Figure = per call.
set -euo pipefail
bench=${1:-build/bench/bench_ecc}
calls=${2:-2000}

collected() { # function scheme op calls
    valgrind --tool=callgrind --callgrind-out-file=/dev/null --collect-atstart=no \
        --toggle-collect="$1" "$bench" --calls "$4" --scheme "$2" --op "$3" 2>&1 >/dev/null |
        awk '/Collected/ { print $4 }'
}

per_call() { # function scheme op
    local base full
    base=$(collected "$1" "$2" "$3" 0)
    full=$(collected "$1" "$2" "$3" "$calls")
    echo $(((full - base) / calls))
}

printf '%-14s %-9s %12s\n' scheme op instructions
for scheme in hamming256 hamming512 hamming512-sm bch4-512 bch8-512 bch8-1024 bch16-1024; do
    case $scheme in
    hamming*) calc=nk_hamming_calculate correct=nk_hamming_correct ops="clean correct1" ;;
    *) calc=nk_bch_calculate correct=nk_bch_correct ops="clean correct1 correctT" ;;
    esac
    printf '%-14s %-9s %12s\n' "$scheme" calc "$(per_call "$calc" "$scheme" calc)"
    for op in $ops; do
        printf '%-14s %-9s %12s\n' "$scheme" "$op" "$(per_call "$correct" "$scheme" "$op")"
    done
done

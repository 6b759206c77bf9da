#!/usr/bin/env bash
# Runs the test firmware under qemu-system-arm with semihosting (its output
# arrives on QEMU's standard error) and passes its exit status on (SYS_EXIT:
# 0 when every check on the target passed).
# Instructions are counted (-icount shift=0: one instruction per virtual
# nanosecond), so the figures the firmware prints do not depend on the host.
#
# usage: tests/target/run.sh QEMU MACHINE FIRMWARE.elf [OUTPUT]
#   OUTPUT   where the firmware's output is kept (scripts/target-report.sh reads it)
set -euo pipefail
qemu=$1 machine=$2 elf=$3 out=${4:-}
[[ -n $out ]] || out=$(mktemp)
status=0
timeout 300 "$qemu" -M "$machine" -nographic -monitor none -serial none \
  -semihosting-config enable=on,target=native -icount shift=0 -kernel "$elf" >"$out" 2>&1 || status=$?
grep -v '^figure ' "$out" || true
echo "($(grep -c '^figure ' "$out") figure lines in $out)"
if [[ $status -ne 0 ]]; then
  echo "FAIL: the firmware on $machine exited with status $status" >&2
  exit 1
fi
grep -q '^ok: [0-9]* checks passed$' "$out" || { echo "FAIL: no 'ok' line from the firmware" >&2; exit 1; }

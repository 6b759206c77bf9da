#!/usr/bin/env bash
# Installs the Debian 12 packages nandkit needs, only those missing.
# usage: scripts/install-deps.sh GROUP...   groups: build test ci qemu fuse
set -euo pipefail

declare -A groups=(
  [build]="gcc make cmake"
  [test]="gcc make cmake libcmocka-dev libcjson-dev liblzma-dev xz-utils libxml2-utils python3 librsvg2-bin unyaffs"
  [ci]="gcc-arm-none-eabi libnewlib-arm-none-eabi clang libclang-rt-14-dev llvm"
  [qemu]="qemu-system-x86 busybox-static xz-utils"
  [fuse]="libfuse3-dev fuse3 pkg-config"
)

wanted=()
for group in "$@"; do
  if [[ -z "${groups[$group]+x}" ]]; then
    echo "install-deps: unknown group '$group' (build test ci qemu fuse)" >&2
    exit 2
  fi
  wanted+=(${groups[$group]})
done

missing=()
for pkg in "${wanted[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

sudo=""
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then sudo="sudo"; else
    echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1
  fi
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"

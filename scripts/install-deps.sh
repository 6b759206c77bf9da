#!/usr/bin/env bash
# Installs the Debian 12 packages nandkit needs, only those missing.
# usage: scripts/install-deps.sh GROUP...   groups: build test ci qemu fuse fuse-programs linux
# (linux: Linux's software ECC sources and valgrind, for bench_ecc_linux;
# fuse-programs: the programs tests/fuse/programs.sh runs on a mounted image)
#
# On a system without apt-get/dpkg it installs nothing: it names the packages
# (Debian names) and exits 1, so the caller stops with that message.
set -euo pipefail

declare -A groups=(
  [build]="gcc make cmake"
  [test]="gcc g++ make cmake libcmocka-dev libcjson-dev liblzma-dev xz-utils libxml2-utils python3 librsvg2-bin unyaffs attr"
  [ci]="gcc-arm-none-eabi libnewlib-arm-none-eabi clang libclang-rt-14-dev llvm pkg-config"
  [qemu]="qemu-system-x86 qemu-system-arm busybox-static xz-utils fuse3 mtd-utils"
  [fuse]="libfuse3-dev fuse3 pkg-config"
  [fuse-programs]="rsync git sqlite3 fio attr python3"
  [linux]="linux-source-6.1 valgrind xz-utils"
)

wanted=()
for group in "$@"; do
  if [[ -z "${groups[$group]+x}" ]]; then
    echo "install-deps: unknown group '$group' (build test ci qemu fuse fuse-programs linux)" >&2
    exit 2
  fi
  for pkg in ${groups[$group]}; do
    [[ " ${wanted[*]-} " == *" $pkg "* ]] || wanted+=("$pkg")
  done
done
[[ ${#wanted[@]} -eq 0 ]] && exit 0

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: not a Debian-based system (no apt-get/dpkg-query): install these" \
       "packages (Debian names; yours may differ) and run again: ${wanted[*]}" >&2
  exit 1
fi

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

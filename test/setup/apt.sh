#!/usr/bin/env bash
# Debian packages the suites use, installed in one apt transaction when missing (zsh and fish: the
# completion tests load `rlenv completion zsh|fish` in the real shells).
set -euo pipefail
pkgs=(docker.io debootstrap bubblewrap chromium slurm-wlm slurmrestd munge libkrb5-dev python3-pytest python3-pyflakes blender python3-numpy zsh fish)
missing=()
for p in "${pkgs[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p"); done
if [ ${#missing[@]} -eq 0 ]; then echo "all packages present"; exit 0; fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then echo "cannot install ${missing[*]}: need root and apt-get"; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q "${missing[@]}" >/dev/null
echo "installed ${missing[*]}"

#!/usr/bin/env bash
# Builds a Debian rootfs tarball from a recipe (scripts/image/recipes/<name>.txt):
# debootstrap --variant=minbase from Debian's mirror with the recipe's packages, a
# non-root user 1000:1000 named "rlenv", an empty /workspace it owns, apt caches removed.
# Usage: rootfs.sh RECIPE OUT.tar   (needs root and debootstrap). The caller caches OUT.
set -euo pipefail
recipe=$1 out=$2
mirror=${RLENV_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=$(sed -n 's/^suite:[[:space:]]*//p' "$recipe" | head -1)
suite=${suite:-bookworm}
pkgs=$(grep -vE '^[[:space:]]*(#|$)|^[a-z]+:' "$recipe" | tr -s ' \n' ',' | sed 's/,$//')
[ "$(id -u)" = 0 ] || { echo "rootfs.sh needs root (debootstrap chroots)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rlenv-rootfs.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
echo "debootstrap $suite (minbase) with: $pkgs"
debootstrap --variant=minbase ${pkgs:+--include="$pkgs"} "$suite" "$root" "$mirror"
echo 'rlenv:x:1000:1000:rlenv sandbox user:/workspace:/bin/sh' >> "$root/etc/passwd"
echo 'rlenv:x:1000:' >> "$root/etc/group"
echo 'rlenv:*:19000:0:99999:7:::' >> "$root/etc/shadow"
mkdir -p "$root/workspace" && chown 1000:1000 "$root/workspace"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb "$root"/var/log/*.log
tar -C "$root" --numeric-owner -cf "$out.partial" .
mv "$out.partial" "$out"
echo "wrote $out ($(du -h "$out" | cut -f1))"

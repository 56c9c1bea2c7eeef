#!/bin/bash
# prepare-carry.sh - fill .gpu/ (git-ignored) with what a device build needs and
# the device image lacks: Debian's jansson, sqlite3, cmocka and pkgconf, unpacked, plus
# env.sh that points CMake and pkg-config at them. Run here (with apt), then
# name ".gpu" in the device call's carry and start its command with
# ". .gpu/env.sh;".
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$ROOT/.gpu
rm -rf "$D" && mkdir -p "$D/debs" "$D/root"
(cd "$D/debs" && apt-get download libjansson-dev libjansson4 libsqlite3-dev libsqlite3-0 libcmocka-dev libcmocka0 \
    pkgconf pkgconf-bin libpkgconf3 2>/dev/null)
for f in "$D"/debs/*.deb; do dpkg -x "$f" "$D/root"; done
rm -rf "$D/debs"
cat >"$D/env.sh" <<'ENV'
# sourced on the device (from any folder)
_r=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/root
export PATH=$_r/usr/bin:$PATH
export PKG_CONFIG_PATH=$_r/usr/lib/x86_64-linux-gnu/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PKG_CONFIG_SYSROOT_DIR=$_r
export PKG_CONFIG_LIBDIR=$_r/usr/lib/x86_64-linux-gnu/pkgconfig
export LD_LIBRARY_PATH=$_r/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CMAKE_PREFIX_PATH=$_r/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
ENV
du -sh "$D"

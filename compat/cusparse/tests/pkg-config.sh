#!/bin/sh
# Builds test_compat.c against the installed compatibility package with pkg-config
# (spblk-cusparse: -I.../include/spblk/cusparse, -L.../lib/spblk/cusparse -lcusparse), as a
# Makefile-built cuSPARSE program would be, and runs it on the host backend.
#   sh pkg-config.sh <prefix> <build dir> <C compiler> <pkg-config>
# Exits 77 (skipped) when there is no pkg-config.
set -eu
prefix=$1 out=$2 cc=$3 pkg_config=${4:-pkg-config}
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v "$pkg_config" >/dev/null 2>&1; then
    echo "SKIPPED: pkg-config is not installed"
    exit 77
fi
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
mkdir -p "$out"
cflags=$("$pkg_config" --cflags spblk-cusparse)
libs=$("$pkg_config" --libs spblk-cusparse)
libdir=$("$pkg_config" --variable=libdir spblk-cusparse)
echo "pkg-config --cflags --libs spblk-cusparse: $cflags $libs"
$cc -std=c99 -Wall -Wextra -Wpedantic -Werror $cflags "$here/test_compat.c" -o "$out/test_compat_pc" $libs \
    -Wl,-rpath,"$libdir" -lm
SPBLK_BACKEND=host "$out/test_compat_pc"

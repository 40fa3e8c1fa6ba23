#!/bin/sh
# Builds cmake/install-test/main.c against the installed spblk with pkg-config, linked
# dynamically (`--cflags --libs`) and statically (`--static`, libspblk.a), and runs both.
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
cflags=$("$pkg_config" --cflags spblk)
libs=$("$pkg_config" --libs spblk)
static_libs=$("$pkg_config" --static --libs spblk)
libdir=$("$pkg_config" --variable=libdir spblk)
soname="libspblk.so.$("$pkg_config" --modversion spblk | cut -d. -f1)"
echo "pkg-config --cflags spblk:        $cflags"
echo "pkg-config --libs spblk:          $libs"
echo "pkg-config --static --libs spblk: $static_libs"
test -f "$("$pkg_config" --variable=fortran_module spblk)"

# Shared: -lspblk finds libspblk.so; the rpath finds it at run time.
$cc -std=c99 -Wall -Wextra -Werror -DSPBLK_SONAME="\"$soname\"" $cflags "$here/main.c" -o "$out/shared" $libs -Wl,-rpath,"$libdir" -ldl
# Static: the same flags, with libspblk.a picked over libspblk.so.
$cc -std=c99 -Wall -Wextra -Werror -DSPBLK_SONAME="\"$soname\"" $cflags "$here/main.c" -o "$out/static" \
    $(echo "$static_libs" | sed 's/-lspblk/-Wl,-Bstatic -lspblk -Wl,-Bdynamic/') -ldl
"$out/shared" shared
"$out/static" static

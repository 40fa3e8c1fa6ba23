#!/bin/sh
# Checks a built libcusparse.so.12 of spblk against what a drop-in for NVIDIA's needs
# (docs/drop-in.md 1.2): it exports exactly the functions NVIDIA's exports (the committed
# list), nothing else, all in version node libcusparse.so.12; its SONAME is libcusparse.so.12;
# it needs libspblk.so.0 and finds it through RUNPATH $ORIGIN/../.. (lib/spblk/cusparse -> lib).
#   sh check-library.sh <libcusparse.so.12> <docs/cusparse/libcusparse.so.12-exports.txt>
set -eu
lib=$1 list=$2
fail=0
want=$(grep -v '^#' "$list" | sed '/^$/d' | sort)
# objdump -T: address, flags (2 fields), section, size, version, name.
have=$(objdump -T "$lib" | awk '$4 == ".text" {print $NF}' | sort)
if [ "$want" != "$have" ]; then
    echo "FAILED: exported functions differ from $list (< missing, > extra):"
    printf '%s\n' "$want" >/tmp/spblk-compat-want.$$
    printf '%s\n' "$have" | diff /tmp/spblk-compat-want.$$ - | grep '^[<>]' | head -20
    rm -f /tmp/spblk-compat-want.$$
    fail=1
fi
other=$(objdump -T "$lib" | awk 'NF >= 7 && $4 != "*UND*" && $4 != "*ABS*" && ($4 != ".text" || $6 != "libcusparse.so.12")')
if [ -n "$other" ]; then
    echo "FAILED: symbols outside version node libcusparse.so.12 or not functions:"
    echo "$other" | head -10
    fail=1
fi
dynamic=$(objdump -p "$lib")
echo "$dynamic" | grep -Eq '^ +SONAME +libcusparse\.so\.12$' || { echo "FAILED: SONAME is not libcusparse.so.12"; fail=1; }
echo "$dynamic" | grep -Eq '^ +NEEDED +libspblk\.so\.0$' || { echo "FAILED: does not need libspblk.so.0"; fail=1; }
echo "$dynamic" | grep -Eq '^ +RUNPATH +\$ORIGIN/\.\./\.\.$' || { echo "FAILED: RUNPATH is not \$ORIGIN/../.."; fail=1; }
echo "$dynamic" | sed -n '/^Version definitions:/,/^$/p' | grep -q ' libcusparse\.so\.12$' ||
    { echo "FAILED: no version definition libcusparse.so.12"; fail=1; }
[ "$fail" -eq 0 ] && echo "PASSED: $(printf '%s\n' "$have" | wc -l) functions in version node libcusparse.so.12, SONAME libcusparse.so.12, needs libspblk.so.0"
exit "$fail"

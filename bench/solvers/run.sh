#!/usr/bin/env bash
# Solver benchmarks, spblk against NVIDIA's cuSPARSE on this machine's GPU (README.md here):
#   bench/solvers/run.sh PREFIX [MATRIX_DIR]
# PREFIX: a spblk install (include/spblk.h, lib/libspblk.so, and spblk's cuSPARSE-compatible
# lib/spblk/cusparse/libcusparse.so.12.6.3). MATRIX_DIR: .mtx files whose square ones are added
# to time_spsv and time_factor (default ../shared/matrices from the repository root; a missing
# directory means the built-in cases only). CUDA from ${CUDA_HOME:-/usr/local/cuda}; NVIDIA's
# libcusparse.so.12 is searched under it. SPBLK_BENCH_QUICK=1 passes "quick" (smaller built-in
# matrices) to time_spsv, time_spsm and time_factor; SPBLK_BENCH_ONLY (words of "spsv spsm
# factor pcg", default all) picks the parts. Everything goes to stdout; the exit status
# is nonzero if a program failed (the others still run).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 PREFIX [MATRIX_DIR]" >&2
  exit 2
fi
prefix=$(cd "$1" && pwd)
mtxdir=${2:-$root/../shared/matrices}
cuda=${CUDA_HOME:-/usr/local/cuda}
compat=$prefix/lib/spblk/cusparse/libcusparse.so.12.6.3
for f in "$prefix/include/spblk.h" "$prefix/lib/libspblk.so" "$compat"; do
  [ -e "$f" ] || { echo "missing $f (is $prefix a spblk install prefix?)" >&2; exit 2; }
done

nvso=$(find -L "$cuda/" -name 'libcusparse.so.12' 2>/dev/null | head -1 || true)
[ -n "$nvso" ] || { echo "NVIDIA's libcusparse.so.12 not found under $cuda (set CUDA_HOME)" >&2; exit 2; }
nvlib=$(dirname "$nvso")
nvinc=$cuda/include
hdr=$(find -L "$cuda/" -name cusparse.h -path '*include*' 2>/dev/null | head -1 || true)
[ -n "$hdr" ] && nvinc=$(dirname "$hdr")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# -lcusparse must resolve to NVIDIA's library: link through a directory that holds only it.
mkdir "$tmp/nvlink"
ln -s "$nvso" "$tmp/nvlink/libcusparse.so"
libdirs=(-L"$tmp/nvlink" -L"$nvlib")
[ -d "$cuda/lib64" ] && libdirs+=(-L"$cuda/lib64")

echo "=== spblk solver benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || echo unknown)"
rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo 'unknown commit')
if [ "$rev" != 'unknown commit' ] && ! git -C "$root" diff --quiet HEAD 2>/dev/null; then rev="$rev (modified tree)"; fi
echo "spblk: $rev, prefix $prefix"
echo "NVIDIA cuSPARSE: $(readlink -f "$nvso")"
echo "gcc: $(gcc -dumpfullversion 2>/dev/null || gcc -dumpversion)"

cc_spblk() { # program: links spblk and NVIDIA's cuSPARSE
  gcc -std=c99 -O2 "$here/$1.c" -I"$here" -I"$prefix/include" -I"$cuda/include" -I"$nvinc" -L"$prefix/lib" "${libdirs[@]}" \
    -lspblk -lcusparse -lcudart -lm -Wl,-rpath,"$prefix/lib" -o "$tmp/$1"
}
cc_spblk time_spsv
cc_spblk time_spsm
cc_spblk time_factor
gcc -std=c99 -O2 "$here/pcg_cusparse.c" -I"$here" -I"$cuda/include" -I"$nvinc" "${libdirs[@]}" \
  -lcusparse -lcublas -lcudart -lm -o "$tmp/pcg_cusparse"

mtx=()
if [ -d "$mtxdir" ]; then
  for f in "$mtxdir"/*.mtx; do
    [ -e "$f" ] || continue
    # The size line (first line that is not a comment or blank): rows == columns.
    if awk '/^%/ || NF == 0 { next } { exit !($1 == $2) }' "$f"; then mtx+=("$f"); fi
  done
  echo "matrices: ${#mtx[@]} square .mtx files from $mtxdir"
else
  echo "matrices: none ($mtxdir is not a directory): built-in cases only"
fi

quick=()
[ "${SPBLK_BENCH_QUICK:-0}" = 1 ] && quick=(quick)
failed=0
step() { # title, command...: runs it, notes a failure and goes on
  local title=$1 rc=0
  shift
  echo
  echo "--- $title"
  "$@" || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "(exit status $rc)"
    failed=1
  fi
}
nvenv=(env "LD_LIBRARY_PATH=$nvlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
only=" ${SPBLK_BENCH_ONLY:-spsv spsm factor pcg} "
want() { [[ "$only" == *" $1 "* ]]; }
want spsv && step "SpSV (time_spsv)" "${nvenv[@]}" "$tmp/time_spsv" ${quick[@]+"${quick[@]}"} ${mtx[@]+"${mtx[@]}"}
want spsm && step "SpSM (time_spsm)" "${nvenv[@]}" "$tmp/time_spsm" ${quick[@]+"${quick[@]}"}
want factor && step "IC0/ILU0 (time_factor)" "${nvenv[@]}" "$tmp/time_factor" ${quick[@]+"${quick[@]}"} ${mtx[@]+"${mtx[@]}"}

want pcg || exit "$failed"
# The same PCG program with NVIDIA's libcusparse.so.12, then with spblk's compatible one.
mkdir "$tmp/spblkcs"
ln -s "$compat" "$tmp/spblkcs/libcusparse.so.12"
spenv=(env "LD_LIBRARY_PATH=$tmp/spblkcs:$prefix/lib:$nvlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
echo
echo "--- PCG end to end (pcg_cusparse 128), one program, NVIDIA's libcusparse then spblk's"
echo "NVIDIA's: $("${nvenv[@]}" ldd "$tmp/pcg_cusparse" | awk '/libcusparse/ { print $3 }')"
echo "spblk's:  $("${spenv[@]}" ldd "$tmp/pcg_cusparse" | awk '/libcusparse/ { print $3 }')"
for r in 1 2; do
  step "NVIDIA ($r):" "${nvenv[@]}" "$tmp/pcg_cusparse" 128
  step "spblk ($r):" "${spenv[@]}" "$tmp/pcg_cusparse" 128
done
exit "$failed"

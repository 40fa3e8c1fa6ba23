#!/usr/bin/env bash
# Builds spblk (release), installs it into build/demo, builds examples-c/cg.c against it as
# an outside project would, and runs it: conjugate gradient on a 2-D Poisson problem, on the
# GPU when there is one, else on the CPU; it says which.   bash scripts/demo.sh [grid size]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
# shellcheck source=scripts/install-tools.sh
source scripts/install-tools.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "-DSPBLK_CUDA=${SPBLK_CUDA:-ON}" >/dev/null
cmake --build "$build" --parallel "${JOBS:-2}"
cmake --install "$build" --prefix "$build/demo" >/dev/null
cmake -S examples-c -B "$build/demo-examples" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$PWD/$build/demo" >/dev/null
cmake --build "$build/demo-examples" --target cg >/dev/null
echo
"$build/demo-examples/cg" "$@"

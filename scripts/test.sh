#!/usr/bin/env bash
# spblk's whole check, as CI runs it on a clean clone (`.ci/run`):
#   1. installs what is missing (scripts/install-tools.sh)
#   2. cargo fmt --check, cargo clippy -D warnings, cargo build, cargo test (header drift check
#      included)
#   3. the CMake configure, build and install
#   4. ctest: C tests against a CPU reference (host backend; GPU variants skip without a GPU),
#      the same under ASan+UBSan, the examples, and consumers (find_package, pkg-config)
# and ends with a summary. Every step runs even when an earlier one failed (except what needs
# the build); the exit status is non-zero when anything failed.
#
# Environment: SPBLK_CUDA=OFF (build without the CUDA backend), SPBLK_MATRIX_DIR (default
# ../shared/matrices), BUILD_DIR (default build), JOBS (default 2).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
jobs=${JOBS:-2}
cuda=${SPBLK_CUDA:-ON}
features=()
[ "$cuda" = OFF ] && features=(--no-default-features)

summary=()
failures=0
start_all=$(date +%s)
# step <name> <command...>: runs it, records passed/FAILED and the time.
step() {
    local name=$1 start status
    shift
    echo
    echo "==> $name"
    start=$(date +%s)
    if "$@"; then status=passed; else status=FAILED; failures=$((failures + 1)); fi
    summary+=("$(printf '%-34s %-7s %5ss' "$name" "$status" $(($(date +%s) - start)))")
    [ "$status" = passed ]
}

echo "==> tools"
# shellcheck source=scripts/install-tools.sh
source scripts/install-tools.sh || { echo "test.sh: the tools could not be installed"; exit 1; }

step "cargo fmt --check" cargo fmt --all -- --check --files-with-diff
step "cargo clippy" cargo clippy --all-targets ${features[@]+"${features[@]}"} -- -D warnings
# tests/exports.rs inspects target/debug/libspblk.so, which `cargo test` alone does not rebuild.
step "cargo build" cargo build ${features[@]+"${features[@]}"}
step "cargo test" cargo test ${features[@]+"${features[@]}"}

cmake_args=(-DCMAKE_BUILD_TYPE=Release "-DSPBLK_CUDA=$cuda")
[ -n "${SPBLK_MATRIX_DIR:-}" ] && cmake_args+=("-DSPBLK_MATRIX_DIR=$SPBLK_MATRIX_DIR")
ctest_log="$build/ctest.log"
if step "cmake configure" cmake -S . -B "$build" "${cmake_args[@]}" &&
    step "cmake build (cargo --release)" cmake --build "$build" --parallel "$jobs" &&
    step "cmake install" cmake --install "$build" --prefix "$build/install"; then
    step "ctest (all labels)" bash -c 'ctest --test-dir "$1" --output-on-failure -j "$2" 2>&1 | tee "$3"; exit "${PIPESTATUS[0]}"' \
        _ "$build" "$jobs" "$ctest_log"
else
    summary+=("$(printf '%-34s %-7s' "ctest" "not run (no build)")")
fi

echo
echo "================================ summary ================================"
printf '%s\n' "${summary[@]}"
if [ -f "$ctest_log" ]; then
    grep -E "tests passed|tests failed" "$ctest_log" | sed 's/^/ctest: /'
    sed -n '/The following tests did not run/,/^$/p;/The following tests FAILED/,/^$/p' "$ctest_log"
    # Why tests were skipped (their output is not shown above).
    grep -ho "SKIPPED: .*" "$build/Testing/Temporary/LastTest.log" 2>/dev/null | sort | uniq -c
fi
echo "total $(($(date +%s) - start_all))s; $failures step(s) failed"
[ "$failures" -eq 0 ]

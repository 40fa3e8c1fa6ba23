#!/usr/bin/env bash
# THE check for the GPU machine, run from the repository root there, with the binaries that
# scripts/gpu-prepare.sh built here:
#   run(command="bash scripts/gpu-check.sh", carry=[".devbuild"])
# Stages: (a) sanity, (b) the prebuilt test binaries on the CUDA backend (and C tests under
# build/ when they exist), (c) compute-sanitizer memcheck and racecheck on a quick subset,
# (d) the benchmark when built, (e) a summary table, printed last. Logs go to $OUT when set.
# Optional, off by default: VBR=1 adds `spblk-bench --vbr-quick` (the 1-SA experiment's target
# cases, about a minute) after (d), into $OUT/vbr/ (vbr.md, vbr.csv); VBR=full runs the whole
# --vbr grid with the Matrix Market corpus instead (several minutes: better as its own call, see
# docs/benchmarks.md).
# Exit status: 0 only when every stage that ran passed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dev=.devbuild
logs="${OUT:-/tmp/spblk-gpu-check}"
mkdir -p "$logs"
summary=()
failed=0
# Tests pick the CUDA backend for spblkCreate (the Rust CUDA tests choose it explicitly).
export SPBLK_BACKEND=cuda
export RUST_BACKTRACE=1

row() { summary+=("$(printf '%-22s %-6s %s' "$1" "$2" "$3")"); [[ "$2" == FAIL ]] && failed=1; return 0; }

# (a) sanity ---------------------------------------------------------------------------
# gpu-prepare.sh carries the executables and the shared library xz-compressed.
find "$dev" -name '*.xz' -not -name 'matrices.tar.xz' -not -name 'spblk-bench-before.xz' -exec xz -d -f {} +

echo "== (a) sanity"
gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -n1)
echo "GPU: $gpu"
nvcc_v=$(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo "nvcc not on PATH")
echo "nvcc: $nvcc_v"
san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
echo "compute-sanitizer: ${san:-missing}"
if [[ -d $dev/tests ]] && nvidia-smi -L >/dev/null 2>&1; then
  row "sanity" PASS "$gpu; nvcc $nvcc_v"
else
  row "sanity" FAIL "no GPU or no $dev/tests (run scripts/gpu-prepare.sh and carry .devbuild)"
fi

# (b) tests ----------------------------------------------------------------------------
echo "== (b) tests"
total_pass=0; total_fail=0; total_skip=0; bins=0; bad_bins=()
for t in "$dev"/tests/*; do
  [[ -x "$t" ]] || continue
  bins=$((bins + 1))
  name=$(basename "$t")
  echo "-- $name"
  timeout 300 "$t" 2>&1 | tee "$logs/test-$name.log"
  rc=${PIPESTATUS[0]}
  p=$(grep -o '[0-9]* passed' "$logs/test-$name.log" | awk '{s+=$1} END {print s+0}')
  f=$(grep -o '[0-9]* failed' "$logs/test-$name.log" | awk '{s+=$1} END {print s+0}')
  s=$(grep -c '^SKIPPED:' "$logs/test-$name.log")
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + s))
  [[ $rc -ne 0 ]] && bad_bins+=("$name(rc=$rc)")
done
cat "$logs"/test-*.log >"$logs/tests.log" 2>/dev/null; rm -f "$logs"/test-*.log
if [[ $bins -gt 0 && $total_fail -eq 0 && ${#bad_bins[@]} -eq 0 && $total_skip -eq 0 ]]; then
  row "rust tests" PASS "$bins binaries: $total_pass passed, 0 failed, 0 skipped"
else
  # A GPU is present here, so a SKIPPED test means the CUDA backend did not come up.
  row "rust tests" FAIL "$bins binaries: $total_pass passed, $total_fail failed, $total_skip skipped ${bad_bins[*]:-}"
fi

# C tests: the carried C suite (.devbuild/c, built by gpu-prepare.sh against the installed
# package) on the CUDA backend with cudaMalloc'd memory; a GPU skip counts as a failure here.
if compgen -G "$dev/c/test_*" >/dev/null; then
  echo "-- C tests (CUDA backend, device memory)"
  c_pass=0; c_fail=(); : >"$logs/ctests.log"
  mkdir -p /tmp/spblk-matrices && tar -C /tmp/spblk-matrices -xJf "$dev/matrices.tar.xz" 2>/dev/null
  for t in "$dev"/c/test_* "$dev"/c/cg; do
    [[ -x "$t" ]] || continue
    name=$(basename "$t")
    echo "--- $name" | tee -a "$logs/ctests.log"
    LD_LIBRARY_PATH="$dev/c/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" SPBLK_TEST_DEVICE=gpu \
      SPBLK_TEST_REQUIRE_GPU=1 SPBLK_MATRIX_DIR=/tmp/spblk-matrices timeout 300 "$t" >>"$logs/ctests.log" 2>&1
    rc=$?
    tail -n 3 "$logs/ctests.log"
    if [[ $rc -eq 0 ]]; then c_pass=$((c_pass + 1)); else c_fail+=("$name(rc=$rc)"); fi
  done
  if [[ ${#c_fail[@]} -eq 0 ]]; then row "c tests" PASS "$c_pass programs passed on the GPU"
  else row "c tests" FAIL "$c_pass passed; failed: ${c_fail[*]}"; fi
else
  row "c tests" SKIP "no $dev/c (gpu-prepare.sh with SPBLK_PREPARE_C=1)"
fi

# (c) compute-sanitizer -----------------------------------------------------------------
echo "== (c) compute-sanitizer"
cuda_bin=$(ls "$dev"/tests/test-cuda_backend 2>/dev/null)
if [[ -z "$san" || -z "$cuda_bin" ]]; then
  row "memcheck" SKIP "compute-sanitizer or test-cuda_backend missing"
  row "racecheck" SKIP "compute-sanitizer or test-cuda_backend missing"
else
  # A quarter of the cases (SPBLK_TEST_QUICK), one test thread: every kernel and path runs.
  sanitize() { # tool, filter..., log
    local tool=$1 log=$2; shift 2
    SPBLK_TEST_QUICK=1 timeout 400 "$san" --tool "$tool" --error-exitcode 99 --print-limit 20 \
      "$cuda_bin" --test-threads=1 "$@" >"$logs/$log" 2>&1
    local rc=$?
    local errs
    errs=$(grep -Eo 'ERROR SUMMARY: [0-9]+' "$logs/$log" | awk '{s+=$3} END {print s+0}')
    local tests
    tests=$(grep -o '[0-9]* passed; [0-9]* failed' "$logs/$log" | tail -n1)
    tail -n 25 "$logs/$log"
    if [[ $rc -eq 0 && $errs -eq 0 ]]; then row "$tool" PASS "$errs errors; $tests"
    else row "$tool" FAIL "rc=$rc, $errs errors; $tests (see $log)"; fi
  }
  sanitize memcheck memcheck.log
  # Shared-memory kernels: scans, radix sort (csr2csc, conversions), SpGEMM hash tables, ASpT's staged rows.
  # (sddmm_aspt, not aspt: the determinism tests' hundreds of calls take minutes under racecheck.)
  sanitize racecheck racecheck.log csr2csc spgemm spmv_long sddmm_aspt
fi

# (d) benchmark -------------------------------------------------------------------------
echo "== (d) benchmark"
if [[ -x $dev/spblk-bench ]]; then
  # One machine-readable file (the device tool returns at most 8 files from $OUT).
  timeout 240 "$dev/spblk-bench" --quick --out /tmp/spblk-bench 2>&1 | tee "$logs/bench.log"
  rc=${PIPESTATUS[0]}
  cp /tmp/spblk-bench/results.json "$logs/bench.json" 2>/dev/null
  # 0 ok; 1 mismatch, 2 no GPU (this is a GPU machine), 3 a call failed, 124 timeout: FAIL.
  if [[ $rc -eq 0 ]]; then row "bench" PASS "see bench.log, bench.json"; else row "bench" FAIL "rc=$rc, see bench.log"; fi
  # Host time per SpMV call against cuSPARSE's, small to large matrices (issue 8).
  timeout 240 "$dev/spblk-bench" --overhead --out /tmp/spblk-overhead 2>&1 | tail -n 20
  rc=${PIPESTATUS[0]}
  cp /tmp/spblk-overhead/overhead.txt "$logs/overhead.txt" 2>/dev/null
  if [[ $rc -eq 0 ]]; then row "overhead" PASS "see overhead.txt"; else row "overhead" FAIL "rc=$rc"; fi
else
  row "bench" SKIP "no $dev/spblk-bench"
fi

# (d') VBR / 1-SA experiment, only with VBR=1 (--vbr-quick) or VBR=full ---------------------
if [[ "${VBR:-0}" != 0 ]]; then
  echo "== (d') spblk-bench --vbr (VBR=$VBR)"
  if [[ -x $dev/spblk-bench ]]; then
    vbr_args=(--vbr-quick)
    vbr_limit=300
    if [[ "$VBR" == full ]]; then
      vbr_args=(--vbr)
      vbr_limit=540
      mkdir -p /tmp/spblk-matrices && tar -C /tmp/spblk-matrices -xJf "$dev/matrices.tar.xz" 2>/dev/null
      compgen -G "/tmp/spblk-matrices/*.mtx" >/dev/null && vbr_args+=(--mtx /tmp/spblk-matrices)
    fi
    mkdir -p "$logs/vbr"
    # vbr.csv grows row by row (it survives a timeout); the table is printed last, so it is in
    # the call's output tail too.
    timeout "$vbr_limit" "$dev/spblk-bench" "${vbr_args[@]}" --out "$logs/vbr" 2>&1
    rc=$?
    # 0 ok; 1 an accuracy threshold exceeded; 3 a call failed; 124 timeout. spblk's VBR answering
    # NOT_SUPPORTED (no CUDA kernel yet) is "n/a", not a failure.
    if [[ $rc -eq 0 ]]; then row "vbr" PASS "see vbr/vbr.md, vbr/vbr.csv"; else row "vbr" FAIL "rc=$rc, see vbr/vbr.md"; fi
  else
    row "vbr" SKIP "no $dev/spblk-bench"
  fi
fi

# (e) summary, last ---------------------------------------------------------------------
{
  echo
  grep -h '^PERF' "$logs/tests.log" 2>/dev/null
  echo "== summary (kernel build on 2 cores: $(cat $dev/kernel-build-time.txt 2>/dev/null || echo '?') s)"
  printf '%-22s %-6s %s\n' stage result counts
  printf '%s\n' "${summary[@]}"
} | tee "$logs/summary.txt"
exit $failed

#!/usr/bin/env bash
# The cuSPARSE compatibility checks that need NVIDIA's cuSPARSE (issue 13), on the GPU machine:
#   run(command="bash scripts/gpu-compat-check.sh .devcompat/prefix", carry=[".devcompat"])
# with an installed spblk prefix built here (cmake --install; the CUDA backend compiled in).
#   1. NVIDIA's libcusparse.so.12 exports exactly the committed list;
#   2. compat/cusparse/api.h agrees with NVIDIA's cusparse.h: every prototype and enumerator,
#      as static_asserts compiled against the real header (scripts/gen-cusparse-compat.py);
#   3. a cuSPARSE program compiled and linked against NVIDIA's header and library gives the
#      same results on spblk's libcusparse.so.12 (LD_LIBRARY_PATH), and loads spblk there;
#   4. the same program built against spblk's header and library (the CUDA toolkit's headers on
#      the include path) gives the same results too;
#   5. cuSOLVER under the swap (docs/drop-in.md, T7): a csrlsvchol program linked against
#      NVIDIA's libraries prints the same solution when spblk's libcusparse.so.12 serves it.
# Logs in $OUT/compat when set. Exit status 0 only when all pass.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
prefix=$(cd "$1" && pwd)
out="${OUT:-/tmp}/compat"
mkdir -p "$out"
cuda=$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")
[ -f "$cuda/include/cusparse.h" ] || cuda=/usr/local/cuda
nvlib=$(dirname "$(find -L "$cuda/" -name 'libcusparse.so.12' 2>/dev/null | head -1)")
failed=0
result() { printf '%-44s %s\n' "$1" "$2" | tee -a "$out/summary.txt"; [ "$2" = PASS ] || failed=1; }
echo "CUDA: $cuda; NVIDIA's libcusparse.so.12 in $nvlib; spblk prefix $prefix" | tee "$out/summary.txt"
find "$prefix" -name '*.xz' -exec xz -d -f {} +

# 1
objdump -T "$nvlib/libcusparse.so.12" | awk '$4 == ".text" {print $NF}' | sort > "$out/nvidia-exports.txt"
grep -v '^#' docs/cusparse/libcusparse.so.12-exports.txt | sed '/^$/d' | sort > "$out/committed-exports.txt"
if diff "$out/committed-exports.txt" "$out/nvidia-exports.txt" > "$out/exports.diff"; then r=PASS; else r=FAIL; fi
result "1. export list equals NVIDIA's ($(wc -l < "$out/nvidia-exports.txt"))" $r
sh compat/cusparse/check-library.sh "$prefix/lib/spblk/cusparse/libcusparse.so.12" \
    docs/cusparse/libcusparse.so.12-exports.txt > "$out/check-library.txt" 2>&1 && r=PASS || r=FAIL
result "1. spblk's library: exports, node, SONAME" $r

# 2
python3 scripts/gen-cusparse-compat.py --nvidia-check "$out/nvidia-check.cpp"
if g++ -std=c++11 -fsyntax-only -Wno-deprecated-declarations -I"$cuda/include" "$out/nvidia-check.cpp" \
    > "$out/nvidia-check.log" 2>&1; then r=PASS; else r=FAIL; fi
result "2. prototypes and enums match NVIDIA's header ($(grep -c static_assert "$out/nvidia-check.cpp"))" $r

# 3
gcc -std=c99 -O1 -Wall compat/cusparse/tests/gpu_program.c -I"$cuda/include" -L"$nvlib" -L"$cuda/lib64" \
    -lcusparse -lcudart -ldl -lm -o "$out/program-nvidia" > "$out/build-nvidia.log" 2>&1
objdump -p "$out/program-nvidia" | grep -A3 'required from libcusparse' > "$out/program-needs.txt"
grep -q 'libcusparse.so.12' "$out/program-needs.txt" && r=PASS || r=FAIL
result "3. program records version libcusparse.so.12" $r
# No RUNPATH in the program: the loader's search path alone decides which library serves it.
LD_LIBRARY_PATH="$nvlib:$cuda/lib64" "$out/program-nvidia" > "$out/run-nvidia.txt" 2>&1
LD_LIBRARY_PATH="$prefix/lib/spblk/cusparse:$nvlib:$cuda/lib64" "$out/program-nvidia" > "$out/run-spblk.txt" \
    2>"$out/run-spblk.err"
grep -q '^library: NVIDIA' "$out/run-nvidia.txt" && grep -q '^library: spblk' "$out/run-spblk.txt" && r=PASS || r=FAIL
result "3. NVIDIA's binary loads spblk via LD_LIBRARY_PATH" $r
python3 compat/cusparse/tests/compare-runs.py "$out/run-nvidia.txt" "$out/run-spblk.txt" > "$out/compare.txt" 2>&1 \
    && r=PASS || r=FAIL
result "3. same results ($(tail -1 "$out/compare.txt"))" $r

# 4
gcc -std=c99 -O1 -Wall -Wextra compat/cusparse/tests/gpu_program.c -I"$prefix/include/spblk/cusparse" \
    -I"$cuda/include" -L"$prefix/lib/spblk/cusparse" -L"$cuda/lib64" -lcusparse -lcudart -ldl -lm \
    -Wl,-rpath,"$prefix/lib/spblk/cusparse" -o "$out/program-spblk" > "$out/build-spblk.log" 2>&1
# LD_LIBRARY_PATH is searched before the program's RUNPATH: with only CUDA's lib64 there, the
# loader would pick NVIDIA's libcusparse.so.12 from it (found so in the first run of this check).
LD_LIBRARY_PATH="$prefix/lib/spblk/cusparse:$cuda/lib64" "$out/program-spblk" > "$out/run-built-on-spblk.txt" 2>&1
python3 compat/cusparse/tests/compare-runs.py "$out/run-nvidia.txt" "$out/run-built-on-spblk.txt" \
    > "$out/compare-built.txt" 2>&1 && grep -q '^library: spblk' "$out/run-built-on-spblk.txt" && r=PASS || r=FAIL
result "4. built on spblk's header: same results" $r

# 5
gcc -std=c99 -O1 -Wall -Wno-deprecated-declarations compat/cusparse/tests/cusolver_program.c -I"$cuda/include" \
    -L"$nvlib" -L"$cuda/lib64" -lcusolver -lcusparse -lcudart -ldl -lm -o "$out/cusolver-program" \
    > "$out/build-cusolver.log" 2>&1
LD_LIBRARY_PATH="$nvlib:$cuda/lib64" "$out/cusolver-program" > "$out/cusolver-nvidia.txt" 2>&1
LD_LIBRARY_PATH="$prefix/lib/spblk/cusparse:$nvlib:$cuda/lib64" "$out/cusolver-program" > "$out/cusolver-spblk.txt" \
    2>"$out/cusolver-spblk.err"
solution() { grep '^cusolverSpDcsrlsvchol status 0 ' "$1"; }
grep -q '^library: spblk' "$out/cusolver-spblk.txt" && [ -n "$(solution "$out/cusolver-nvidia.txt")" ] \
    && [ "$(solution "$out/cusolver-nvidia.txt")" = "$(solution "$out/cusolver-spblk.txt")" ] && r=PASS || r=FAIL
result "5. cuSOLVER csrlsvchol on spblk: same solution" $r
exit $failed

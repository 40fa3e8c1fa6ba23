#!/usr/bin/env bash
# Builds everything the GPU machine runs into .devbuild/ (git-ignored), here, where the Rust
# toolchain is: release test binaries (stripped), the benchmark if the crate has one, and a
# copy of scripts/gpu-check.sh. Then, on the device:
#   run(command="bash scripts/gpu-check.sh", carry=[".devbuild"])
# (or `bash .devbuild/gpu-check.sh` from a checkout that lacks the script).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="$root/.devbuild"

if [[ -z "${NVCC:-}" ]] && ! command -v nvcc >/dev/null && [[ -z "${CUDA_PATH:-}${CUDA_HOME:-}" ]]; then
  export NVCC="$(bash scripts/install-nvcc.sh | tail -n1)"
fi

rm -rf "$out/tests"
mkdir -p "$out/tests"
start=$(date +%s)
# The JSON lines name each test executable; profile.release keeps debug=1 for symbols in
# sanitizer backtraces, and stripping below keeps the carried size down.
cargo test --release --no-run --message-format=json 2>"$out/build.log" \
  | python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m.get("profile", {}).get("test"):
        print(m["target"]["kind"][0], m["target"]["name"], m["executable"])
' >"$out/tests.txt" || { cat "$out/build.log" >&2; exit 1; }
while read -r kind name exe; do
  # Only what a GPU changes travels (the carry limit is 64 MiB and every binary embeds the
  # kernels): the CUDA tests and backend selection. Host-only suites run in CI.
  case "$kind:$name" in
    # backend_choice: spblkCreate must pick CUDA on the GPU machine. The library's unit
    # tests are host code (1-SA, decoding) and stay in CI.
    test:cuda_* | test:backend_choice) ;;
    *) continue ;;
  esac
  dest="$out/tests/${kind}-${name}"
  cp "$exe" "$dest"
  strip --strip-debug "$dest" 2>/dev/null || true
done <"$out/tests.txt"
# The kernels' build time, as build.rs measured it.
latest=$(ls -t target/release/build/spblk-*/out/kernel-build-time.txt 2>/dev/null | head -n1)
[[ -n "$latest" ]] && cp "$latest" "$out/kernel-build-time.txt"

if [[ -f bench/Cargo.toml ]]; then
  # spblk-bench is its own crate (not a workspace member), with its own target dir and lock
  # file; spblk's kernels are compiled a second time there.
  (cd bench && cargo build --release) 2>>"$out/build.log"
  cp bench/target/release/spblk-bench "$out/spblk-bench"
  strip --strip-debug "$out/spblk-bench" 2>/dev/null || true
fi
# The C suite and the CG example, built against the installed package as in CI
# (scripts/test.sh), with the shared library they load and the Matrix Market corpus. On the
# device they run with SPBLK_BACKEND=cuda and cudaMalloc'd memory.
rm -rf "$out/c" "$out/matrices" "$out/matrices.tar.xz"
if [[ "${SPBLK_PREPARE_C:-1}" == 1 ]]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >>"$out/build.log" 2>&1 \
    && cmake --build build --parallel 2 >>"$out/build.log" 2>&1 \
    && cmake --install build --prefix build/install >>"$out/build.log" 2>&1 \
    && ctest --test-dir build -R '^(c\.host\.api|examples\.build)$' >>"$out/build.log" 2>&1 \
    || { echo "C build failed; see $out/build.log" >&2; exit 1; }
  mkdir -p "$out/c/lib"
  find build -type f -name 'test_*' -perm -u+x -path '*c-tests*' -not -path '*asan*' -exec cp {} "$out/c/" \;
  find build/examples -maxdepth 1 -type f -name cg -perm -u+x | head -n1 | xargs -r -I{} cp {} "$out/c/cg"
  cp -P build/install/lib/libspblk.so* "$out/c/lib/"
  strip --strip-debug "$out"/c/test_* "$out"/c/cg "$out"/c/lib/libspblk.so.*.* 2>/dev/null || true
  matrices="${SPBLK_MATRIX_DIR:-$root/../shared/matrices}"
  # Compressed: the text files are 17 MB, the carry limit 64 MiB. gpu-check.sh unpacks them.
  [[ -d "$matrices" ]] && tar -C "$matrices" -cJf "$out/matrices.tar.xz" $(cd "$matrices" && ls *.mtx)
fi
cp scripts/gpu-check.sh "$out/gpu-check.sh"
# Every executable embeds the ~16 MB kernel fatbin, which xz shrinks ~10x: compressed, the
# carried folder stays far below the 64 MiB limit. gpu-check.sh unpacks them first.
# (Only the paths that exist: with SPBLK_PREPARE_C=0 there is no c/, and find's failure on a
# missing path would end the script under pipefail.)
find $(ls -d "$out/tests" "$out/c" "$out/spblk-bench" 2>/dev/null) -type f -perm -u+x | xargs -r xz -T2 -6 -f
if [[ -d "$out/c/lib" ]]; then
  find "$out/c/lib" -type f -name 'libspblk.so.*.*' ! -name '*.xz' | xargs -r xz -T2 -6 -f
fi
echo "built in $(( $(date +%s) - start )) s:"
ls -la "$out" "$out/tests"
du -sh "$out"

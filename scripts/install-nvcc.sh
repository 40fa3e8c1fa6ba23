#!/usr/bin/env bash
# Installs CUDA's nvcc 13.0 from PyPI into the project (.tools/cuda, git-ignored), so the
# kernels build on machines without a CUDA toolkit. Idempotent: a second run only checks the
# install and prints the nvcc path (the last line of output is that path).
#
# Needs python3 with pip and a host C++ compiler (g++) for nvcc. Usage:
#   scripts/install-nvcc.sh            # install if missing, print the nvcc path
#   NVCC=$(scripts/install-nvcc.sh | tail -n1) cargo build
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="$root/.tools/cuda"
# nvcc's wheel needs nvvm (cicc, libdevice), the runtime headers (cuda_runtime.h,
# cuda_fp16.h, cuda_bf16.h), the crt headers, and CCCL (<nv/target>, which cuda_fp16.h
# includes), all from the same 13.0 release.
packages=(
  "nvidia-cuda-nvcc==13.0.88"
  "nvidia-nvvm==13.0.88"
  "nvidia-cuda-crt==13.0.88"
  "nvidia-cuda-runtime==13.0.96"
  "nvidia-cuda-cccl==13.0.85"
)
stamp="$target/.installed"
want="$(printf '%s\n' "${packages[@]}")"
nvcc="$target/nvidia/cu13/bin/nvcc"

if [[ -x "$nvcc" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "$nvcc"
  exit 0
fi

command -v python3 >/dev/null || { echo "install-nvcc: python3 is required" >&2; exit 1; }
python3 -m pip --version >/dev/null 2>&1 || {
  echo "install-nvcc: pip is required (Debian: apt-get install python3-pip)" >&2
  exit 1
}
command -v g++ >/dev/null || echo "install-nvcc: warning: no g++ on PATH; nvcc needs a host compiler" >&2

rm -rf "$target"
mkdir -p "$target"
echo "install-nvcc: installing ${packages[*]} into $target" >&2
# --no-deps: the list above is the whole closure; pinning it keeps installs reproducible.
# Everything goes under --target, never into the system's packages; the environment variable
# (ignored by pips that predate it) keeps Debian's externally-managed check out of the way.
PIP_BREAK_SYSTEM_PACKAGES=1 PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps --no-compile \
  --target "$target" "${packages[@]}" >&2
[[ -x "$nvcc" ]] || { echo "install-nvcc: $nvcc missing after install" >&2; exit 1; }
"$nvcc" --version >&2
printf '%s\n' "${packages[@]}" >"$stamp"
echo "$nvcc"

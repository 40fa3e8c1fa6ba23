# Sourced by scripts/test.sh and scripts/demo.sh (bash, also under `set -euo pipefail`): makes
# sure the tools the CMake build and its tests need are there, installing what is missing,
# idempotently.
#   cmake >= 3.20   apt-get (as root), else pip into .tools/pip
#   gfortran        apt-get (as root); without it the Fortran example is skipped, visibly
#   pkg-config      apt-get (as root); without it the pkg-config consumer test is skipped
#   MPI             apt-get libopenmpi-dev openmpi-bin (as root); without it the distributed
#                   example's tests are skipped
#   nvcc            scripts/install-nvcc.sh (PyPI, into .tools/) when the CUDA backend is on
#                   (SPBLK_CUDA != OFF) and NVCC is unset; NVCC is then exported for cargo,
#                   whose build script compiles the kernels

spblk_tools=$PWD/.tools
if [ -x "$spblk_tools/pip/cmake/data/bin/cmake" ]; then
    export PATH="$spblk_tools/pip/cmake/data/bin:$PATH"
fi

spblk_cmake_ok() {
    command -v cmake >/dev/null 2>&1 || return 1
    local version
    version=$(cmake --version | head -n 1 | sed 's/[^0-9]*\([0-9]*\.[0-9]*\).*/\1/')
    [ "${version%%.*}" -gt 3 ] || { [ "${version%%.*}" -eq 3 ] && [ "${version#*.}" -ge 20 ]; }
}
spblk_have() { command -v "$1" >/dev/null 2>&1; }

spblk_missing=()
spblk_cmake_ok || spblk_missing+=(cmake)
spblk_have gfortran || spblk_have f95 || spblk_missing+=(gfortran)
spblk_have pkg-config || spblk_have pkgconf || spblk_missing+=(pkg-config)
spblk_have mpicc && spblk_have mpiexec || spblk_missing+=(libopenmpi-dev openmpi-bin)
if [ ${#spblk_missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ] && spblk_have apt-get; then
        echo "install-tools: apt-get install ${spblk_missing[*]}"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            "${spblk_missing[@]}" >/dev/null; } || echo "install-tools: apt-get failed; trying other ways"
    else
        echo "install-tools: missing ${spblk_missing[*]} (not root, or no apt-get)"
    fi
fi
if ! spblk_cmake_ok; then
    echo "install-tools: pip install cmake into .tools/pip"
    python3 -m pip install -q --target "$spblk_tools/pip" "cmake>=3.20" &&
        export PATH="$spblk_tools/pip/cmake/data/bin:$PATH"
fi
spblk_cmake_ok || { echo "install-tools: ERROR: no cmake >= 3.20 could be installed"; return 1; }
if ! spblk_have gfortran && ! spblk_have f95; then
    echo "install-tools: NOTE: no Fortran compiler: the Fortran example will be SKIPPED"
fi

# The CUDA backend's kernels need nvcc: scripts/install-nvcc.sh installs it into .tools/ (once)
# and prints its path last.
if [ "${SPBLK_CUDA:-ON}" != OFF ] && [ -z "${NVCC:-}" ] && [ -f scripts/install-nvcc.sh ]; then
    if spblk_nvcc=$(bash scripts/install-nvcc.sh | tail -n 1) && [ -x "$spblk_nvcc" ]; then
        export NVCC="$spblk_nvcc"
    else
        echo "install-tools: scripts/install-nvcc.sh failed; the CUDA backend cannot be built" \
             "(SPBLK_CUDA=OFF builds without it)"
    fi
fi
echo "install-tools: $(cmake --version | head -n 1); Fortran: $(command -v gfortran || command -v f95 || echo none);" \
     "pkg-config: $(command -v pkg-config || command -v pkgconf || echo none);" \
     "MPI: $(command -v mpiexec || echo none); NVCC: ${NVCC:-unset}"

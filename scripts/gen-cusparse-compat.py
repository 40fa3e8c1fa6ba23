#!/usr/bin/env python3
"""Generates spblk's cuSPARSE compatibility layer (issue 13, docs/drop-in.md):

  include/spblk/cusparse/cusparse.h   cuSPARSE's names, types and values (from compat/cusparse/api.h)
  compat/cusparse/shim.c              libcusparse.so.12: one function per exported name
  compat/cusparse/libcusparse.map     its linker version script (node libcusparse.so.12)
  docs/cusparse-coverage.md           every exported function and what it does on spblk

    python3 scripts/gen-cusparse-compat.py          # rewrite them
    python3 scripts/gen-cusparse-compat.py --check  # fail if any is out of date (a CTest)
    python3 scripts/gen-cusparse-compat.py --nvidia-check FILE.cpp
        # writes a C++ file that must compile against NVIDIA's own cusparse.h: every prototype
        # and every enumerator of compat/cusparse/api.h as static_asserts (run on the GPU
        # machine by scripts/gpu-compat-check.sh)

A cuSPARSE function whose spblk twin (cusparse -> spblk) is in include/spblk.h is forwarded to
it: the generator checks that the two prototypes take the same parameters (cuSPARSE's types
mapped to spblk's, int = int32_t, enums = uint32_t) and fails on any difference, so the shim
only casts. The version queries answer the cuSPARSE version the header declares. Every other
function is a stub that returns CUSPARSE_STATUS_NOT_SUPPORTED through
spblkCompatNotSupported (message, SPBLK_LOG, one stderr line per function).
"""
import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
API = ROOT / "compat" / "cusparse" / "api.h"
EXPORTS = ROOT / "docs" / "cusparse" / "libcusparse.so.12-exports.txt"
SPBLK_H = ROOT / "include" / "spblk.h"
HEADER = ROOT / "include" / "spblk" / "cusparse" / "cusparse.h"
SHIM = ROOT / "compat" / "cusparse" / "shim.c"
MAP = ROOT / "compat" / "cusparse" / "libcusparse.map"
COVERAGE = ROOT / "docs" / "cusparse-coverage.md"

# The cuSPARSE version the header declares (CUDA 13.0's cuSPARSE, whose exports are listed).
VERSION = (12, 6, 3, 3)
# Functions with their own body in the shim (not forwarded, not stubs).
OWN = {
    "cusparseGetErrorName": """    /* cuSPARSE's constant names (spblk's own are spelled SPBLK_STATUS_*). */
    static const char* const names[] = {%s};
    if ((unsigned)status < sizeof names / sizeof names[0]) return names[status];
    return spblkGetErrorName((spblkStatus_t)status);""",
    "cusparseGetVersion": """    /* Checks the handle through spblk, then answers the cuSPARSE version of the header. */
    spblkStatus_t status = spblkGetVersion((spblkHandle_t)handle, version);
    if (status == SPBLK_STATUS_SUCCESS) *version = CUSPARSE_VERSION;
    return (cusparseStatus_t)status;""",
    "cusparseGetProperty": """    /* Checks the arguments through spblk, then answers the header's cuSPARSE version. */
    spblkStatus_t status = spblkGetProperty((spblkLibraryPropertyType_t)type_, value);
    if (status == SPBLK_STATUS_SUCCESS)
        *value = type_ == MAJOR_VERSION ? CUSPARSE_VER_MAJOR : type_ == MINOR_VERSION ? CUSPARSE_VER_MINOR : CUSPARSE_VER_PATCH;
    return (cusparseStatus_t)status;""",
}
# Which issue owns a function that is still a stub (the rest: issue 13).
OWNERS = [(r"^cusparseSpS[VM]_|^cusparse[SDCZ]csr(ic|ilu)02|^cusparseX?csr(ic|ilu)02|^cusparse(Create|Destroy)Csr(ic|ilu)02Info", 14)]
CUDA_SECTION = "/* ---- CUDA toolkit enums (library_types.h) ---- */"


def load_spblk_parser():
    spec = importlib.util.spec_from_file_location("fortran", ROOT / "scripts" / "gen-fortran-module.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.parse


def split_params(text):
    if text.strip() == "void":
        return []
    out = []
    for p in text.split(","):
        m = re.match(r"\s*(.*?)\s*(\w+)\s*$", p)
        out.append((" ".join(m.group(1).split()).replace(" *", "*"), m.group(2)))
    return out


def read_api():
    text = API.read_text()
    cusparse_part, cuda_part = text.split(CUDA_SECTION)
    decls, functions = [], {}
    for line in cusparse_part.splitlines():
        m = re.match(r"^(.+?)\s*\b(cusparse\w+)\((.*)\);$", line)
        if m:
            functions[m.group(2)] = (m.group(1), split_params(m.group(3)))
        elif line and not line.startswith(("/*", " *")):
            decls.append(line)
    cuda_enums = [l for l in cuda_part.splitlines() if l.startswith("typedef")]
    return decls, functions, cuda_enums


SPBLK_NAMES = {"cudaDataType": "spblkDataType_t", "libraryPropertyType": "spblkLibraryPropertyType_t",
               "cudaStream_t": "spblkStream_t", "int": "int32_t",
               "csric02Info_t": "spblkCsric02Info_t", "csrilu02Info_t": "spblkCsrilu02Info_t"}


def spblk_type(cusparse_type):
    """The spblk parameter type that corresponds to a cuSPARSE one."""
    const = cusparse_type.startswith("const ")
    base = cusparse_type[6:] if const else cusparse_type
    stars = len(base) - len(base.rstrip("*"))
    base = base.rstrip("*")
    base = SPBLK_NAMES.get(base, re.sub(r"^cusparse", "spblk", base))
    return ("const " if const else "") + base + "*" * stars


def normalize(t):
    t = t.replace("const int*", "const int32_t*")
    return re.sub(r"^int(\**)$", r"int32_t\1", t)


def plan(functions, spblk_functions):
    """name -> ("own" | "forward" | "stub", spblk parameter types or None)."""
    out = {}
    for name, (ret, params) in functions.items():
        twin = "spblk" + name[len("cusparse"):]
        if name in OWN:
            out[name] = ("own", None)
        elif twin in spblk_functions:
            sret, sparams = spblk_functions[twin]
            want = [normalize(spblk_type(t)) for t, _ in params]
            have = [normalize(t) for t, _ in sparams]
            if want != have:
                sys.exit("gen-cusparse-compat.py: %s and %s differ:\n  cuSPARSE %s\n  spblk    %s"
                         % (name, twin, want, have))
            out[name] = ("forward", [t for t, _ in sparams])
        else:
            out[name] = ("stub", None)
    return out


def owner(name):
    for pattern, issue in OWNERS:
        if re.search(pattern, name):
            return issue
    return 12 if name.startswith("cusparseSpGEMM") else 13


def prototype(name, ret, params):
    return "%s %s(%s)" % (ret, name, ", ".join("%s %s" % p for p in params) or "void")


def header(decls, functions, cuda_enums):
    major, minor, patch, build = VERSION
    lines = ["""/*
 * cuSPARSE-compatible header of spblk (issue 13; docs/drop-in.md). Generated by
 * scripts/gen-cusparse-compat.py from compat/cusparse/api.h; do not edit.
 *
 * cuSPARSE's own names, types and enum values, as CUDA 13.0's cusparse.h declares them
 * (cuSPARSE %d.%d.%d), so that a cuSPARSE program builds against spblk with only its include
 * and link paths changed:
 *     cc -I<prefix>/include/spblk/cusparse app.c -L<prefix>/lib/spblk/cusparse -lcusparse
 * (CMake: spblk::cusparse; pkg-config: spblk-cusparse). Functions spblk implements run on
 * spblk's core (SPBLK_BACKEND=host|cuda is honoured by cusparseCreate); the others return
 * CUSPARSE_STATUS_NOT_SUPPORTED with a message: docs/cusparse-coverage.md lists which.
 *
 * Not declared: the 37 `_bufferSizeExt` variants that NVIDIA's header declares but its
 * library does not export (no program can link a call to them), and NVIDIA's deprecation
 * attributes. With a CUDA toolkit on the include path the CUDA types come from its headers,
 * as with NVIDIA's; otherwise (or with SPBLK_CUSPARSE_NO_CUDA_HEADERS defined) this header
 * declares the few it needs itself.
 */""" % (major, minor, patch),
             "#ifndef CUSPARSE_H_", "#define CUSPARSE_H_", "",
             "#include <stddef.h>", "#include <stdint.h>", "#include <stdio.h>", "",
             "#if !defined(SPBLK_CUSPARSE_NO_CUDA_HEADERS) && defined(__has_include)",
             "#if __has_include(<cuda_runtime_api.h>) && __has_include(<library_types.h>) && __has_include(<cuComplex.h>)",
             "#define SPBLK_CUSPARSE_CUDA_HEADERS 1", "#endif", "#endif", "",
             "#ifdef SPBLK_CUSPARSE_CUDA_HEADERS",
             "#include <cuComplex.h>", "#include <cuda_runtime_api.h>", "#include <library_types.h>",
             "#if defined(__cplusplus)", "#include <cuda_fp16.h>", "#endif",
             "#else /* the CUDA types cuSPARSE's declarations use, with CUDA's layout and values */",
             "struct CUstream_st;", "typedef struct CUstream_st* cudaStream_t;",
             "typedef struct __attribute__((aligned(8))) { float x, y; } cuFloatComplex;",
             "typedef struct __attribute__((aligned(16))) { double x, y; } cuDoubleComplex;",
             "typedef cuFloatComplex cuComplex;"]
    lines += cuda_enums
    lines += ["#if defined(__cplusplus)", "struct __half;", "#endif", "#endif", "",
              "#define CUSPARSE_VER_MAJOR %d" % major, "#define CUSPARSE_VER_MINOR %d" % minor,
              "#define CUSPARSE_VER_PATCH %d" % patch, "#define CUSPARSE_VER_BUILD %d" % build,
              "#define CUSPARSE_VERSION (CUSPARSE_VER_MAJOR * 1000 + CUSPARSE_VER_MINOR * 100 + CUSPARSE_VER_PATCH)",
              "#ifndef CUSPARSEAPI", "#define CUSPARSEAPI", "#endif", "",
              "#if defined(__cplusplus)", 'extern "C" {', "#endif", ""]
    lines += [d for d in decls if d.strip()]
    lines.append("")
    half = []
    for name, (ret, params) in functions.items():
        (half if "__half" in "".join(t for t, _ in params) else lines).append(prototype(name, ret, params) + ";")
    lines += ["", "#if defined(__cplusplus) /* as in NVIDIA's header: __half exists for C++ only */"] + half
    lines += ["#endif", "", "#if defined(__cplusplus)", "}", "#endif", "#endif /* CUSPARSE_H_ */"]
    return "\n".join(lines) + "\n"


def shim(functions, plans, status_names):
    lines = ["""/*
 * libcusparse.so.12 of spblk (issue 13; docs/drop-in.md): one function for every name NVIDIA's
 * libcusparse.so.12 exports. Generated by scripts/gen-cusparse-compat.py; do not edit.
 * Forwarders only cast to spblk's types (the generator checked that the parameters agree);
 * stubs report CUSPARSE_STATUS_NOT_SUPPORTED through spblkCompatNotSupported.
 */
#include "cusparse.h"
#include "spblk.h"

/* Stubs take cuSPARSE's parameters and use none of them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
/* The half-precision prune stubs only pass pointers; the header declares them for C++. */
typedef struct __half __half;
"""]
    for name, (ret, params) in functions.items():
        kind, stypes = plans[name]
        lines.append(prototype(name, ret, params) + " {")
        if kind == "own" and name == "cusparseGetErrorName":
            lines.append(OWN[name] % ", ".join('"%s"' % n for n in status_names))
        elif kind == "own":
            lines.append(OWN[name])
        elif kind == "forward":
            call = "spblk%s(%s)" % (name[len("cusparse"):],
                                     ", ".join("(%s)%s" % (t, n) for t, (_, n) in zip(stypes, params)))
            lines.append("    return (%s)%s;" % (ret, call))
        elif ret == "cusparseStatus_t":
            lines.append('    return (cusparseStatus_t)spblkCompatNotSupported("%s");' % name)
        else:  # the legacy getters return their value and cannot report a failure
            lines.append('    (void)spblkCompatNotSupported("%s");' % name)
            lines.append("    return (%s)0;" % ret)
        lines.append("}")
    return "\n".join(lines) + "\n"


def status_names(decls):
    """CUSPARSE_STATUS_* names by value 0, 1, ... (the values are contiguous)."""
    line = next(d for d in decls if d.endswith("} cusparseStatus_t;"))
    pairs = sorted((int(v), n) for n, v in re.findall(r"(CUSPARSE_STATUS_\w+) = (\d+)", line))
    assert [v for v, _ in pairs] == list(range(len(pairs))), "cusparseStatus_t values are not 0..n-1"
    return [n for _, n in pairs]


def version_script(names):
    return ("/* Generated by scripts/gen-cusparse-compat.py from docs/cusparse/libcusparse.so.12-exports.txt. */\n"
            "libcusparse.so.12 {\n  global:\n" + "".join("    %s;\n" % n for n in names) + "  local:\n    *;\n};\n")


def coverage(functions, plans):
    counts = {k: sum(1 for v in plans.values() if v[0] == k) for k in ("forward", "own", "stub")}
    lines = ["# cuSPARSE functions on spblk's `libcusparse.so.12`", "",
             "Generated by `scripts/gen-cusparse-compat.py` from the shim's table; do not edit. Every",
             "function that NVIDIA's `libcusparse.so.12` (CUDA 13.0, cuSPARSE %d.%d.%d) exports is exported" % VERSION[:3],
             "by spblk's compatibility library (issue 13, `docs/drop-in.md`):", "",
             "- **forwarded** (%d): runs spblk's implementation (`cusparse` -> `spblk`), on the backend the" % counts["forward"],
             "  handle was created with, with spblk's argument checks and messages;",
             "- **own** (%d): the version queries (they check their arguments and answer the cuSPARSE" % counts["own"],
             "  version of the header) and `cusparseGetErrorName` (cuSPARSE's status names);",
             "- **not supported** (%d): returns `CUSPARSE_STATUS_NOT_SUPPORTED` (10), sets the message" % counts["stub"],
             "  `<name>: not implemented by spblk` and prints it once on stderr. The issue that owns it is named.",
             "  A stub that returns a value instead of a status prints the same line and returns 0.",
             "",
             "The matrix-descriptor getters (`cusparseGetMat*`) return their value and no status; for a NULL",
             "or destroyed descriptor they return `SPBLK_MAT_DESCR_INVALID` (2^31 - 1, no value of their",
             "enums) and set the message, where NVIDIA's library reads through the pointer.",
             "", "| function | on spblk |", "|---|---|"]
    for name in functions:
        kind = plans[name][0]
        what = {"forward": "forwarded to `spblk%s`" % name[len("cusparse"):],
                "own": "own: cuSPARSE's names" if name == "cusparseGetErrorName" else "own: %d.%d.%d" % VERSION[:3],
                "stub": "not supported (issue %d)" % owner(name)}[kind]
        lines.append("| `%s` | %s |" % (name, what))
    return "\n".join(lines) + "\n"


def nvidia_check(decls, functions):
    """C++ that compiles against NVIDIA's cusparse.h only if our declarations match it."""
    lines = ["// Generated by scripts/gen-cusparse-compat.py --nvidia-check: compiles only if",
             "// compat/cusparse/api.h agrees with this cusparse.h (prototypes and enum values).",
             "#include <cusparse.h>", "#include <type_traits>", ""]
    for d in decls:
        m = re.match(r"typedef enum \{ (.*) \} (\w+);", d)
        if m:
            for n, v in re.findall(r"(\w+) = (-?\d+)", m.group(1)):
                lines.append("static_assert(%s == %s, \"%s\");" % (n, v, n))
    for name, (ret, params) in functions.items():
        sig = "%s (*)(%s)" % (ret, ", ".join(t for t, _ in params))
        lines.append("static_assert(std::is_same<decltype(&%s), %s>::value, \"%s\");" % (name, sig, name))
    return "\n".join(lines) + "\n"


def main():
    if sys.argv[1:2] == ["--nvidia-check"]:
        decls, functions, _ = read_api()
        Path(sys.argv[2]).write_text(nvidia_check(decls, functions))
        return
    check = "--check" in sys.argv[1:]
    exported = [l.strip() for l in EXPORTS.read_text().splitlines() if l.strip() and not l.startswith("#")]
    decls, functions, cuda_enums = read_api()
    if list(functions) != exported:
        sys.exit("gen-cusparse-compat.py: compat/cusparse/api.h does not declare exactly the exported functions "
                 "in order (rerun scripts/import-cusparse-api.py)")
    _, _, _, parsed = load_spblk_parser()(SPBLK_H.read_text())
    spblk_functions = {name: (ret, params) for _, ret, name, params in parsed}
    plans = plan(functions, spblk_functions)
    outputs = {HEADER: header(decls, functions, cuda_enums), SHIM: shim(functions, plans, status_names(decls)),
               MAP: version_script(exported), COVERAGE: coverage(functions, plans)}
    stale = []
    for path, text in outputs.items():
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if stale:
        sys.exit("gen-cusparse-compat.py: out of date: %s (run python3 scripts/gen-cusparse-compat.py)"
                 % ", ".join(stale))
    kinds = [v[0] for v in plans.values()]
    print("cuSPARSE compatibility: %d functions: %d forwarded, %d own, %d not supported%s"
          % (len(plans), kinds.count("forward"), kinds.count("own"), kinds.count("stub"),
             " (up to date)" if check else ""))


if __name__ == "__main__":
    main()

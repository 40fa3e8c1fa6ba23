#!/usr/bin/env python3
"""Writes compat/cusparse/api.h, the cuSPARSE declarations (CUDA 13.0's cusparse.h: cuSPARSE
12.6.3) that spblk's compatibility header is generated from (scripts/gen-cusparse-compat.py).

    python3 scripts/import-cusparse-api.py [path/to/cudarc/src/cusparse/sys/mod.rs]

The source is the bindgen output that the cudarc crate (a dependency of spblk's CUDA backend,
MIT/Apache-2.0) ships for every CUDA version; the items enabled for feature `cuda-13000` are
turned back into C: opaque types, handle typedefs, enums with their values, and every function
of NVIDIA's export list (docs/cusparse/libcusparse.so.12-exports.txt). bindgen ran in C mode,
so the twelve half-precision prune functions (declared only for C++) are derived here from
their single-precision twins: the data pointers become `__half` pointers, scalars stay. The
result is checked against NVIDIA's own header on the GPU machine (scripts/gpu-compat-check.sh:
every prototype and every enumerator, compiled against the real cusparse.h), so an error here
cannot go unnoticed. Rerun only when moving to another cuSPARSE version.
"""
import glob
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "compat" / "cusparse" / "api.h"
EXPORTS = ROOT / "docs" / "cusparse" / "libcusparse.so.12-exports.txt"
FEATURE = "cuda-13000"
# Types that the compatibility header takes from the CUDA toolkit (or declares itself).
CUDA_TYPES = {"cudaDataType", "cudaDataType_t", "libraryPropertyType", "libraryPropertyType_t", "cudaStream_t",
              "cuComplex", "cuFloatComplex", "cuDoubleComplex", "FILE"}

# Separates the cuSPARSE declarations from the CUDA enums that the compatibility header
# declares only when no CUDA toolkit is on the include path.
CUDA_SECTION = "/* ---- CUDA toolkit enums (library_types.h) ---- */"
SCALARS = {"::core::ffi::c_int": "int", "::core::ffi::c_char": "char", "::core::ffi::c_void": "void",
           "::core::ffi::c_long": "long", "::core::ffi::c_uint": "unsigned int", "f32": "float", "f64": "double",
           "i64": "int64_t", "u64": "uint64_t", "i32": "int32_t", "u32": "uint32_t", "usize": "size_t"}


def c_type(rust):
    rust = rust.strip()
    if rust.startswith("*const "):
        inner = c_type(rust[len("*const "):])
        return inner + " const*" if inner.endswith("*") else "const " + inner + "*"
    if rust.startswith("*mut "):
        return c_type(rust[len("*mut "):]) + "*"
    return SCALARS.get(rust, rust)


def items(source):
    """(kind, text) of every item enabled for FEATURE: 'fn' (name, params, ret), 'type', 'block'."""
    lines = source.split("\n")
    cfg, i = None, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#[cfg("):
            cfg = line
            i += 1
            continue
        if line.startswith("#["):
            i += 1
            continue
        on = cfg is None or ('"%s"' % FEATURE) in cfg
        cfg = None
        depth = line.count("{") - line.count("}")
        body = [line]
        i += 1
        while depth > 0:
            body.append(lines[i])
            depth += lines[i].count("{") - lines[i].count("}")
            i += 1
        if not on:
            continue
        m = re.match(r"pub unsafe fn (\w+)\((.*)\) -> (.+?) \{$", line)
        if m:
            yield "fn", m.groups()
        elif line.startswith(("pub type", "pub use")):
            yield "type", line
        elif line.startswith(("pub enum", "impl ")):
            yield "block", body


def params(text):
    out = []
    for p in re.split(r",\s*(?=\w+: )", text) if text else []:
        name, ty = p.split(": ", 1)
        out.append((c_type(ty), name))
    return out


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else None
    if not path:
        found = sorted(glob.glob(str(Path.home() / ".cargo/registry/src/*/cudarc-*/src/cusparse/sys/mod.rs")))
        if not found:
            sys.exit("import-cusparse-api.py: cudarc's sources are not in ~/.cargo/registry (run cargo build first)")
        path = found[-1]
    exported = [l.strip() for l in EXPORTS.read_text().splitlines() if l.strip() and not l.startswith("#")]
    opaque, pointers, enums, cuda_enums, aliases, functions = [], [], {}, {}, {}, {}
    for kind, x in items(Path(path).read_text()):
        if kind == "fn":
            functions[x[0]] = (c_type(x[2]), params(x[1]))
        elif kind == "type":
            m = re.match(r"pub type (\w+) = (\*mut|\*const) (\w+);", x)
            if m and m.group(1) not in CUDA_TYPES:
                pointers.append((m.group(1), m.group(2) == "*const", m.group(3)))
        else:
            head = x[0]
            m = re.match(r"pub enum (\w+) \{", head)
            if m:
                values = re.findall(r"^\s+(\w+) = (-?\d+),", "\n".join(x), re.M)
                (cuda_enums if m.group(1) in CUDA_TYPES else enums)[m.group(1)] = values
            m = re.match(r"impl (\w+) \{", head)
            if m:
                for name, target in re.findall(r"pub const (\w+): \w+ = \w+::(\w+);", "\n".join(x)):
                    aliases.setdefault(m.group(1), []).append((name, target))
    # The half-precision prune functions, from their single-precision twins.
    for name in exported:
        if name.startswith("cusparseHprune") and name not in functions:
            ret, ps = functions["cusparseS" + name[len("cusparseH"):]]
            functions[name] = (ret, [(t.replace("float*", "__half*"), n) for t, n in ps])
    missing = [n for n in exported if n not in functions]
    if missing:
        sys.exit("import-cusparse-api.py: not in the bindings: " + ", ".join(missing))
    for struct in sorted({t for _, _, t in pointers}):
        opaque.append(struct)

    out = ["/* Generated by scripts/import-cusparse-api.py from cudarc's bindings of CUDA 13.0's",
           " * cusparse.h (cuSPARSE 12.6.3); do not edit. The declarations that",
           " * include/spblk/cusparse/cusparse.h is generated from. */", ""]
    for s in opaque:
        out.append("struct %s;" % s)
    for name, const, target in sorted(pointers):
        if name == "cusparseLoggerCallback_t":
            continue
        out.append("typedef %sstruct %s* %s;" % ("const " if const else "", target, name))
    out.append("typedef void (*cusparseLoggerCallback_t)(int logLevel, const char* functionName, const char* message);")
    out.append("")
    def enum_lines(table, named):
        for name in sorted(table):
            values = dict(table[name])
            body = ["%s = %s" % (n, v) for n, v in table[name]]
            body += ["%s = %s" % (n, values[t]) for n, t in aliases.get(name, [])]
            tag = name + " " if named else ""
            out.append("typedef enum %s{ %s } %s;" % (tag, ", ".join(body), name[:-2] if named else name))

    enum_lines(enums, False)
    out.append("")
    for name in exported:
        ret, ps = functions[name]
        ret = ret.replace("char const*", "const char*")
        out.append("%s %s(%s);" % (ret, name, ", ".join("%s %s" % (t, n) for t, n in ps) or "void"))
    out.append(CUDA_SECTION)
    enum_lines(cuda_enums, True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(out) + "\n")
    print("wrote %s: %d functions, %d enums, %d handle types" % (OUT.relative_to(ROOT), len(exported), len(enums),
                                                                 len(pointers)))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Generates cmake/spblk.f90, the Fortran 2003 iso_c_binding module `spblk`, from include/spblk.h.

    python3 scripts/gen-fortran-module.py          # rewrite cmake/spblk.f90
    python3 scripts/gen-fortran-module.py --check  # fail if it is out of date (a CTest)

Every constant and function of the header is bound. Handles, descriptors, streams and all
memory pointers are type(c_ptr) passed by value (use c_loc, or a device address); scalar
out-parameters are passed by reference. Unknown parameter types are an error, so a header
change that needs a new mapping is noticed here rather than miscompiled in Fortran.
"""
import re
import textwrap
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADER = ROOT / "include" / "spblk.h"
MODULE = ROOT / "cmake" / "spblk.f90"


# Pointer parameters that are arrays (by reference, any length) rather than one scalar.
ARRAYS = {("spblkAnalysisGetPermutation", "perm")}

C_TO_FORTRAN = {"int32_t": "integer(c_int32_t)", "uint32_t": "integer(c_int32_t)", "int64_t": "integer(c_int64_t)",
                "size_t": "integer(c_size_t)", "int": "integer(c_int)", "double": "real(c_double)",
                "float": "real(c_float)"}


def parse(header):
    typedefs = {}  # name -> "enum" (uint32_t), "pointer" or "struct"
    structs = []  # (name, [(type, member)]) of `typedef struct { ... } name;`
    for body, name in re.findall(r"typedef struct \{(.*?)\} (\w+);", header, re.S):
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        structs.append((name, re.findall(r"(\w+)\s+(\w+);", body)))
        typedefs[name] = "struct"
    header = re.sub(r"typedef struct \{.*?\} \w+;", "", header, flags=re.S)
    for base, name in re.findall(r"typedef\s+([^;]*?)\s*\b(\w+)\s*;", header):
        if base.startswith("struct"):
            continue
        typedefs[name] = "pointer" if base.endswith("*") else "enum" if base == "uint32_t" else base
    constants = re.findall(r"^#define\s+(SPBLK_\w+)\s+(.+)$", header, re.M)
    constants = [(n, v.strip()) for n, v in constants if n not in ("SPBLK_H",)]
    functions = []
    doc = ""
    token = re.compile(r"/\*\*(.*?)\*/|([A-Za-z_][\w *]*?)\b(spblk\w+)\(([^;]*?)\);", re.S)
    for m in token.finditer(header[header.index('extern "C"'):]):
        if m.group(1) is not None:  # a doc comment: belongs to the next prototype
            doc = " ".join(l.strip().lstrip("*").strip() for l in m.group(1).splitlines()).strip()
            continue
        args = []
        for p in ([] if m.group(4).strip() == "void" else m.group(4).split(",")):
            p = " ".join(p.split())
            arg = re.match(r"(.*?)\s*(\w+)$", p)
            args.append((arg.group(1).replace(" *", "*"), arg.group(2)))
        functions.append((doc, m.group(2).strip().replace(" *", "*"), m.group(3), args))
        doc = ""
    return typedefs, structs, constants, functions


def fortran_arg(function, ctype, name, typedefs):
    """(declaration, dummy name) of one C parameter."""
    plain = ctype.replace("const ", "")
    if (function, name) in ARRAYS:
        return f"{C_TO_FORTRAN[plain[:-1]]}, dimension(*), intent(inout)", name
    if plain.endswith("*") and typedefs.get(plain[:-1]) == "struct":  # by reference
        return f"type({plain[:-1]}), intent({'in' if ctype.startswith('const') else 'inout'})", name
    if plain.endswith("**") or plain in ("void*", "int32_t*"):  # memory (host or device), or void **out
        return ("type(c_ptr), intent(out)" if plain.endswith("**") else "type(c_ptr), value"), name
    if plain == "char*":
        return f"character(kind=c_char), dimension(*), intent({'in' if ctype.startswith('const') else 'out'})", name
    if plain == "FILE*":  # a C stream from the caller's C code
        return "type(c_ptr), value", name
    if plain == "spblkLoggerCallback_t":  # bind(C) subroutine(logLevel, functionName, message)
        return "type(c_funptr), value", name
    scalar = C_TO_FORTRAN
    if plain.endswith("*"):  # a scalar out-parameter (SpGEMM's buffer sizes are in/out)
        base = plain[:-1]
        kind = typedefs.get(base)
        if kind == "pointer":
            return "type(c_ptr), intent(out)", name
        if kind == "enum":
            return "integer(c_int32_t), intent(out)", name
        if base in scalar:
            return scalar[base] + (", intent(inout)" if base == "size_t" else ", intent(out)"), name
    else:
        kind = typedefs.get(plain)
        if kind == "pointer":
            return "type(c_ptr), value", name
        if kind == "enum":
            return "integer(c_int32_t), value", name
        if plain in scalar:
            return scalar[plain] + ", value", name
    raise SystemExit(f"gen-fortran-module: no Fortran mapping for parameter '{ctype} {name}'")


def wrap(line, indent):
    """Free-form lines stay under 132 columns: break after commas with '&'."""
    out = []
    while len(line) > 100 and line.rfind(", ", 0, 100) > indent:
        cut = line.rfind(", ", 0, 100) + 1
        out.append(line[:cut] + " &")
        line = " " * (indent + 4) + line[cut:].lstrip()
    return "\n".join(out + [line])


def generate(header):
    typedefs, structs, constants, functions = parse(header)
    out = [
        "! spblk for Fortran 2003: the iso_c_binding module `spblk`, GENERATED from spblk.h by",
        "! scripts/gen-fortran-module.py (do not edit; rerun it when the header changes).",
        "!",
        "! Handles, descriptors, streams and memory are type(c_ptr), passed by value: give c_loc(array)",
        "! for host memory on the host backend, or a device address for the CUDA backend. alpha and",
        "! beta are pointers too (c_loc of a variable of the compute type). Enums are integer(c_int32_t).",
        "! Indices inside the arrays follow the descriptor's index base (SPBLK_INDEX_BASE_ONE suits",
        "! Fortran). spblk_last_error() returns the reason of this thread's last failed call.",
        "module spblk",
        "  use, intrinsic :: iso_c_binding",
        "  implicit none",
        "",
    ]
    for name, value in constants:
        out.append(f"  integer(c_int32_t), parameter :: {name} = {value}")
    for name, members in structs:
        out += ["", f"  type, bind(C) :: {name}"]
        for ctype, member in members:
            kind = "integer(c_int32_t)" if typedefs.get(ctype) == "enum" else C_TO_FORTRAN[ctype]
            out.append(f"    {kind} :: {member}")
        out.append(f"  end type {name}")
    out += ["", "  interface"]
    for doc, ret, name, args in functions:
        names = [a[1] for a in args]
        if ret == "const char*":
            head, result = "function", "type(c_ptr)"
        elif typedefs.get(ret) == "enum":
            head, result = "function", "integer(c_int32_t)"
        else:
            raise SystemExit(f"gen-fortran-module: no Fortran mapping for the result of {name} ({ret})")
        out += textwrap.wrap(doc, 96, initial_indent="    ! ", subsequent_indent="    ! ")
        out.append(wrap(f"    {head} {name}({', '.join(names)}) bind(C, name=\"{name}\")", 4))
        out.append("      import")
        out.append(f"      {result} :: {name}")
        for ctype, arg in args:
            decl, dummy = fortran_arg(name, ctype, arg, typedefs)
            out.append(f"      {decl} :: {dummy}")
        out.append(f"    end {head} {name}")
    out += [
        "  end interface",
        "",
        "contains",
        "",
        "  ! The message of this thread's last failed spblk call, e.g.",
        "  ! \"spblkSpMV: argument 'vecY' has size 3 but op(A) has 4 rows\".",
        "  function spblk_last_error() result(message)",
        "    character(len=:), allocatable :: message",
        "    character(kind=c_char) :: buf(1024)",
        "    integer(c_size_t) :: written",
        "    integer :: i",
        "    written = 0",
        "    if (spblkGetLastErrorMessage(buf, int(size(buf), c_size_t), written) /= SPBLK_STATUS_SUCCESS) written = 0",
        "    allocate(character(len=written) :: message)",
        "    do i = 1, int(written)",
        "      message(i:i) = buf(i)",
        "    end do",
        "  end function spblk_last_error",
        "end module spblk",
        "",
    ]
    return "\n".join(out)


def main():
    text = generate(HEADER.read_text())
    if "--check" in sys.argv[1:]:
        if not MODULE.exists() or MODULE.read_text() != text:
            sys.exit(f"{MODULE.relative_to(ROOT)} is out of date with include/spblk.h: "
                     "run `python3 scripts/gen-fortran-module.py` and commit it")
        print(f"{MODULE.relative_to(ROOT)} is up to date with include/spblk.h")
        return
    MODULE.write_text(text)


if __name__ == "__main__":
    main()

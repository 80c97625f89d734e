"""lib/spvjit.h owns the C API; python/spvjit/_cdef.py copies its declarations for
cffi.  This test preprocesses the header (the C preprocessor, with empty standard
headers and no compiler macros, so SPVJIT_API and the C++ guards vanish), parses
both texts with pycparser (what cffi itself parses with) and compares them one
declaration at a time: a declaration the cdef lacks, declares differently or
has in excess fails, naming it."""

import os
import re
import subprocess

import pycparser
from pycparser import c_ast, c_generator

from spvjit._cdef import CDEF

from conftest import SRC_ROOT

HEADER = os.path.join(SRC_ROOT, "lib", "spvjit.h")

# The types the standard headers would declare, for pycparser.
PRELUDE = """
typedef _Bool bool;
typedef unsigned long size_t;
typedef signed char int8_t; typedef short int16_t; typedef int int32_t; typedef long int64_t;
typedef unsigned char uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
"""


def _strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)


# The limits the header's integer macros may name (cffi's cdef takes only literals).
LIMITS = {"UINT32_MAX": 2 ** 32 - 1, "INT32_MAX": 2 ** 31 - 1, "UINT64_MAX": 2 ** 64 - 1, "SIZE_MAX": 2 ** 64 - 1}


def _int_macros(text):
    return {m.group(1): LIMITS[m.group(2)] if m.group(2) in LIMITS else int(m.group(2), 0)
            for m in re.finditer(r"^\s*#\s*define\s+(\w+)\s+(\d+|0x[0-9a-fA-F]+|%s)\s*$" % "|".join(LIMITS),
                                 text, re.M)}


def _declarations(text):
    """{name: normalized C text} of every top-level declaration."""
    ast = pycparser.CParser().parse(PRELUDE + text, "<decls>")
    gen = c_generator.CGenerator()
    prelude_names = {n.name for n in pycparser.CParser().parse(PRELUDE).ext}
    decls = {}
    for node in ast.ext:
        name = node.name
        if name is None and isinstance(node, c_ast.Decl):  # a bare struct/enum definition
            name = getattr(node.type, "name", None)
        if name in prelude_names:
            continue
        assert name not in decls, "declared twice: %s" % name
        decls[name] = re.sub(r"\s+", " ", gen.visit(node)).strip()
    return decls


def _preprocessed_header(tmp_path):
    for h in ("stdbool.h", "stddef.h", "stdint.h"):
        (tmp_path / h).write_text("")
    out = subprocess.run(["cc", "-E", "-P", "-undef", "-nostdinc", "-I", str(tmp_path), HEADER],
                         check=True, capture_output=True, text=True)
    return out.stdout


def test_cdef_declares_what_the_header_declares(tmp_path):
    header = _declarations(_preprocessed_header(tmp_path))
    cdef = _declarations(re.sub(r"^\s*#.*$", "", _strip_comments(CDEF), flags=re.M))
    assert len(header) > 40, "the header parsed into too few declarations: %s" % sorted(header)
    missing = sorted(set(header) - set(cdef))
    extra = sorted(set(cdef) - set(header))
    differ = ["%s:\n  header: %s\n  cdef:   %s" % (n, header[n], cdef[n])
              for n in sorted(set(header) & set(cdef)) if header[n] != cdef[n]]
    assert not missing, "lib/spvjit.h declares what python/spvjit/_cdef.py lacks: %s" % missing
    assert not extra, "python/spvjit/_cdef.py declares what lib/spvjit.h does not: %s" % extra
    assert not differ, "declared differently:\n" + "\n".join(differ)


def test_cdef_integer_macros_match_the_header():
    with open(HEADER) as f:
        header = _int_macros(f.read())
    assert header.get("SPVJIT_VERSION_MAJOR") is not None and header.get("SPVJIT_NO_SPEC_ID") == 2 ** 32 - 1
    assert _int_macros(CDEF) == header


def test_the_comparison_notices_a_difference(tmp_path):
    """The check itself: a changed parameter type or a dropped function is seen."""
    cdef = _declarations(re.sub(r"^\s*#.*$", "", _strip_comments(CDEF), flags=re.M))
    changed = CDEF.replace("uint32_t set, uint32_t binding, void *data", "uint32_t set, int binding, void *data")
    assert changed != CDEF
    changed = _declarations(re.sub(r"^\s*#.*$", "", _strip_comments(changed), flags=re.M))
    assert changed["spvjit_bind_buffer"] != cdef["spvjit_bind_buffer"]
    assert cdef["spvjit_bind_buffer"] == _declarations(_preprocessed_header(tmp_path))["spvjit_bind_buffer"]

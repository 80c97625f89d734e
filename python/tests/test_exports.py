"""Exported functions from Python: Module.exports against the OpenCL C source of
testdata/jit/exports.cl (its prototypes read here), and Module.call over lanes
against the same functions computed with numpy, then every refusal."""

import os
import re

import numpy as np
import pytest

import spvjit
from conftest import SRC_ROOT

EXPORTS_CL = os.path.join(SRC_ROOT, "testdata", "jit", "exports.cl")


@pytest.fixture(scope="module")
def m(ctx):
    return spvjit.Module(EXPORTS_CL + ".spv", ctx)


# --- reflection against the source ----------------------------------------------------------------

# OpenCL C's scalar types as the API reports them (Kernel integers carry no signedness).
CL_TYPES = {"bool": "bool", "char": "u8", "uchar": "u8", "short": "u16", "ushort": "u16", "int": "u32", "uint": "u32",
            "long": "u64", "ulong": "u64", "half": "f16", "float": "f32", "double": "f64"}
CL_SPACES = {"global": "CrossWorkgroup", "local": "Workgroup", "constant": "UniformConstant", "private": "Function",
             None: "Generic"}


def _decl(text, named):
    """'const global float *a' -> (name, base, pointer, space, const)."""
    toks = text.replace("*", " * ").split()
    name = toks.pop() if named else None
    space = next((t for t in toks if t in CL_SPACES), None)
    base = [t for t in toks if t not in CL_SPACES and t not in ("const", "*", "kernel")]
    return name, base[0], "*" in toks, space, "const" in toks


def source_prototypes():
    protos = {}
    with open(EXPORTS_CL) as f:
        for line in f:
            mt = re.match(r"^(?!static|typedef)([a-z][\w ]*?)\b(\w+)\(([^)]*)\)", line)
            if mt:
                params = [_decl(p, True) for p in mt.group(3).split(",") if p.strip()]
                protos[mt.group(2)] = (_decl(mt.group(1), False), params)
    return protos


def _check_value(got, want, where):
    name, base, pointer, space, const = want
    assert got.name == name, where
    if pointer:
        assert (got.kind, got.storage_class, got.elem_type, got.readonly, got.size) == (
            "pointer", CL_SPACES[space], CL_TYPES[base], const, 8), where
        assert got.dtype == (np.dtype(np.bool_) if base == "bool" else np.dtype(spvjit._types.DTYPES[CL_TYPES[base]]))
    elif base == "void":
        assert (got.kind, got.size, got.dtype) == ("void", 0, None), where
    elif base in CL_TYPES:
        t = CL_TYPES[base]
        assert (got.kind, got.type, got.storage_class, got.elem_type) == ("scalar", t, None, None), where
        assert got.size == (1 if t == "bool" else int(t[1:]) // 8), where
    else:  # a vector
        assert (got.kind, got.type, got.type_name, got.size) == ("other", None, base, 0), where


def test_exports_match_the_opencl_source(m):
    protos = source_prototypes()
    assert len(protos) >= 16 and "mix64" not in protos  # static: not exported
    exports = {e.name: e for e in m.exports}
    assert set(exports) == set(protos)
    for name, (ret, params) in protos.items():
        e = exports[name]
        _check_value(e.result, ret, name + " result")
        assert len(e.params) == len(params) == e.nparams, name
        for i, (got, want) in enumerate(zip(e.params, params)):
            _check_value(got, want, "%s parameter %d" % (name, i))
        passable = all(v[2] or v[1] == "void" or CL_TYPES.get(v[1], "f16") != "f16" for v in [ret] + params)
        assert e.callable == passable and (e.unsupported is None) == passable, (name, e.unsupported)
    assert "the result has type float4" in exports["vscale"].unsupported
    assert exports["axpb"].signature == "float axpb(float a, float x, float b)"


def test_exports_of_a_module_without_any(ctx):
    assert spvjit.Module(os.path.join(SRC_ROOT, "testdata", "kernels", "saxpy.comp.spv"), ctx).exports == []


# --- calls against numpy ----------------------------------------------------------------------------

N = 53


@pytest.fixture
def rng():
    return np.random.default_rng(20240)


def test_float_functions(m, rng):
    a = rng.uniform(-10, 10, N).astype(np.float32)
    x = rng.uniform(-10, 10, N).astype(np.float32)
    r = m.call("axpb", a, x, 0.25)
    assert r.dtype == np.float32 and r.shape == (N,)
    assert np.array_equal(r, a * x + np.float32(0.25))
    b = rng.uniform(-1, 1, N).astype(np.float32)
    assert np.array_equal(m.call("axpb", np.float32(1.5), x, b), np.float32(1.5) * x + b)
    la, lt = rng.uniform(-100, 100, N), rng.uniform(0, 1, N)
    assert np.array_equal(m.call("lerp", la, 10.0, lt), la + (10.0 - la) * lt)
    neg = m.call("is_neg", a)
    assert neg.dtype == np.bool_ and np.array_equal(neg, a < 0)
    # no varying argument: one call, a numpy scalar
    one = m.call("axpb", 2.0, 3.0, 1.0)
    assert isinstance(one, np.float32) and one == 7.0


def test_integer_functions(m, rng):
    v = rng.integers(-2000, 2000, N, dtype=np.int32)
    r = m.call("clampi", v, -500, 700)
    assert r.dtype == np.uint32  # Kernel integers reflect as unsigned: the bits
    assert np.array_equal(r.view(np.int32), np.clip(v, -500, 700))
    lo, hi = rng.integers(-1000, 0, N, dtype=np.int32), rng.integers(0, 1000, N, dtype=np.int32)
    signed = m.call("clampi", v, lo, hi, out=np.empty(N, np.int32))
    assert signed.dtype == np.int32 and np.array_equal(signed, np.minimum(np.maximum(v, lo), hi))

    h = rng.integers(0, 2 ** 63, N, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = h + np.uint64(77)
        x ^= x >> np.uint64(31)
        x *= np.uint64(0x7FB5D329728EA185)
        x ^= x >> np.uint64(27)
    assert np.array_equal(m.call("hash2", h, np.uint32(77)), x)

    u8a, u8b = rng.integers(0, 256, N, dtype=np.uint8), rng.integers(0, 256, N, dtype=np.uint8)
    assert np.array_equal(m.call("addsat8", u8a, u8b), np.minimum(u8a.astype(int) + u8b, 255).astype(np.uint8))

    s16a, s16b = rng.integers(-32768, 32768, N, dtype=np.int16), rng.integers(-1000, 1000, N, dtype=np.int16)
    d = np.abs(s16a.astype(np.int32) - s16b).astype(np.int16)  # short arithmetic wraps at 16 bits
    assert np.array_equal(m.call("absdiff16", s16a, s16b, out=np.empty(N, np.int16)), d)

    c = rng.integers(0, 2, N).astype(bool)
    pb = rng.integers(-(2 ** 31), 2 ** 31, N, dtype=np.int32)
    assert np.array_equal(m.call("pick", c, -7, pb).view(np.int32), np.where(c, -7, pb))
    assert m.call("pick", True, 3, 4) == 3 and m.call("pick", np.bool_(False), 3, 4) == 4


def test_pointer_parameters(m, rng):
    # read-only pointers (uniform) and a varying length: lane i sums n[i] products
    a = rng.uniform(-2, 2, N).astype(np.float32)
    b = rng.uniform(-2, 2, N).astype(np.float32)
    a.flags.writeable = False  # const global float *: a read-only array is fine
    n = np.arange(N, dtype=np.uint32)
    prefix = np.concatenate([[0], np.cumsum(a * b, dtype=np.float32)]).astype(np.float32)
    assert np.array_equal(m.call("dot_n", a, b, n), prefix[n])
    # generic pointers written through, one pair per lane
    data = rng.integers(-(2 ** 31), 2 ** 31, N, dtype=np.int32)
    lo = [np.zeros(1, np.int32) for _ in range(N)]
    hi = [np.zeros(1, np.int32) for _ in range(N)]
    assert m.call("minmax", data, n + 1, lo, hi) is None
    assert np.array_equal(np.concatenate(lo), np.minimum.accumulate(data))
    assert np.array_equal(np.concatenate(hi), np.maximum.accumulate(data))
    # a pointer per lane to its own element, and one pointer every lane scales again
    p = rng.uniform(-5, 5, 8).astype(np.float32)
    want = p * np.float32(-1.5)
    m.call("scale", [p[i:i + 1] for i in range(8)], -1.5)
    assert np.array_equal(p, want)
    one = np.array([3.0], np.float32)
    m.call("scale", one, 2.0, lanes=5)
    assert one[0] == 96.0


def test_lanes(m):
    x = np.arange(4, dtype=np.float32)
    r = m.call("axpb", 2.0, 1.0, 0.5, lanes=3)  # uniform only, three lanes
    assert np.array_equal(r, np.full(3, 2.5, np.float32))
    assert m.call("axpb", x[:0], x[:0], 1.0).shape == (0,)
    assert m.call("axpb", 1.0, 1.0, 1.0, lanes=0).shape == (0,)
    out = np.zeros(4, np.float32)
    assert m.call("axpb", x, x, 1.0, out=out) is out and np.array_equal(out, x * x + 1)


# --- refusals ----------------------------------------------------------------------------------------


def test_refusals(m):
    x = np.arange(6, dtype=np.float32)
    with pytest.raises(spvjit.NotFoundError, match='no function exported as "nope".*"axpb"'):
        m.call("nope", 1)
    with pytest.raises(spvjit.UnsupportedError, match="vscale.*cannot be called from host C.*float4"):
        m.call("vscale", x, 1.0)
    with pytest.raises(spvjit.UnsupportedError, match="half"):
        m.call("twice_h", 1.0)
    with pytest.raises(spvjit.UnsupportedError, match="barrier"):  # the body, found when compiled
        m.call("sync_store", np.zeros(1, np.float32), 1.0)
    with pytest.raises(TypeError, match=r"float axpb\(float a, float x, float b\) takes 3 arguments \(a, x, b\); 2"):
        m.call("axpb", x, x)
    with pytest.raises(spvjit.BindingError, match="'a' \\(float\\) takes f32 values but the array's dtype is float64"):
        m.call("axpb", x.astype(np.float64), x, 1.0)
    with pytest.raises(spvjit.BindingError, match="takes f32 values but the array's dtype is float64"):
        m.call("axpb", np.float64(1.0), x, 1.0)  # a numpy scalar keeps its type
    with pytest.raises(spvjit.BindingError, match="different lengths"):
        m.call("axpb", x, x[:5], 1.0)
    with pytest.raises(spvjit.BindingError, match="argument 1: 6 values for 4 lanes"):
        m.call("axpb", 1.0, x, 1.0, lanes=4)
    with pytest.raises(spvjit.BindingError, match="1-D"):
        m.call("axpb", x.reshape(2, 3), 1.0, 1.0)
    with pytest.raises(spvjit.BindingError, match="byte order"):
        m.call("axpb", x.astype(">f4"), 1.0, 1.0)
    with pytest.raises(spvjit.BindingError, match="bool"):
        m.call("pick", np.array([0, 1], np.uint8), 1, 2)
    with pytest.raises(TypeError, match="takes a bool"):
        m.call("pick", 1, 1, 2)
    with pytest.raises(TypeError, match="expected an integer"):
        m.call("clampi", 1.5, 0, 2)
    with pytest.raises(OverflowError):
        m.call("clampi", 2 ** 32, 0, 2)
    with pytest.raises(spvjit.BindingError, match="out=.*float32"):
        m.call("axpb", x, x, 1.0, out=np.empty(6, np.float64))
    with pytest.raises(spvjit.BindingError, match="out= takes a 1-D array of 6"):
        m.call("axpb", x, x, 1.0, out=np.empty(5, np.float32))
    with pytest.raises(TypeError, match="returns nothing"):
        m.call("scale", x, 1.0, out=x)
    # pointers: the array itself is checked like a kernel's buffer
    ro = np.zeros(4, np.float32)
    ro.flags.writeable = False
    with pytest.raises(spvjit.BindingError, match='read-only but "scale" may write'):
        m.call("scale", ro, 2.0)
    with pytest.raises(spvjit.BindingError, match="not C-contiguous"):
        m.call("scale", np.zeros(8, np.float32)[::2], 2.0)
    with pytest.raises(spvjit.BindingError, match="holds f32 elements but the array's items are i32"):
        m.call("scale", np.zeros(4, np.int32), 2.0)
    with pytest.raises(TypeError, match="expected a numpy array or another buffer"):
        m.call("scale", 12345, 2.0)
    with pytest.raises(spvjit.SpecConstantError):
        m.call("axpb", x, x, 1.0, specs={7: 1})

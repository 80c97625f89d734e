"""`spvjit run` with numpy: .npy files in and out (arrays numpy wrote, results
numpy reads and checks), --print typed by the module, and --json parsed by
Python's json module and checked against the module's facts and numpy results.
(The .npy reader and writer on every dtype: test_cli_npy.c with npy_peer.py.)

Run by testdata/tests/test_python.c (`build/run_tests cli_pytest`), or
directly: SPVJIT_BIN=build/spvjit /usr/bin/python3 -m pytest testdata/tests."""

import json
import os
import subprocess

import numpy as np
import pytest

ROOT = os.environ.get("SPVJIT_SRC_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("SPVJIT_BIN") or os.path.join(ROOT, "build", "spvjit")
KERNELS = os.path.join(ROOT, "testdata", "kernels")
RNG = np.random.default_rng(7)


def spvjit(*args, env=None):
    p = subprocess.run([BIN, *map(str, args)], capture_output=True, text=True,
                       env=None if env is None else {**os.environ, **env})
    if p.returncode != 0:
        pytest.fail("spvjit %s: exit %d: %s" % (" ".join(map(str, args)), p.returncode, p.stderr))
    return p.stdout


def error_of(*args):
    """The one-line error of a failing run."""
    p = subprocess.run([BIN, *map(str, args)], capture_output=True, text=True)
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("spvjit: "), p.stderr
    return p.stderr


def mm_inputs(tmp_path, n):
    a = RNG.uniform(-1, 1, (n, n)).astype(np.float32)
    b = RNG.uniform(-1, 1, (n, n)).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    return a, b


# --- .npy in and out ------------------------------------------------------------------------------


def test_npy_in_and_out_mm_matches_numpy(tmp_path):
    n, bs = 50, 8
    a, b = mm_inputs(tmp_path, n)
    g = (n + bs - 1) // bs
    spvjit("run", os.path.join(KERNELS, "mm.comp.spv"), "-D", "0=%d" % bs, "--groups", "%d,%d" % (g, g),
           "--buffer", "0:0=@%s" % (tmp_path / "a.npy"), "--buffer", "0:1=@%s" % (tmp_path / "b.npy"),
           "--buffer", "0:2=zero:%d" % (4 * n * n), "--push", "u32:%d" % n,
           "--out", "0:2=%s" % (tmp_path / "c.npy"))
    c = np.load(tmp_path / "c.npy")
    assert c.dtype == np.float32 and c.shape == (n * n,)  # dtype from the binding's element type
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(c.reshape(n, n) - want).max() < 1e-4 * n


def test_npy_kernel_flavour_arguments(tmp_path):
    n = 300
    x = RNG.uniform(-5, 5, n).astype(np.float32)
    y = RNG.uniform(-5, 5, n).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    spvjit("run", os.path.join(KERNELS, "saxpy.cl.spv"), "-D", "0=0.75", "--global", n, "--local", 30,
           "--arg", "0=@%s" % (tmp_path / "x.npy"), "--arg", "1=@%s" % (tmp_path / "y.npy"), "--arg", "2=u32:%d" % n,
           "--out", "1=%s" % (tmp_path / "out.npy"), "--out", "1:u8=%s" % (tmp_path / "bytes.npy"),
           "--out", "1=%s" % (tmp_path / "out.bin"))
    got = np.load(tmp_path / "out.npy")
    np.testing.assert_allclose(got, np.float32(0.75) * x + y, rtol=1e-6, atol=1e-6)
    raw = np.load(tmp_path / "bytes.npy")
    assert raw.dtype == np.uint8 and raw.tobytes() == got.tobytes()
    assert (tmp_path / "out.bin").read_bytes() == got.tobytes()  # other names: the raw bytes


def test_npy_multidimensional_and_big_endian_inputs(tmp_path):
    """A 2-D array fills the buffer in C order; a big-endian file is read in host order."""
    n, bs = 16, 8
    a, b = mm_inputs(tmp_path, n)
    np.save(tmp_path / "b_be.npy", b.astype(">f4"))
    out = spvjit("run", os.path.join(KERNELS, "mm.comp.spv"), "-D", "0=%d" % bs, "--groups", "2,2",
                 "--buffer", "0:0=@%s" % (tmp_path / "a.npy"), "--buffer", "0:1=@%s" % (tmp_path / "b_be.npy"),
                 "--buffer", "0:2=zero:%d" % (4 * n * n), "--push", "u32:%d" % n, "--print", "0:2", "--json")
    (o,) = json.loads(out)["outputs"]
    c = np.array(o["values"], np.float64)
    assert o["type"] == "f32" and len(c) == n * n
    assert np.abs(c.reshape(n, n) - a.astype(np.float64) @ b.astype(np.float64)).max() < 1e-4 * n


def glsl(tmp_path, source):
    src = tmp_path / "k.comp"
    src.write_text(source)
    out = tmp_path / "k.comp.spv"
    subprocess.run(["glslangValidator", "-V", "-o", str(out), str(src)], check=True, capture_output=True)
    return str(out)


VEC4 = """#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { vec4 v[]; };
layout(push_constant) uniform P { uint n; } p;
void main() { v[gl_GlobalInvocationID.x] *= float(p.n); }
"""


def test_npy_errors(tmp_path):
    saxpy = os.path.join(KERNELS, "saxpy.comp.spv")
    rest = ["--buffer", "0:1=zero:256", "--push", "u32:64"]

    def bad(content, target="0:0", option="--buffer", module=saxpy, more=rest):
        p = tmp_path / "in.npy"
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            np.save(p, content)
        arg = "@%s" % p if option == "--push" else "%s=@%s" % (target, p)
        return error_of("run", module, option, arg, *more)

    e = bad(np.zeros(64, np.float64))
    assert "binding 0:0 ('X') holds f32 elements but" in e and "float64, shape (64,)" in e and "dtype float32" in e
    e = bad(np.zeros(4, np.uint16), option="--push", more=["--buffer", "0:0=zero:256", "--buffer", "0:1=zero:256"])
    assert "push constants" in e and "holds u32 elements" in e and "uint16, shape (4,)" in e
    e = bad(np.zeros(0, np.uint32), option="--push", more=["--buffer", "0:0=zero:256", "--buffer", "0:1=zero:256"])
    assert "needs at least 4 bytes" in e and "uint32, shape (0,)" in e
    vec4 = glsl(tmp_path, VEC4)
    e = bad(np.zeros((5, 3), np.float32), module=vec4, more=["--push", "u32:2"])  # vec4[] needs 16-byte elements
    assert "60 bytes is not 0 plus whole 16-byte array elements" in e and "float32, shape (5, 3)" in e
    assert "structured dtypes" in bad(np.zeros(4, dtype=[("a", "<f4"), ("b", "<i4")]))
    assert "bool" in bad(np.zeros(4, np.bool_))
    assert "not a plain number type" in bad(np.zeros(4, np.complex64))
    assert "not a plain number type" in bad(np.array([{}, None], dtype=object))
    p = tmp_path / "f.npy"
    np.save(p, np.asfortranarray(np.zeros((4, 3), np.float32)))
    assert "Fortran order" in error_of("run", saxpy, "--buffer", "0:0=@%s" % p, *rest)
    np.save(p, np.zeros(64, np.float32))
    whole = p.read_bytes()
    assert "truncated data" in bad(whole[:-3])
    assert "unexpected data" in bad(whole + b"\0\0\0\0")
    assert "truncated .npy header" in bad(whole[:20])
    assert "not a .npy file" in bad(b"\0" * 64)
    assert "No such file or directory" in error_of("run", saxpy, "--buffer", "0:0=@%s" % (tmp_path / "none.npy"), *rest)


def test_npy_vector_elements_and_signedness(tmp_path):
    """A (n, 4) float32 array fills a vec4[] block; same-width integers of either
    signedness fill an integer block (SPIR-V integers are signless)."""
    vec4 = glsl(tmp_path, VEC4)
    v = RNG.uniform(-1, 1, (6, 4)).astype(np.float32)
    np.save(tmp_path / "v.npy", v)
    np.save(tmp_path / "n.npy", np.array([3], np.int32))
    out = json.loads(spvjit("run", vec4, "--groups", 6, "--buffer", "0:0=@%s" % (tmp_path / "v.npy"),
                            "--push", "@%s" % (tmp_path / "n.npy"), "--print", "0:0", "--json"))
    np.testing.assert_array_equal(np.array(out["outputs"][0]["values"], np.float32), (v * 3).ravel())


# --- --print typed by the module -------------------------------------------------------------------


def printed(text):
    """[(target, count, type, [values as text])] of --print output."""
    blocks = []
    for line in text.splitlines():
        if not line.startswith("  "):
            head, shape = line.rstrip(":").split(" (")
            count, typ = shape.rstrip(")").split(" x ")
            blocks.append((head, int(count), typ, []))
        else:
            blocks[-1][3].extend(line.split())
    return blocks


def test_print_uses_the_binding_element_type():
    """zero: and raw data carry no type: the module's says how to print them
    (a float* argument and a float[] block print floats, not u32 words)."""
    out = spvjit("run", os.path.join(KERNELS, "saxpy.cl.spv"), "-D", "0=2.5", "--global", 8,
                 "--arg", "0=iota:f32:8", "--arg", "1=zero:32", "--arg", "2=u32:8", "--print", "1", "--print", "2",
                 "--print", "1:u32")
    y = np.arange(8, dtype=np.float32) * np.float32(2.5)
    assert printed(out) == [
        ("argument 1", 8, "f32", ["%.9g" % v for v in y]),
        ("argument 2", 1, "u32", ["8"]),
        ("argument 1", 8, "u32", [str(v) for v in y.view(np.uint32)]),  # an explicit TYPE wins: the bits
    ]
    out = spvjit("run", os.path.join(KERNELS, "saxpy.comp.spv"), "--groups", 1,
                 "--buffer", "0:0=const:f32:1.5:64", "--buffer", "0:1=zero:256", "--push", "u32:64",
                 "--print", "0:1", "--print", "push")
    assert printed(out) == [("binding 0:1", 64, "f32", ["3"] * 64), ("push constants", 1, "u32", ["64"])]


# --- --json -----------------------------------------------------------------------------------------


def test_run_json_reports_the_module_facts_and_timings(tmp_path):
    n, bs = 40, 8
    a, b = mm_inputs(tmp_path, n)
    g = (n + bs - 1) // bs
    args = ["run", os.path.join(KERNELS, "mm.comp.spv"), "-D", "0=%d" % bs, "--groups", "%d,%d" % (g, g),
            "--buffer", "0:0=@%s" % (tmp_path / "a.npy"), "--buffer", "0:1=@%s" % (tmp_path / "b.npy"),
            "--buffer", "0:2=zero:%d" % (4 * n * n), "--push", "u32:%d" % n, "--repeat", 4, "--json",
            "--tier", "auto",  # the optimized code, waited for after the first run, is stored on disk
            "--print", "0:2", "--out", "0:2=%s" % (tmp_path / "c.npy")]
    cache = {"XDG_CACHE_HOME": str(tmp_path / "cache")}  # an empty disk cache: the first run compiles
    first = json.loads(spvjit(*args, env=cache))
    again = json.loads(spvjit(*args, env=cache))
    assert first["module"].endswith("mm.comp.spv") and first["flavour"] == "shader" and first["specialized"]
    assert first["defines"] == {"0": str(bs)} and first["entry"] is None
    assert first["dispatch"] == {"groups": [g, g, 1]}
    assert first["local_size"] == [bs, bs, 1]  # BS x BS work-groups, from local_size_x_id/y_id
    c = first["compile"]
    assert not c["from_cache"] and again["compile"]["from_cache"]
    assert c["uses_barriers"] and c["wg_memory_bytes"] == 2 * bs * bs * 4  # As and Bs: BS*BS floats each
    assert 0 < c["lower_ms"] and 0 < c["passes_ms"] and 0 < c["codegen_ms"]
    assert c["lower_ms"] + c["passes_ms"] + c["codegen_ms"] <= c["total_ms"] <= c["wall_ms"] + 0.5
    d = first["dispatches"]
    assert d["runs"] == 4 and 0 < d["min_ms"] <= d["median_ms"] <= d["max_ms"] and d["min_ms"] <= d["first_ms"]
    printed_out, saved = first["outputs"]
    assert (printed_out["target"], printed_out["set"], printed_out["binding"], printed_out["type"]) == (
        "binding 0:2", 0, 2, "f32")
    assert saved["file"].endswith("c.npy") and saved["format"] == "npy" and saved["bytes"] == 4 * n * n
    # four dispatches of the same product into the same buffer: the product
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(np.array(printed_out["values"]).reshape(n, n) - want).max() < 1e-4 * n
    np.testing.assert_array_equal(np.load(tmp_path / "c.npy"), np.array(printed_out["values"], np.float32))


def test_run_json_opencl_dispatch_and_special_values():
    out = json.loads(spvjit("run", os.path.join(KERNELS, "saxpy.cl.spv"), "-D", "0=inf", "--global", 4,
                            "--local", 2, "--arg", "0=f32:1,-1,0,2", "--arg", "1=zero:16", "--arg", "2=u32:4",
                            "--print", "1", "--json", "--no-specialize"))
    assert out["dispatch"] == {"global_size": [4], "local_size": [2, 1, 1]} and out["local_size"] == [2, 1, 1]
    assert out["flavour"] == "kernel" and not out["specialized"] and out["dispatches"]["runs"] == 1
    vals = out["outputs"][0]["values"]  # inf * 0 is NaN: JSON's NaN/Infinity extensions, which Python reads
    assert vals[0] == float("inf") and vals[1] == float("-inf") and vals[2] != vals[2] and vals[3] == float("inf")

"""The Python layer itself: reflection against what the kernels' sources declare,
the library's cache, options mapped onto the C structs, errors (one class per
spvjit_status, the library's message), buffer checks, compile(), the GIL during
dispatches and asynchronous dispatches."""

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import spvjit
from spvjit import _native
from conftest import SRC_ROOT, glsl, kernel_path


# --- reflection ---------------------------------------------------------------------------------


def test_reflection_shader_matches_the_glsl(ctx):
    m = spvjit.Module(kernel_path("saxpy.comp.spv"), ctx)
    assert m.flavour == "shader" and m.entry_names == ["main"]
    (sc,) = m.spec_constants
    assert (sc.spec_id, sc.name, sc.type, sc.default) == (0, "a", "f32", 2.0)
    res = {r.key: r for r in m.resources()}
    assert set(res) == {(0, 0), (0, 1), "push"}
    x, y, push = res[(0, 0)], res[(0, 1)], res["push"]
    # readonly buffer X { float x[]; }, buffer Y { float y[]; }, push_constant { uint n; }
    assert (x.kind, x.name, x.size, x.stride, x.elem_type, x.readonly) == ("storage_buffer", "X", 0, 4, "f32", True)
    assert (y.kind, y.name, y.elem_type, y.readonly, y.dtype) == ("storage_buffer", "Y", "f32", False,
                                                                  np.dtype(np.float32))
    assert (push.kind, push.size, push.elem_type, push.readonly) == ("push_constants", 4, "u32", True)
    (ep,) = m.entry_points
    assert ep.name == "main" and set(ep.resources) == set(m.resources("main"))


def test_reflection_kernel_matches_the_opencl(ctx):
    m = spvjit.Module(kernel_path("reduce.cl.spv"), ctx)
    assert m.flavour == "kernel" and m.entry_names == ["reduce"] and m.spec_constants == []
    # (__global const float *src, __global float *partial, uint n, __local float *scratch)
    got = [(r.index, r.kind, r.name, r.elem_type) for r in m.resources("reduce")]
    assert got == [(0, "arg_pointer", "src", "f32"), (1, "arg_pointer", "partial", "f32"),
                   (2, "arg_value", "n", "u32"), (3, "arg_local", "scratch", "f32")]
    mm = spvjit.Module(kernel_path("mm.comp.spv"), ctx)
    (bs,) = mm.spec_constants
    assert (bs.spec_id, bs.name, bs.type, bs.default) == (0, "BS", "u32", 16)
    # readonly A and B (NonWritable on the block members), writeonly C
    assert [r.readonly for r in sorted(mm.resources(), key=lambda r: str(r.key)) if r.kind != "push_constants"] == [
        True, True, False]


def test_reflection_element_types(ctx, tmp_path):
    path = glsl(tmp_path, """#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer A { int a[]; };
layout(set = 0, binding = 1) buffer B { vec4 b[]; };
layout(set = 0, binding = 2) buffer C { uint n; float c[]; };
layout(set = 1, binding = 0) uniform U { double d[4]; };
layout(push_constant) uniform P { uint k; uint j; } p;
void main() { a[0] = int(p.k + p.j); b[0] = vec4(1); c[n] = float(d[0]); }
""")
    res = {r.key: r for r in spvjit.Module(path, ctx).resources()}
    assert res[(0, 0)].elem_type == "i32" and res[(0, 1)].elem_type == "f32" and res[(0, 2)].elem_type is None
    assert res[(1, 0)].kind == "uniform_buffer" and res[(1, 0)].elem_type == "f64" and res[(1, 0)].readonly
    assert res["push"].elem_type == "u32" and res["push"].size == 8
    assert res[(0, 2)].size == 4 and res[(0, 2)].stride == 4


def test_module_from_bytes_and_errors(ctx):
    with open(kernel_path("saxpy.comp.spv"), "rb") as f:
        data = f.read()
    m = spvjit.Module(data, ctx, name="saxpy-bytes")
    assert m.entry_names == ["main"]
    with pytest.raises(spvjit.InvalidModuleError, match="saxpy-bytes"):
        spvjit.Module(data[:40], ctx, name="saxpy-bytes")
    with pytest.raises(spvjit.NotFoundError, match="nonexistent.spv"):
        spvjit.Module("/nonexistent.spv", ctx)
    with pytest.raises(spvjit.NotFoundError, match='no entry point "nope"'):
        m.resources("nope")
    with pytest.raises(TypeError):
        spvjit.Module(42, ctx)


# --- the cache ---------------------------------------------------------------------------------------


def test_kernels_are_cached_by_values():
    ctx = spvjit.Context(disk_cache_dir="")
    m = spvjit.Module(kernel_path("mm.comp.spv"), ctx)
    first = m.kernel(specs={0: 8})
    assert not first.stats.from_cache
    t = time.perf_counter()
    again = m.kernel(specs={0: 8})
    hit_ms = (time.perf_counter() - t) * 1e3
    assert again.stats.from_cache and again.stats.total_ms == first.stats.total_ms
    assert hit_ms < first.stats.total_ms, (hit_ms, first.stats.total_ms)
    # The same value given another way is the same key; another value is a new compile.
    assert m.kernel(specs={0: np.uint32(8)}).stats.from_cache
    assert m.kernel(specs={0: "8"}).stats.from_cache
    assert not m.kernel(specs={0: 4}).stats.from_cache
    assert not m.kernel(specs={0: 8}, unspecialized=True).stats.from_cache


# --- options map onto the C structs by field name ------------------------------------------------------


def test_options_are_struct_fields(ctx):
    m = spvjit.Module(kernel_path("saxpy.cl.spv"), ctx)
    k = m.kernel("saxpy", local_size=(32,), opt_level=1)
    n = 100
    x, y = np.ones(n, np.float32), np.zeros(n, np.float32)
    k(global_size=n, args=[x, y, n])
    assert k.stats.local_size == (32, 1, 1)
    assert np.all(y == 2.0)  # the default a = 2.0
    with pytest.raises(TypeError, match="unknown option 'local_sise'.*local_size"):
        m.kernel("saxpy", local_sise=(32,))
    with pytest.raises(TypeError, match="unknown option"):
        spvjit.Context(thread=2)
    with pytest.raises(ValueError, match="local_size"):
        m.kernel("saxpy", local_size=(1, 2, 3, 4))
    # a dispatch_info field without a dedicated keyword: global_offset
    y[:] = 0
    k(global_size=50, global_offset=50, args=[x, y, n])
    assert np.all(y[:50] == 0) and np.all(y[50:] == 2.0)


def test_base_group(ctx):
    n = 256
    x, y = np.ones(n, np.float32), np.zeros(n, np.float32)
    k = spvjit.Module(kernel_path("saxpy.comp.spv"), ctx).kernel()
    k(groups=2, base_group=(2, 0, 0), buffers={(0, 0): x, (0, 1): y}, push=np.uint32(n))
    assert np.all(y[:128] == 0) and np.all(y[128:] == 2.0)


def test_context_threads_option():
    c = spvjit.Context(threads=1, disk_cache_dir="")
    assert c.options == {"threads": 1, "disk_cache_dir": ""}
    n = 512
    x, y = np.ones(n, np.float32), np.zeros(n, np.float32)
    spvjit.Module(kernel_path("saxpy.comp.spv"), c).kernel()(groups=8, buffers={(0, 0): x, (0, 1): y},
                                                            push=np.uint32(n))
    assert np.all(y == 2.0)


# --- errors ------------------------------------------------------------------------------------------


def test_every_status_has_its_own_exception_class():
    statuses = {v: n for n, v in _native.ffi.typeof("spvjit_status").relements.items() if v}
    classes = [spvjit.errors[v] for v in statuses]
    assert len(set(classes)) == len(statuses)
    for v, cls in zip(statuses, classes):
        assert issubclass(cls, spvjit.Error) and cls.status == statuses[v]
        assert getattr(spvjit, cls.__name__) is cls


def test_errors_carry_the_library_message(ctx):
    m = spvjit.Module(kernel_path("mm.comp.spv"), ctx)
    with pytest.raises(spvjit.SpecConstantError) as e:
        m.kernel(specs={99: 1})
    msg = str(e.value)
    assert "SpecId 99 is not in the module" in msg and "SpecId 0 (BS, u32)" in msg
    assert e.value.status == "SPVJIT_ERROR_SPEC_CONSTANT"
    with pytest.raises(spvjit.SpecConstantError):
        m.kernel(specs={0: 2.5})  # BS is a u32
    with pytest.raises(spvjit.SpecConstantError):
        m.kernel(specs={0: np.float32(16)})
    with pytest.raises(spvjit.NotFoundError, match='"nope"'):
        m.kernel("nope")
    k = m.kernel(specs={0: 8})
    a = np.zeros(64 * 64, np.float32)
    with pytest.raises(spvjit.BindingError, match=r"set 0 binding 2 \(MatC\)") as e:
        k(groups=(8, 8), buffers={(0, 0): a, (0, 1): a}, push=np.uint32(64))
    assert "not bound" in str(e.value)


def test_buffer_checks(ctx):
    k = spvjit.Module(kernel_path("saxpy.comp.spv"), ctx).kernel()
    n = 128
    x, y = np.ones(n, np.float32), np.zeros(n, np.float32)
    push = np.uint32(n)
    with pytest.raises(spvjit.BindingError, match="f32 elements but the array's items are f64"):
        k(groups=2, buffers={(0, 0): np.ones(n), (0, 1): y}, push=push)
    with pytest.raises(spvjit.BindingError, match="not C-contiguous"):
        k(groups=2, buffers={(0, 0): x, (0, 1): np.zeros(2 * n, np.float32)[::2]}, push=push)
    ro = np.zeros(n, np.float32)
    ro.flags.writeable = False
    with pytest.raises(spvjit.BindingError, match="read-only but the kernel may write binding 0:1"):
        k(groups=2, buffers={(0, 0): x, (0, 1): ro}, push=push)
    with pytest.raises(spvjit.BindingError, match="byte order"):
        k(groups=2, buffers={(0, 0): x.astype(">f4"), (0, 1): y}, push=push)
    with pytest.raises(TypeError, match="numpy array"):
        k(groups=2, buffers={(0, 0): [1.0, 2.0], (0, 1): y}, push=push)
    with pytest.raises(spvjit.BindingError, match="push constants"):  # too small: the library's check
        k(groups=2, buffers={(0, 0): x, (0, 1): y}, push=np.uint16(n))
    with pytest.raises(spvjit.BindingError, match="has no|binding 0:7"):
        k(groups=2, buffers={(0, 7): x}, push=push)
    with pytest.raises(spvjit.BindingError):
        k(groups=2, buffers={(0, 0): x, (0, 1): y}, push=np.uint64(n))  # an 8-byte push for a 4-byte block
    with pytest.raises(OverflowError):
        k(groups=2, buffers={(0, 0): x, (0, 1): y}, push=-1 << 40)
    with pytest.raises(TypeError, match="args="):
        k(groups=2, args=[x])
    with pytest.raises(TypeError, match="groups"):
        k(buffers={(0, 0): x, (0, 1): y}, push=push)
    # a read-only array is fine where the module never writes (readonly X), and
    # same-width integers of either signedness fill an integer binding
    xr = np.ones(n, np.float32)
    xr.flags.writeable = False
    k(groups=2, buffers={(0, 0): xr, (0, 1): y}, push=np.int32(n))
    assert np.all(y == 2.0)


def test_value_arguments(ctx):
    k = spvjit.Module(kernel_path("saxpy.cl.spv"), ctx).kernel("saxpy", specs={0: 1.0})
    n = 64
    x, y = np.arange(n, dtype=np.float32), np.zeros(n, np.float32)
    k(global_size=n, args=[x, y, 10])  # a Python int for `uint n`
    assert np.all(y[:10] == x[:10]) and np.all(y[10:] == 0)
    with pytest.raises(spvjit.BindingError, match="u32 elements but the array's items are f32"):
        k(global_size=n, args={2: np.float32(10)})
    with pytest.raises(TypeError, match="integer"):
        k(global_size=n, args={2: 10.5})
    with pytest.raises(spvjit.BindingError, match="__local"):
        k(global_size=n, args={2: spvjit.Local(4)})


def test_bindings_persist_and_keep_arrays_alive(ctx):
    k = spvjit.Module(kernel_path("saxpy.comp.spv"), ctx).kernel(specs={0: 1.0})
    n = 256
    y = np.zeros(n, np.float32)
    k.bind(buffers={(0, 0): np.ones(n, np.float32), (0, 1): y}, push=np.uint32(n))  # x only referenced by k
    for _ in range(3):
        k(groups=4)
    assert np.all(y == 3.0)


# --- compile ----------------------------------------------------------------------------------------


def test_compile_emits_ir_and_assembly(ctx):
    m = spvjit.Module(kernel_path("saxpy.comp.spv"), ctx)
    llvm = m.compile(specs={0: 0.5}, emit="llvm")
    opt = m.compile(specs={0: 0.5}, emit="opt-llvm")
    asm = spvjit.compile(kernel_path("saxpy.comp.spv"), specs={0: 0.5}, emit="asm")
    assert "define" in llvm and "define" in opt and llvm != opt
    assert "5.000000e-01" in opt  # the spec value is a literal in the code
    assert ".text" in asm and "define" not in asm
    unspec = m.compile(specs={0: 0.5}, emit="opt-llvm", unspecialized=True)
    assert "5.000000e-01" not in unspec
    with pytest.raises(ValueError, match="llvm, opt_llvm, asm"):
        m.compile(emit="bitcode")


# --- the GIL and asynchronous dispatches --------------------------------------------------------------------


def _long_mm(threads=1, n=512):
    c = spvjit.Context(threads=threads, disk_cache_dir="")
    bs = 16
    a = np.random.default_rng(1).random((n, n), dtype=np.float32)
    out = np.zeros((n, n), np.float32)
    k = spvjit.Module(kernel_path("mm.comp.spv"), c).kernel(specs={0: bs})
    k.bind(buffers={(0, 0): a, (0, 1): a, (0, 2): out}, push=np.uint32(n))
    return k, (n // bs, n // bs), a, out


def test_gil_is_released_during_a_dispatch():
    """A Python thread keeps running while another is inside spvjit_dispatch.

    The main thread records timestamps as fast as it can while a worker runs
    single-threaded dispatches of ~30-100 ms.  With the GIL held during the call
    the main thread could run only at its edges (switch latency: a few ms);
    with it released it runs throughout, so the middle half of a dispatch holds
    samples.  (Checked against ctypes.PyDLL, which keeps the GIL: no samples in
    the middle half.)"""
    k, groups, a, out = _long_mm(n=768)
    samples, calls = [], []
    stop = threading.Event()

    def dispatch():
        for _ in range(2):
            t = time.perf_counter()
            k(groups=groups)
            calls.append((t, time.perf_counter()))
        stop.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)
    try:
        worker = threading.Thread(target=dispatch)
        worker.start()
        now = time.perf_counter
        while not stop.is_set():
            samples.append(now())
        worker.join()
    finally:
        sys.setswitchinterval(old)
    middle = [sum(1 for x in samples if s + (e - s) / 4 < x < e - (e - s) / 4) for s, e in calls]
    assert max(middle) > 100, "no progress in the middle of dispatches: %r samples in %r" % (middle, calls)
    np.testing.assert_allclose(out, a @ a, rtol=1e-4, atol=1e-3)


def test_async_dispatch():
    k, groups, a, out = _long_mm(threads=2)
    d = k(groups=groups, wait=False)
    assert isinstance(d, spvjit.Dispatch)
    d.wait()
    assert d.done
    np.testing.assert_allclose(out, a @ a, rtol=1e-4, atol=1e-3)
    d.wait()  # waiting again is harmless
    # the arrays of a dispatch in flight are referenced by it, not only by the caller
    c = spvjit.Context(disk_cache_dir="")
    ks = spvjit.Module(kernel_path("saxpy.comp.spv"), c).kernel(specs={0: 1.0})
    n = 1 << 16
    y = np.zeros(n, np.float32)
    with ks(groups=n // 64, buffers={(0, 0): np.full(n, 3, np.float32), (0, 1): y}, push=np.uint32(n),
            wait=False):
        pass
    assert np.all(y == 3.0)


def test_async_dispatch_error_raised_by_wait(tmp_path):
    # A barrier only some work-items reach: the dispatch fails with a message
    # naming the work-group, reported when waited for.
    path = glsl(tmp_path, """#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer B { uint v[]; };
void main() {
    if (gl_LocalInvocationID.x < v[0])
        barrier();
    v[gl_LocalInvocationID.x + 1] = 1u;
}
""")
    k = spvjit.Module(path, spvjit.Context(disk_cache_dir="")).kernel()
    buf = np.zeros(9, np.uint32)
    buf[0] = 3
    with pytest.raises(spvjit.DispatchError, match="work-group"):
        k(groups=1, buffers={(0, 0): buf})
    d = k(groups=1, wait=False)
    with pytest.raises(spvjit.DispatchError, match="work-group"):
        d.wait()
    buf[0] = 8  # every item reaches the barrier: fine
    k(groups=1)
    assert np.all(buf[1:] == 1)


def test_descriptor_array(tmp_path):
    """A list binds the elements of a descriptor array, element type checked per element."""
    path = glsl(tmp_path, """#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer B { float v[]; } bufs[3];
void main() {
    uint i = gl_GlobalInvocationID.x;
    bufs[0].v[i] = bufs[1].v[i] * bufs[2].v[i];
}
""")
    k = spvjit.Module(path, spvjit.Context(disk_cache_dir="")).kernel()
    (res,) = k.resources
    assert res.key == (0, 0) and res.elem_type == "f32"
    n = 16
    out, a, b = np.zeros(n, np.float32), np.arange(n, dtype=np.float32), np.full(n, -0.5, np.float32)
    k(groups=n // 4, buffers={(0, 0): [out, a, b]})
    np.testing.assert_array_equal(out, a * b)
    with pytest.raises(spvjit.BindingError, match=r"buffers\[\(0, 0\)\]\[2\].*f32 elements"):
        k(groups=1, buffers={(0, 0): [out, a, b.astype(np.float64)]})


# --- the module's facts, specializing, build options of the C API ---------------------------------


def test_module_and_entry_facts(ctx):
    m = spvjit.Module(kernel_path("mm.comp.spv"), ctx)
    info = m.info
    assert (info.flavour, info.addressing_model_name, info.memory_model_name) == ("shader", "Logical", "GLSL450")
    assert "Shader" in info.capabilities and len(info.capabilities) == info.ncapabilities
    (e,) = m.entry_points
    # local_size_x_id = local_size_y_id = 0 (BS, default 16): shared float As[BS*BS], Bs[BS*BS]
    assert (e.name, e.execution_model_name, e.is_compute, e.local_size_kind) == ("main", "GLCompute", True, "spec")
    assert e.local_size == (16, 16, 1) and e.spec_ids == (0, 0, None) and e.wg_memory_bytes == 2 * 16 * 16 * 4
    assert {r.name for r in e.resources} == {"MatA", "MatB", "MatC", "pc"}
    (bs,) = m.spec_constants
    assert bs.what_it_sets == ["local_size_x", "local_size_y", "array_length"]
    cl = spvjit.Module(kernel_path("saxpy.cl.spv"), ctx)
    (e,) = cl.entry_points
    assert (e.execution_model_name, e.local_size_kind, cl.info.addressing_model_name) == ("Kernel", "dispatch",
                                                                                           "Physical64")


def test_specialize_matches_the_command(ctx, tmp_path):
    m = spvjit.Module(kernel_path("mm.comp.spv"), ctx)
    words = m.specialize({0: 8})
    out = tmp_path / "mm8.spv"
    subprocess.run([os.environ.get("SPVJIT_BIN") or os.path.join(SRC_ROOT, "build", "spvjit"), "specialize",
                    kernel_path("mm.comp.spv"), "-D", "0=8", "-o", str(out)], check=True)
    assert words == out.read_bytes()
    s = spvjit.Module(words, ctx, name="mm8")
    assert s.spec_constants == [] and s.entry_points[0].local_size == (8, 8, 1)
    assert s.entry_points[0].local_size_kind == "fixed"
    with pytest.raises(spvjit.SpecConstantError):
        m.specialize({0: -1})


def test_build_options_of_the_c_api():
    c = spvjit.Context(disk_cache_dir="", defaults={"barriers": "fibers"})
    m = spvjit.Module(kernel_path("reduce.comp.spv"), c)
    n, wg = 1000, 64
    src = np.random.default_rng(3).random(n, dtype=np.float32)
    groups = (n + wg - 1) // wg
    want = np.add.reduceat(np.pad(src.astype(np.float64), (0, groups * wg - n)), np.arange(0, groups * wg, wg))
    for opts in ({}, {"barriers": "regions"}, {"subgroup_size": "native"}, {"memory": "robust", "tier": "opt"},
                 {"memory": "check"}, {"memory": "unchecked"}):
        partial = np.zeros(groups, np.float32)
        m.kernel(specs={0: wg}, **opts)(groups=groups, buffers={(0, 0): src, (0, 1): partial}, push=np.uint32(n))
        np.testing.assert_allclose(partial, want, rtol=1e-5, err_msg=str(opts))
    with pytest.raises(ValueError, match="auto, regions, fibers"):
        m.kernel(barriers="threads")
    with pytest.raises(ValueError, match="SPVJIT_SUBGROUP_SIZE_HUGE"):
        m.kernel(subgroup_size="huge")
    with pytest.raises(spvjit.InvalidArgumentError, match="opt_level"):
        m.kernel(opt_level=7)

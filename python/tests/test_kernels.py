"""The seed kernels (mm, saxpy, conv3x3, reduce) in both flavours, called from
Python on numpy arrays and checked against numpy computations."""

import numpy as np
import pytest

import spvjit
from conftest import kernel_path

RNG = np.random.default_rng(20240611)


def rand(*shape):
    return RNG.uniform(-1, 1, size=shape).astype(np.float32)


def close(got, want, rtol=1e-5, scale=None):
    """Float32 results against a float64 reference, relative to the magnitude of the terms summed."""
    scale = np.abs(want).max() if scale is None else scale
    err = np.abs(got.astype(np.float64) - want).max()
    assert err <= rtol * max(scale, 1.0), "max error %g (scale %g)" % (err, scale)


# --- mm: C = A * B, the block size a spec constant ------------------------------------------------


@pytest.mark.parametrize("bs", [8, 16])
def test_mm_comp(ctx, bs):
    n = 100  # not a multiple of the block size: edge tiles load zeros
    a, b = rand(n, n), rand(n, n)
    c = np.full((n, n), np.nan, np.float32)
    k = spvjit.Module(kernel_path("mm.comp.spv"), ctx).kernel(specs={0: bs})
    assert k.stats.local_size == (bs, bs, 1)
    groups = (n + bs - 1) // bs
    k(groups=(groups, groups), buffers={(0, 0): a, (0, 1): b, (0, 2): c}, push=np.uint32(n))
    close(c, a.astype(np.float64) @ b.astype(np.float64), scale=n)


@pytest.mark.parametrize("bs", [4, 16])
def test_mm_cl(ctx, bs):
    n = 70
    a, b = rand(n, n), rand(n, n)
    c = np.zeros((n, n), np.float32)
    k = spvjit.Module(kernel_path("mm.cl.spv"), ctx).kernel("mm", specs={0: bs})
    g = (n + bs - 1) // bs * bs
    k(global_size=(g, g), local_size=(bs, bs), args=[a, b, c, np.uint32(n)])
    close(c, a.astype(np.float64) @ b.astype(np.float64), scale=n)


def test_mm_unspecialized_matches(ctx):
    n, bs = 48, 8
    a, b = rand(n, n), rand(n, n)
    c1, c2 = np.zeros((n, n), np.float32), np.zeros((n, n), np.float32)
    m = spvjit.Module(kernel_path("mm.comp.spv"), ctx)
    for c, opts in ((c1, {}), (c2, {"unspecialized": True})):
        m.kernel(specs={0: bs}, **opts)(groups=(n // bs, n // bs), buffers={(0, 0): a, (0, 1): b, (0, 2): c},
                                        push=np.uint32(n))
    close(c1, a.astype(np.float64) @ b.astype(np.float64), scale=n)
    np.testing.assert_allclose(c1, c2, rtol=1e-5, atol=1e-5)


# --- saxpy: y = a * x + y, a a spec constant --------------------------------------------------------


def test_saxpy_comp(ctx):
    n = 1000
    x, y = rand(n), rand(n)
    y0 = y.copy()
    k = spvjit.Module(kernel_path("saxpy.comp.spv"), ctx).kernel(specs={0: -1.75})
    k(groups=(n + 63) // 64, buffers={(0, 0): x, (0, 1): y}, push=n)  # push: a Python int of the block's type
    close(y, np.float32(-1.75) * x.astype(np.float64) + y0, rtol=1e-6)


def test_saxpy_cl(ctx):
    n = 777
    x, y = rand(n), rand(n)
    y0 = y.copy()
    k = spvjit.Module(kernel_path("saxpy.cl.spv"), ctx).kernel("saxpy", specs={0: np.float32(3.5)})
    k(global_size=n, local_size=64, args=[x, y, n])  # global size not a multiple of 64: OpenCL 2 rules
    close(y, 3.5 * x.astype(np.float64) + y0, rtol=1e-6)


# --- conv3x3: clamp-to-edge 3x3 filter, the nine taps spec constants ---------------------------------


def conv_ref(img, taps):
    h, w = img.shape
    p = np.pad(img.astype(np.float64), 1, mode="edge")
    out = np.zeros((h, w))
    for j in range(3):
        for i in range(3):
            out += taps[j * 3 + i] * p[j : j + h, i : i + w]
    return out


TAPS = [0.5, 0.0, -0.25, 0.0, 1.0, 0.0, -0.125, 0.0, 0.75]


def test_conv3x3_comp(ctx):
    h, w = 37, 53
    img = rand(h, w)
    out = np.zeros_like(img)
    k = spvjit.Module(kernel_path("conv3x3.comp.spv"), ctx).kernel(specs=dict(enumerate(TAPS)))
    k(groups=((w + 15) // 16, (h + 15) // 16), buffers={(0, 0): img, (0, 1): out},
      push=np.array([w, h], np.uint32))
    close(out, conv_ref(img, TAPS), scale=3)


def test_conv3x3_cl(ctx):
    h, w = 29, 41
    img = rand(h, w)
    out = np.zeros_like(img)
    k = spvjit.Module(kernel_path("conv3x3.cl.spv"), ctx).kernel("conv3x3", specs=dict(enumerate(TAPS)))
    k(global_size=(w, h), local_size=(8, 8), args={0: img, 1: out, 2: np.uint32(w), 3: np.uint32(h)})
    close(out, conv_ref(img, TAPS), scale=3)


# --- reduce: work-group tree sums (work-group memory and barriers) ------------------------------------


@pytest.mark.parametrize("wg", [64, 256])
def test_reduce_comp(ctx, wg):
    n = 5000
    src = rand(n)
    groups = (n + wg - 1) // wg
    partial = np.zeros(groups, np.float32)
    k = spvjit.Module(kernel_path("reduce.comp.spv"), ctx).kernel(specs={0: wg})
    k(groups=groups, buffers={(0, 0): src, (0, 1): partial}, push=np.uint32(n))
    want = np.add.reduceat(np.pad(src.astype(np.float64), (0, groups * wg - n)), np.arange(0, groups * wg, wg))
    close(partial, want, scale=wg)


def test_reduce_cl_local_argument(ctx):
    n, lsize = 3000, 128
    src = rand(n)
    groups = (n + lsize - 1) // lsize
    partial = np.zeros(groups, np.float32)
    k = spvjit.Module(kernel_path("reduce.cl.spv"), ctx).kernel("reduce")
    k(global_size=groups * lsize, local_size=lsize,
      args=[src, partial, np.uint32(n), spvjit.Local.of(lsize, np.float32)])
    want = np.add.reduceat(np.pad(src.astype(np.float64), (0, groups * lsize - n)),
                           np.arange(0, groups * lsize, lsize))
    close(partial, want, scale=lsize)
    # A plain byte count works too; the other bindings persist.
    partial[:] = 0
    k.bind(args={3: lsize * 4})
    k(global_size=groups * lsize, local_size=lsize)
    close(partial, want, scale=lsize)

"""spvjit_type names ("f32", "u32", ...) against numpy dtypes and Python buffers."""

import struct
import sys

import numpy as np

# The numpy dtype of each spvjit_type short name (bool is a 32-bit value in
# SPIR-V buffers and spec constants: no numpy dtype matches it).
DTYPES = {
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
}
_FLOAT_PACK = {"f16": "=e", "f32": "=f", "f64": "=d"}


def dtype_of(tname):
    """The numpy dtype of a spvjit type name, or None (mixed or bool)."""
    return DTYPES.get(tname)


def type_of_dtype(dtype):
    """The spvjit type name of a numpy dtype, or None (structured, complex, ...)."""
    dtype = np.dtype(dtype)
    for name, d in DTYPES.items():
        if d == dtype:
            return name
    return None


def buffer_type(view):
    """The spvjit type name of a memoryview's items, None for structured or raw
    items, or 'non-native' for a byte order other than the host's."""
    fmt = view.format
    if len(fmt) == 2 and fmt[0] in "@=<>!":
        if fmt[0] in ">!" and view.itemsize > 1 and sys.byteorder == "little":
            return "non-native"
        fmt = fmt[1:]
    if len(fmt) != 1:
        return None
    if fmt in "efd":
        return {"e": "f16", "f": "f32", "d": "f64"}[fmt]
    if fmt in "bhilq":
        return "i%d" % (8 * view.itemsize)
    if fmt in "BHILQ":
        return "u%d" % (8 * view.itemsize)
    return None


def is_int(tname):
    return tname is not None and tname[0] in "iu"


def compatible(want, got):
    """Whether items of type `got` may fill a binding of element type `want`.
    Integers of the same width match either way: SPIR-V integer types carry no
    signedness in Kernel modules and only a hint in Shader modules."""
    if want == got:
        return True
    return is_int(want) and is_int(got) and want[1:] == got[1:]


def scalar_bytes(tname, value, what):
    """A Python number as the bytes of one `tname` value (host order)."""
    if tname in _FLOAT_PACK:
        if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool):
            raise TypeError("%s: expected a number for %s, got %r" % (what, tname, value))
        try:
            return struct.pack(_FLOAT_PACK[tname], float(value))
        except OverflowError:
            raise OverflowError("%s: %r is out of range for %s" % (what, value, tname)) from None
    if is_int(tname):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
            raise TypeError("%s: expected an integer for %s, got %r" % (what, tname, value))
        bits = int(tname[1:])
        v = int(value)
        # Either signedness's range: see compatible().
        if not -(1 << (bits - 1)) <= v < (1 << bits):
            raise OverflowError("%s: %d is out of range for %s" % (what, v, tname))
        return (v & ((1 << bits) - 1)).to_bytes(bits // 8, sys.byteorder)
    raise TypeError("%s: cannot make a %s value from %r" % (what, tname or "mixed-type", value))

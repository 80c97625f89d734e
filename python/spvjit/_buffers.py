"""Python buffers (numpy arrays, bytes, numbers) as the memory and values the
library takes, checked against what the module declares (a Resource, or an
exported function's ExportValue: anything with elem_type, readonly and label)."""

from . import _types
from ._native import BindingError, ffi


def as_view(obj, what):
    try:
        return memoryview(obj)
    except TypeError:
        raise TypeError("%s: expected a numpy array or another buffer, got %s" % (what, type(obj).__name__)) from None


def check_items(view, res, what):
    """The items of a buffer against the resource's element type."""
    got = _types.buffer_type(view)
    if got == "non-native":
        raise BindingError("%s: the array's byte order is not the host's (use a.astype(a.dtype.newbyteorder('=')))"
                           % what)
    want = res.elem_type if res is not None else None
    if want is None or want == "bool" or _types.compatible(want, got):
        return
    raise BindingError("%s: %s holds %s elements but the array's items are %s; pass a %s array (a.view(np.%s) "
                       "reinterprets the bytes)" % (what, res.label, want, got or "'%s'" % view.format,
                                                    _types.dtype_of(want), _types.dtype_of(want)))


def buffer_pointer(obj, res, what, user="the kernel"):
    """A pointer to the array's memory (no copy) after checking that `user`
    may use it: contiguous, writable unless the module never writes it, items
    of the binding's element type."""
    view = as_view(obj, what)
    if not view.c_contiguous:
        raise BindingError("%s: the array is not C-contiguous (np.ascontiguousarray(a) makes a contiguous copy)" % what)
    if view.readonly and (res is None or not res.readonly):
        raise BindingError("%s: the array is read-only but %s may write %s; pass a writable array"
                           % (what, user, res.label if res else "it"))
    check_items(view, res, what)
    return (ffi.from_buffer(obj) if view.nbytes else ffi.NULL), view.nbytes


def value_bytes(obj, res, what):
    """By-value bytes (push constants, by-value arguments): a buffer (numpy
    scalar or array, bytes) or Python numbers of the resource's element type."""
    want = res.elem_type if res is not None else None
    if isinstance(obj, (bool, int, float)):
        return _types.scalar_bytes(want, obj, what)
    if isinstance(obj, (list, tuple)) and all(isinstance(v, (int, float)) for v in obj):
        return b"".join(_types.scalar_bytes(want, v, what) for v in obj)
    view = as_view(obj, what)
    check_items(view, res, what)
    return view.tobytes()

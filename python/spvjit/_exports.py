"""Exported functions of a Kernel-flavour module (Linkage Export; in OpenCL C
2.0 every non-static function): what they take and return (Export and
ExportValue, spvjit_export_info) and calls over lanes from numpy
(spvjit_call_exported), every argument checked against the signature."""

import operator

import numpy as np

from . import _buffers, _structs, _types
from ._native import BindingError, check, ffi, lib


def _value_dtype(self):
    if self.kind == "scalar":
        return np.dtype(np.bool_) if self.type == "bool" else _types.dtype_of(self.type)
    if self.kind == "pointer":
        return _types.dtype_of(self.elem_type)
    return None


def _value_label(self):
    return "%r (%s)" % (self.name, self.type_name) if self.name else self.type_name


ExportValue = _structs.dataclass_for(
    "spvjit_export_value",
    "ExportValue",
    """A parameter or the result of an exported function (spvjit_export_value):
    name (the parameter's, or None), kind ('scalar', 'pointer', 'void', or
    'other': what host C cannot pass), type ('f32', 'u32', 'bool', ...: Kernel
    integers carry no signedness), size (bytes of one value), type_name; for
    pointers storage_class ('CrossWorkgroup', 'Generic', ...), elem_type (the
    pointee's scalar, or None) and readonly.  `dtype` is the numpy dtype of
    its values (pointers: of the elements pointed to), or None.""",
    namespace={"dtype": property(_value_dtype), "label": property(_value_label)},
)


def _signature(self):
    params = ", ".join(p.type_name + (" " + p.name if p.name else "") for p in self.params)
    return "%s %s(%s)" % (self.result.type_name, self.name, params)


Export = _structs.dataclass_for(
    "spvjit_export_info",
    "Export",
    """An exported function (spvjit_export_info): name, result and params
    (ExportValue), and `unsupported`, why host C cannot call it (None when it
    can; `callable` says the same).  `signature` reads like its C prototype.""",
    namespace={"callable": property(lambda self: self.unsupported is None), "signature": property(_signature)},
    convert={
        "result": lambda c: ExportValue.from_c(c.result),
        "params": lambda c: tuple(ExportValue.from_c(c.params[i]) for i in range(c.nparams)),
    },
)


def exports_of(module_ptr):
    info = ffi.new("spvjit_export_info *")
    out = []
    for i in range(lib.spvjit_module_export_count(module_ptr)):
        check(lib.spvjit_module_export_info(module_ptr, i, info))
        out.append(Export.from_c(info))
    return tuple(out)


# --- calls ----------------------------------------------------------------------------------


def _check_dtype(dtype, p, what, label=None):
    """An array's dtype against the parameter's (or result's) scalar type:
    the same type, or for integers the same width in either signedness."""
    dtype = np.dtype(dtype)
    label = label or p.label
    if p.type == "bool":
        if dtype == np.bool_:
            return
        raise BindingError("%s: %s takes bool values but the array's dtype is %s; pass a bool array (a != 0)"
                           % (what, label, dtype))
    got = _types.type_of_dtype(dtype)
    if got is None and dtype.byteorder in "<>" and _types.type_of_dtype(dtype.newbyteorder("=")):
        raise BindingError("%s: the array's byte order is not the host's (use a.astype(a.dtype.newbyteorder('=')))"
                           % what)
    if got is None or not _types.compatible(p.type, got):
        raise BindingError("%s: %s takes %s values but the array's dtype is %s; pass a %s array (a.astype(np.%s) "
                           "converts)" % (what, label, p.type, dtype, p.dtype, p.dtype))


def _scalar_arg(p, obj, what):
    """A scalar argument: (a contiguous 1-D array, its length) for varying
    values, or (the value's bytes, None) for a uniform one."""
    if isinstance(obj, np.ndarray) and obj.ndim > 0:
        if obj.ndim != 1:
            raise BindingError("%s: a varying argument is a 1-D array (one value per lane); got shape %s"
                               % (what, obj.shape))
        _check_dtype(obj.dtype, p, what)
        return np.ascontiguousarray(obj), len(obj)
    if isinstance(obj, (np.generic, np.ndarray)):  # a numpy scalar keeps its own type
        _check_dtype(obj.dtype, p, what)
        return np.asarray(obj).tobytes(), None
    if p.type == "bool":
        if isinstance(obj, bool):
            return bytes([obj]), None
        raise TypeError("%s: %s takes a bool, got %r" % (what, p.label, obj))
    return _types.scalar_bytes(p.type, obj, what), None


def _pointer_arg(p, obj, what, user, keep):
    """A pointer argument: an array's address (uniform), or a list of arrays,
    one address per lane (varying).  Returns (void *[k] cdata, k or None)."""
    many = isinstance(obj, (list, tuple))
    objs = obj if many else (obj,)
    cells = ffi.new("void *[]", max(len(objs), 1))
    for i, o in enumerate(objs):
        ptr, _ = _buffers.buffer_pointer(o, p, "%s[%d]" % (what, i) if many else what, user)
        keep.append(ptr)
        cells[i] = ptr
    return cells, (len(objs) if many else None)


def _result_array(r, lanes, out, what):
    if out is None:
        return np.empty(lanes, r.dtype)
    if not isinstance(out, np.ndarray) or out.ndim != 1 or len(out) != lanes:
        raise BindingError("%s: out= takes a 1-D array of %d results; got %s" % (
            what, lanes, "shape %s" % (out.shape,) if isinstance(out, np.ndarray) else type(out).__name__))
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise BindingError("%s: out= must be a writable C-contiguous array" % what)
    _check_dtype(out.dtype, r, what + ": out=", "the result (%s)" % r.type_name)
    return out


def call(module, name, args, lanes, specs, out):
    """Module.call: see there."""
    if not isinstance(name, str):
        raise TypeError("call: the function's name is a str, got %r" % (name,))
    ex = module._exports_by_name().get(name)
    cname = name.encode()
    specs_ptr = module._specs(specs) if specs else ffi.NULL
    if ex is None or not ex.callable:
        # the library's own refusal (unknown name, or what host C cannot pass), before any argument
        check(lib.spvjit_call_exported(module._ptr, cname, specs_ptr, 0, ffi.NULL, 0, ffi.NULL, 0), name)
        raise AssertionError("spvjit_call_exported accepted %r" % name)
    what = name
    if len(args) != len(ex.params):
        raise TypeError("%s takes %d argument%s (%s); %d given" % (
            ex.signature, len(ex.params), "" if len(ex.params) == 1 else "s",
            ", ".join(p.name or p.type_name for p in ex.params), len(args)))
    keep, data, counts = [], [], []
    for i, (p, obj) in enumerate(zip(ex.params, args)):
        label = "%s argument %d" % (what, i)
        if p.kind == "pointer":
            d, n = _pointer_arg(p, obj, label, '"%s"' % name, keep)
        else:
            d, n = _scalar_arg(p, obj, label)
        data.append(d)
        counts.append(n)
    lengths = {n for n in counts if n is not None}
    single = lanes is None and not lengths
    if lanes is None:
        if len(lengths) > 1:
            raise BindingError("%s: varying arguments of different lengths (%s)" % (
                what, ", ".join("argument %d: %d" % (i, n) for i, n in enumerate(counts) if n is not None)))
        lanes = lengths.pop() if lengths else 1
    else:
        lanes = operator.index(lanes)
        if not 0 <= lanes < 2 ** 32:
            raise ValueError("%s: lanes=%d is out of range" % (what, lanes))
        for i, n in enumerate(counts):
            if n is not None and n != lanes:
                raise BindingError("%s argument %d: %d values for %d lanes" % (what, i, n, lanes))
    cargs = ffi.new("spvjit_call_arg[]", max(len(args), 1))
    for i, (p, d, n) in enumerate(zip(ex.params, data, counts)):
        buf = d if p.kind == "pointer" else ffi.from_buffer(d)
        keep.append(buf)
        cargs[i].data = buf
        cargs[i].size = (n if n is not None else 1) * p.size
        cargs[i].varying = n is not None
    if ex.result.kind == "void":
        if out is not None:
            raise TypeError("%s returns nothing: out= has no use" % ex.signature)
        results, rptr, rsize = None, ffi.NULL, 0
    else:
        results = _result_array(ex.result, lanes, out, what)
        rptr, rsize = (ffi.from_buffer(results) if results.nbytes else ffi.NULL), results.nbytes
    check(lib.spvjit_call_exported(module._ptr, cname, specs_ptr, lanes, cargs, len(args), rptr, rsize), name)
    del keep  # the arrays were referenced until the call returned
    if results is None:
        return None
    return results[0] if single else results

"""spvjit: run SPIR-V compute kernels on the CPU from Python, numpy arrays in place.

    import numpy as np, spvjit
    k = spvjit.Module("saxpy.comp.spv").kernel(specs={0: 2.5})      # SpecId 0 = 2.5, compiled in
    k(groups=(n + 63) // 64, buffers={(0, 0): x, (0, 1): y}, push=np.uint32(n))

A thin layer over libspvjit (lib/spvjit.h) through cffi: a Module is a loaded,
validated .spv; module.kernel() builds (or finds in the library's cache, keyed by
the values) one entry point; calling the kernel binds the arrays given (no copy:
the kernel reads and writes them in place) and runs one dispatch, Vulkan style
(groups=, buffers={(set, binding): array}, push=) or OpenCL style (global_size=,
local_size=, args=[...]).  module.exports lists the exported functions of an
OpenCL module with their signatures and module.call("name", *args) runs one
over numpy lanes.  Every failure raises the exception class of its
spvjit_status with the library's message; dispatches and calls release the
GIL.
"""

import os
import struct
import sys
import threading
from dataclasses import dataclass

import numpy as np

from . import _buffers, _exports, _structs, _types
from ._exports import Export, ExportValue  # noqa: F401 - the dataclasses are the package's API
from ._native import (  # noqa: F401 - the exception classes are the package's API
    BindingError,
    CancelledError,
    DispatchError,
    Error,
    InvalidArgumentError,
    InvalidModuleError,
    IoError,
    LimitError,
    MemoryCheckError,
    NotFoundError,
    OutOfMemoryError,
    SpecConstantError,
    TimeoutError,
    UnsupportedError,
    check,
    error_for,
    errors,
    ffi,
    lib,
    library_path,
)

__version__ = ffi.string(lib.spvjit_version()).decode()

__all__ = [
    "Context",
    "Module",
    "Kernel",
    "Dispatch",
    "Local",
    "Resource",
    "SpecConstant",
    "EntryPoint",
    "ModuleInfo",
    "KernelStats",
    "Export",
    "ExportValue",
    "compile",
    "default_context",
    "Error",
] + sorted({c.__name__ for c in errors.values()})


def _cstr(s):
    return ffi.NULL if s is None else s.encode()


# --- context ------------------------------------------------------------------------------


class Context:
    """Worker threads and the kernel caches.  Options are the fields of
    spvjit_context_options: threads (0: $SPVJIT_THREADS or all cores),
    cache_bytes (0: 256 MiB), disk_cache_dir (None: $XDG_CACHE_HOME/spvjit,
    "": no disk cache), defaults (a dict of build options every kernel of the
    context gets unless it sets them)."""

    def __init__(self, **options):
        keep = []
        opts = _structs.fill("spvjit_context_options", options, "Context", keep)
        out = ffi.new("spvjit_context **")
        check(lib.spvjit_context_create(opts, out))
        self._ptr = ffi.gc(out[0], lib.spvjit_context_destroy)
        self.options = dict(options)

    def __repr__(self):
        return "spvjit.Context(%s)" % ", ".join("%s=%r" % kv for kv in self.options.items())


_default_context = None
_default_lock = threading.Lock()


def default_context():
    """The context modules use when none is given (created on first use)."""
    global _default_context
    with _default_lock:
        if _default_context is None:
            _default_context = Context()
        return _default_context


# --- reflection ---------------------------------------------------------------------------


def _resource_key(self):
    if self.kind in ("storage_buffer", "uniform_buffer"):
        return (self.set, self.binding)
    if self.kind == "push_constants":
        return "push"
    return self.index


def _resource_label(self):
    if self.kind in ("storage_buffer", "uniform_buffer"):
        where = "binding %d:%d" % (self.set, self.binding)
    elif self.kind == "push_constants":
        where = "push constants"
    else:
        where = "argument %d" % self.index
    return where + (" (%r)" % self.name if self.name else "")


Resource = _structs.dataclass_for(
    "spvjit_resource_info",
    "Resource",
    """One thing an entry point exchanges with the host (spvjit_resource_info):
    kind ('storage_buffer', 'uniform_buffer', 'push_constants', 'arg_pointer',
    'arg_local', 'arg_value'), name, index (kernel argument), set and binding,
    size (bytes of the fixed part), stride (of a trailing runtime array),
    elem_type ('f32', ...; None when the members differ), readonly.""",
    namespace={
        "dtype": property(lambda self: _types.dtype_of(self.elem_type), doc="numpy dtype of the elements, or None"),
        "key": property(_resource_key, doc="(set, binding), the argument index, or 'push'"),
        "label": property(_resource_label),
    },
)


def _decode_bits(tname, bits):
    if tname == "bool":
        return bool(bits)
    if tname in ("f16", "f32", "f64"):
        fmt, width = {"f16": ("<e", 2), "f32": ("<f", 4), "f64": ("<d", 8)}[tname]
        return struct.unpack(fmt, bits.to_bytes(8, "little")[:width])[0]
    if tname and tname[0] == "i":
        w = int(tname[1:])
        bits &= (1 << w) - 1
        return bits - (1 << w) if bits >> (w - 1) else bits
    return bits


SpecConstant = _structs.dataclass_for(
    "spvjit_spec_info",
    "SpecConstant",
    """A specialization constant (spvjit_spec_info): spec_id, name, type ('u32',
    'f32', 'bool', ...), default_bits; `default` is the default value.""",
    namespace={"default": property(lambda self: _decode_bits(self.type, self.default_bits))},
)

KernelStats = _structs.dataclass_for(
    "spvjit_kernel_stats",
    "KernelStats",
    """The compile behind a kernel (spvjit_kernel_stats): from_cache, lower_ms,
    passes_ms, codegen_ms, total_ms, wg_memory_bytes, uses_barriers, local_size,
    subgroup_size (the SIMD lanes a sub-group runs on; 1: one work-item at a time),
    and its tiers: tier, opt_pending, opt_ready_ms, dispatch_tier,
    quick_dispatches, opt_dispatches; fallback_groups (memory robust: work-groups
    the optimized code could not prove in bounds, run on the checked quick code).""",
)


def _spec_sets(self):
    names = _structs.enum_names("spvjit_spec_sets")
    return [n for v, n in sorted(names.items()) if self.sets & v]


SpecConstant.what_it_sets = property(_spec_sets, doc="what the value decides: 'local_size_x', 'array_length', ...")


def _spec_ids(self):
    return tuple(None if i == lib.SPVJIT_NO_SPEC_ID else i for i in self.local_size_spec_id)


EntryPoint = _structs.dataclass_for(
    "spvjit_entry_info",
    "EntryPoint",
    """An entry point (spvjit_entry_info): name, execution_model(_name),
    is_compute, local_size_kind ('fixed', 'spec': set by spec constants,
    'dispatch': chosen at dispatch), local_size (at the module's defaults),
    local_size_spec_id, wg_memory_bytes; and its interface, `resources`.""",
    namespace={"spec_ids": property(_spec_ids, doc="the SpecId setting each local size dimension, or None")},
    extra_fields=[("resources", tuple, ())],
)

ModuleInfo = _structs.dataclass_for(
    "spvjit_module_info",
    "ModuleInfo",
    """What a module declares (spvjit_module_info): flavour, spirv_major,
    spirv_minor, addressing and memory model (numbers and names),
    ncapabilities; and `capabilities`, their names.""",
    extra_fields=[("capabilities", tuple, ())],
)


@dataclass(frozen=True)
class Local:
    """The size in bytes of a __local (work-group memory) kernel argument."""

    nbytes: int

    @classmethod
    def of(cls, count, dtype=np.float32):
        """Room for `count` elements of `dtype`."""
        return cls(int(count) * np.dtype(dtype).itemsize)


# --- modules ------------------------------------------------------------------------------


class Module:
    """A loaded and validated SPIR-V module: Module("k.spv") or Module(spv_bytes).

    `context` defaults to default_context(); `name` names a module given as
    bytes in messages."""

    def __init__(self, source, context=None, name=None):
        self.context = context or default_context()
        out = ffi.new("spvjit_module **")
        if isinstance(source, (str, os.PathLike)):
            self.name = os.fspath(source)
            check(lib.spvjit_module_load_file(self.context._ptr, os.fsencode(source), out))
        else:
            try:
                view = memoryview(source)
            except TypeError:
                raise TypeError("Module: expected a path or the module's bytes, got %s" % type(source).__name__) from None
            data = view.tobytes() if not view.c_contiguous else source
            self.name = name or "<bytes>"
            check(lib.spvjit_module_load(self.context._ptr, ffi.from_buffer(data), view.nbytes, _cstr(self.name), out))
        self._ptr = ffi.gc(out[0], lib.spvjit_module_destroy)
        self._exports = None

    def __repr__(self):
        return "spvjit.Module(%r)" % self.name

    @property
    def flavour(self):
        """'shader' (Vulkan) or 'kernel' (OpenCL)."""
        return _structs.enum_names("spvjit_flavour")[lib.spvjit_module_flavour(self._ptr)]

    @property
    def entry_names(self):
        return [ffi.string(lib.spvjit_module_entry_name(self._ptr, i)).decode()
                for i in range(lib.spvjit_module_entry_count(self._ptr))]

    @property
    def info(self):
        """What the module declares (ModuleInfo): SPIR-V version, models, capabilities."""
        mi = ffi.new("spvjit_module_info *")
        check(lib.spvjit_module_info_get(self._ptr, mi))
        caps = tuple(ffi.string(lib.spvjit_module_capability(self._ptr, i)).decode()
                     for i in range(mi.ncapabilities))
        return ModuleInfo.from_c(mi, capabilities=caps)

    @property
    def entry_points(self):
        """Every entry point with its local size and interface (compute ones; others have none)."""
        eps = []
        e = ffi.new("spvjit_entry_info *")
        for i in range(lib.spvjit_module_entry_count(self._ptr)):
            check(lib.spvjit_module_entry_info(self._ptr, i, e))
            res = tuple(self.resources(ffi.string(e.name).decode())) if e.is_compute else ()
            eps.append(EntryPoint.from_c(e, resources=res))
        return eps

    @property
    def spec_constants(self):
        info = ffi.new("spvjit_spec_info *")
        out = []
        for i in range(lib.spvjit_module_spec_count(self._ptr)):
            check(lib.spvjit_module_spec_info(self._ptr, i, info))
            out.append(SpecConstant.from_c(info))
        return out

    def resources(self, entry=None):
        """The interface of `entry` (None: the only/first compute entry point)."""
        info = ffi.new("spvjit_resource_info *")
        n = lib.spvjit_module_resource_count(self._ptr, _cstr(entry))
        if n == 0:
            st = lib.spvjit_module_resource_info(self._ptr, _cstr(entry), 0, info)
            if st not in (0, lib.SPVJIT_ERROR_INVALID_ARGUMENT):  # no such entry, not compute
                check(st)
        out = []
        for i in range(n):
            check(lib.spvjit_module_resource_info(self._ptr, _cstr(entry), i, info))
            out.append(Resource.from_c(info))
        return out

    @property
    def exports(self):
        """The exported functions (Linkage Export: in OpenCL C 2.0 every
        non-static function) with their signatures, as Export dataclasses;
        call() runs them."""
        return list(self._exports_by_name().values())

    def _exports_by_name(self):
        if self._exports is None:  # a module never changes: reflect once
            self._exports = {e.name: e for e in _exports.exports_of(self._ptr)}
        return self._exports

    def call(self, name, *args, lanes=None, specs=None, out=None):
        """Runs exported function `name` for `lanes` lanes (one after another,
        without the GIL) and returns its results as a numpy array of the
        result's dtype (None for a void function).

        Each argument is uniform (one value for every lane: a Python number, a
        numpy scalar) or varying (a 1-D numpy array of `lanes` values); dtypes
        must be the parameter's (integers: the same width, either signedness;
        bool: a bool array).  A pointer parameter takes an array (its address:
        the function reads and writes it in place, so it must be writable
        unless the parameter is read-only, C-contiguous, of the pointee's
        element type, and large enough for what the function does), or a list
        of `lanes` arrays, one address per lane.  `lanes` defaults to the
        length of the varying arrays; with none, the function runs once and a
        numpy scalar is returned.  `out=` gives the array for the results (e.g.
        np.int32 for a Kernel integer, which reflects as unsigned); `specs`
        the spec-constant values ({SpecId: value}) it is compiled with (the
        library caches the compiled function by them)."""
        return _exports.call(self, name, args, lanes, specs, out)

    def _specs(self, specs):
        """A spvjit_specs from {spec_id: value}.  Python numbers and strings go
        through the library's text rule (the value takes the constant's type, as
        `-D ID=VALUE` does); numpy scalars keep their own type, which must match
        the constant's."""
        out = ffi.new("spvjit_specs **")
        check(lib.spvjit_specs_create(out))
        s = ffi.gc(out[0], lib.spvjit_specs_destroy)
        for sid, value in (specs or {}).items():
            what = "specs[%r]" % (sid,)
            if not isinstance(sid, int) or isinstance(sid, bool) or sid < 0:
                raise TypeError("%s: a SpecId is a non-negative integer" % what)
            if isinstance(value, (np.bool_, np.number)):
                tname = "bool" if isinstance(value, np.bool_) else _types.type_of_dtype(value.dtype)
                if tname is None:
                    raise TypeError("%s: a %s value cannot be a spec constant" % (what, value.dtype))
                bits = int(value) if tname == "bool" else int.from_bytes(value.tobytes(), sys.byteorder)
                ttype = _structs.enum_value(ffi.typeof("spvjit_type"), tname, what)
                check(lib.spvjit_spec_set(s, sid, ttype, bits), what)
            elif isinstance(value, (bool, int, float, str)):
                text = ("true" if value else "false") if isinstance(value, bool) else (
                    repr(value) if isinstance(value, float) else str(value))
                check(lib.spvjit_spec_set_text(s, sid, text.encode()), what)
            else:
                raise TypeError("%s: expected a number, a numpy scalar or the text form, got %r" % (what, value))
        return s

    def specialize(self, specs=None):
        """The module with `specs` folded in, as validated SPIR-V (bytes): every
        spec constant a constant, as `spvjit specialize` writes it."""
        words, n = ffi.new("uint32_t **"), ffi.new("size_t *")
        check(lib.spvjit_module_specialize(self._ptr, self._specs(specs), words, n))
        try:
            return bytes(ffi.buffer(words[0], n[0] * 4))
        finally:
            lib.spvjit_free(words[0])

    def kernel(self, entry=None, specs=None, **options):
        """Builds entry point `entry` (None: the only/first compute one) with the
        spec-constant values `specs` ({SpecId: value}; unset ones keep their
        defaults).  The library caches compiled code by module, entry, values
        and options: building the same values again costs a lookup.  Options are
        the fields of spvjit_build_options (local_size=(x, y, z),
        unspecialized=True, opt_level=0..3, barriers="fibers", memory="robust",
        subgroup_size="native", ...; see lib/spvjit.h)."""
        return Kernel(self, entry, specs, options)

    def compile(self, entry=None, specs=None, emit="asm", **options):
        """The text of the compiled entry point: emit='llvm' (LLVM IR as
        lowered), 'opt-llvm' (after the optimization passes) or 'asm' (host
        assembly).  Options as for kernel()."""
        keep = []
        what = _structs.enum_value(ffi.typeof("spvjit_emit_kind"), emit, "compile: emit")
        opts = _structs.fill("spvjit_build_options", options, "compile", keep)
        text = ffi.new("char **")
        check(lib.spvjit_kernel_emit(self._ptr, _cstr(entry), self._specs(specs), opts, what, text))
        try:
            return ffi.string(text[0]).decode("utf-8", "replace")
        finally:
            lib.spvjit_free(text[0])


def compile(source, entry=None, specs=None, emit="asm", **options):  # noqa: A001 - spvjit.compile
    """Module(source).compile(entry, specs, emit, **options)."""
    module = source if isinstance(source, Module) else Module(source)
    return module.compile(entry, specs, emit, **options)


# --- kernels and dispatches -------------------------------------------------------------------


class Kernel:
    """An entry point compiled with some spec-constant values, and its bindings.

    Call it to run one dispatch.  Bindings persist between calls (the arrays
    are referenced until rebound), so a call need only give what changed."""

    def __init__(self, module, entry, specs, options):
        self.module = module
        self.entry = entry
        self.specs = dict(specs or {})
        self.options = dict(options)
        keep = []
        opts = _structs.fill("spvjit_build_options", options, "kernel", keep)
        out = ffi.new("spvjit_kernel **")
        check(lib.spvjit_kernel_build(module._ptr, _cstr(entry), module._specs(specs), opts, out))
        self._ptr = ffi.gc(out[0], lib.spvjit_kernel_destroy)
        self.resources = module.resources(entry)
        self._by_key = {r.key: r for r in self.resources}
        self._bound = {}
        self._lock = threading.Lock()

    def __repr__(self):
        return "spvjit.Kernel(%r, entry=%r, specs=%r)" % (self.module.name, self.entry, self.specs)

    @property
    def stats(self):
        """The compile behind this kernel (KernelStats)."""
        st = ffi.new("spvjit_kernel_stats *")
        check(lib.spvjit_kernel_stats_get(self._ptr, st))
        return KernelStats.from_c(st)

    # -- bindings

    def _bind_one_buffer(self, set_, binding, element, obj, res, what):
        ptr, nbytes = _buffers.buffer_pointer(obj, res, what)
        if element is None:
            st = lib.spvjit_bind_buffer(self._ptr, set_, binding, ptr, nbytes)
        else:
            st = lib.spvjit_bind_buffer_element(self._ptr, set_, binding, element, ptr, nbytes)
        check(st, what)

    def _bind_buffers(self, buffers):
        for key, obj in buffers.items():
            if not (isinstance(key, tuple) and len(key) == 2):
                raise TypeError("buffers: keys are (set, binding) pairs, got %r" % (key,))
            what = "buffers[%r]" % (key,)
            res = self._by_key.get(key)
            if isinstance(obj, (list, tuple)):  # a descriptor array, element by element
                for e, o in enumerate(obj):
                    self._bind_one_buffer(key[0], key[1], e, o, res, "%s[%d]" % (what, e))
            else:
                self._bind_one_buffer(key[0], key[1], None, obj, res, what)
            self._bound[key] = obj

    def _bind_args(self, args):
        items = args.items() if isinstance(args, dict) else enumerate(args)
        for i, obj in items:
            what = "args[%d]" % i
            res = self._by_key.get(i)
            kind = res.kind if res else None
            if kind == "arg_local":
                nbytes = obj.nbytes if isinstance(obj, Local) else obj
                if not isinstance(nbytes, (int, np.integer)) or isinstance(nbytes, bool):
                    raise BindingError("%s: %s is a __local argument: give its size in bytes (an int or "
                                       "spvjit.Local)" % (what, res.label))
                check(lib.spvjit_set_arg_local(self._ptr, i, int(nbytes)), what)
            elif isinstance(obj, Local):
                raise BindingError("%s: spvjit.Local sizes a __local argument; this is %s"
                                   % (what, res.label if res else "no argument of the kernel"))
            elif kind == "arg_value":
                data = _buffers.value_bytes(obj, res, what)
                check(lib.spvjit_set_arg_value(self._ptr, i, ffi.from_buffer(data), len(data)), what)
            else:  # a pointer argument, or an index the module lacks (the library says so)
                ptr, nbytes = _buffers.buffer_pointer(obj, res, what)
                check(lib.spvjit_set_arg_buffer(self._ptr, i, ptr, nbytes), what)
            self._bound[i] = obj

    def _bind(self, buffers, push, args):
        flavour = self.module.flavour
        if buffers and flavour == "kernel":
            raise TypeError("buffers=: %s is an OpenCL (Kernel) module: give its arguments with args=[...]"
                            % self.module.name)
        if args and flavour == "shader":
            raise TypeError("args=: %s is a Vulkan (Shader) module: give buffers={(set, binding): array} and push="
                            % self.module.name)
        if buffers:
            self._bind_buffers(buffers)
        if args:
            self._bind_args(args)
        if push is not None:
            data = _buffers.value_bytes(push, self._by_key.get("push"), "push")
            check(lib.spvjit_set_push_constants(self._ptr, ffi.from_buffer(data), len(data)), "push")

    def bind(self, buffers=None, push=None, args=None):
        """Sets bindings without dispatching (see __call__)."""
        with self._lock:
            self._bind(buffers, push, args)

    # -- dispatches

    def __call__(self, groups=None, *, buffers=None, push=None, args=None, global_size=None, local_size=None,
                 wait=True, **dispatch):
        """Binds what is given and runs one dispatch.

        Vulkan style: groups=(x, y, z) work-group counts (an int is (x, 1, 1)),
        buffers={(set, binding): array} (a list binds a descriptor array), push=
        (a numpy scalar or array, bytes, or Python numbers of the block's type).
        OpenCL style: global_size=, local_size= (None: the kernel's or one spvjit
        chooses), args=[...] (or {index: ...}): arrays for pointer arguments,
        numpy scalars or Python numbers for by-value ones, byte counts (or
        spvjit.Local) for __local ones.  Other keywords are fields of
        spvjit_dispatch_info (base_group=, global_offset=, ...).

        Arrays are used in place: the kernel's writes land in them.  With
        wait=False the dispatch runs in the background and a Dispatch is
        returned; its wait() returns when it is done (or raises its error)."""
        fields = dict(dispatch)
        if global_size is not None:
            if groups is not None:
                raise TypeError("groups= (Vulkan style) and global_size= (OpenCL style) exclude each other")
            gs = (global_size,) if isinstance(global_size, int) else tuple(global_size)
            fields.update(work_dim=len(gs), global_size=gs, local_size=local_size)
        elif groups is not None:
            if local_size is not None:
                raise TypeError("local_size= goes with global_size= (with groups= the local size is the kernel's)")
            fields["groups"] = groups
        else:
            raise TypeError("give groups= (work-group counts) or global_size= (work-items)")
        info = _structs.fill("spvjit_dispatch_info", fields, "dispatch")
        with self._lock:
            self._bind(buffers, push, args)
            if wait:
                check(lib.spvjit_dispatch(self._ptr, info), "dispatch")
                return None
            ev = ffi.new("spvjit_event **")
            check(lib.spvjit_dispatch_async(self._ptr, info, ev), "dispatch")
            return Dispatch(ev[0], tuple(self._bound.values()))

    dispatch = __call__


class Dispatch:
    """A dispatch running in the background (Kernel(..., wait=False)).  The
    arrays it uses are referenced until it is waited for."""

    def __init__(self, event, keep):
        self._event = event
        self._keep = keep
        self._error = None
        self._lock = threading.Lock()

    def wait(self):
        """Waits for the dispatch (without holding the GIL) and raises its error, if any."""
        with self._lock:
            if self._event is not None:
                ev, self._event = self._event, None
                st = lib.spvjit_event_wait(ev)
                self._keep = None
                if st != 0:
                    self._error = error_for(st, "dispatch")
        if self._error is not None:
            raise self._error

    @property
    def done(self):
        """Whether wait() has returned."""
        return self._event is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.wait()

    def __del__(self):
        # The arrays must outlive the dispatch: never let it run on unreferenced memory.
        if getattr(self, "_event", None) is not None:
            try:
                self.wait()
            except Error:
                pass

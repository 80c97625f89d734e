"""C structs of spvjit.h to and from Python, by field name.

Options (spvjit_context_options, spvjit_build_options, spvjit_dispatch_info)
are filled from keyword arguments named like their fields, and reflection
structs (spvjit_resource_info, spvjit_spec_info, spvjit_kernel_stats,
spvjit_export_info) become frozen dataclasses with the same fields: a field
added to the C struct (and its line to _cdef.py) is a keyword argument or an
attribute in Python with no other change.  Enums are given and read as their
short lower-case names ("f32", "storage_buffer", "opt_llvm"); fixed arrays as
tuples; an integer field also takes the name of its SPVJIT_<FIELD>_<NAME>
constant (subgroup_size="native").
"""

import dataclasses
import os

from ._native import ffi, lib


def _enum_prefix(ctype):
    names = list(ctype.relements)
    prefix = os.path.commonprefix(names)
    return prefix[: prefix.rfind("_") + 1]


def enum_names(ctype_name):
    """{value: short name} of an enum type: SPVJIT_TYPE_F32 -> 'f32'."""
    ctype = ffi.typeof(ctype_name)
    cut = len(_enum_prefix(ctype))
    return {v: n[cut:].lower() for n, v in ctype.relements.items()}


def enum_value(ctype, value, what):
    """An enumerator from its short name (any case, '-' for '_'), full name or value."""
    if isinstance(value, str):
        rel = ctype.relements
        full = value if value in rel else _enum_prefix(ctype) + value.upper().replace("-", "_")
        if full not in rel:
            cut = len(_enum_prefix(ctype))
            known = ", ".join(n[cut:].lower() for n, _ in sorted(rel.items(), key=lambda kv: kv[1]))
            raise ValueError("%s: unknown value %r (one of: %s)" % (what, value, known))
        return rel[full]
    if int(value) not in ctype.elements:
        raise ValueError("%s: %r is not a %s" % (what, value, ctype.cname))
    return int(value)


def _fields(ctype_name):
    return dict(ffi.typeof(ctype_name).fields)


# Array fields that are sizes (work-group counts, global and local sizes) pad a
# shorter sequence with 1, the rest (offsets) with 0.
def _pad_value(field):
    return 1 if field.endswith("size") or field == "groups" else 0


def fill(ctype_name, options, what, keep=None):
    """A new `ctype_name *` with the fields given in `options` (a dict); the
    rest zero, as the C API documents for a zeroed struct.  A nested struct
    field takes a dict.  Objects that must outlive the struct (strings) are
    appended to `keep`."""
    p = ffi.new(ctype_name + " *")
    _fill_into(p[0], ffi.typeof(ctype_name), options, what, keep)
    return p


def _fill_into(target, ctype, options, what, keep):
    fields = dict(ctype.fields)
    for name, value in options.items():
        if name not in fields:
            raise TypeError("%s: unknown option %r (options: %s)" % (what, name, ", ".join(fields)))
        if value is None:
            continue
        ftype = fields[name].type
        label = "%s option %s" % (what, name)
        if ftype.kind == "struct":
            if not isinstance(value, dict):
                raise TypeError("%s: expected a dict of %s fields, got %r" % (label, ftype.cname, value))
            _fill_into(getattr(target, name), ftype, value, label, keep)
        elif ftype.kind == "array":
            seq = (value,) if isinstance(value, int) else tuple(value)
            if not 1 <= len(seq) <= ftype.length:
                raise ValueError("%s: expected 1 to %d values, got %r" % (label, ftype.length, value))
            seq = seq + (_pad_value(name),) * (ftype.length - len(seq))
            try:
                setattr(target, name, seq)
            except (OverflowError, TypeError) as e:
                raise ValueError("%s: %r: %s" % (label, value, e)) from None
        elif ftype.kind == "enum":
            setattr(target, name, enum_value(ftype, value, label))
        elif ftype.kind == "pointer" and ftype.item.cname == "char":
            s = ffi.new("char[]", os.fsencode(value))
            if keep is not None:
                keep.append(s)
            setattr(target, name, s)
        else:
            if isinstance(value, str):  # a named value of an integer field: SPVJIT_<FIELD>_<NAME>
                macro = "SPVJIT_%s_%s" % (name.upper(), value.upper().replace("-", "_"))
                if not hasattr(lib, macro):
                    raise ValueError("%s: %r is not a number (and spvjit.h has no %s)" % (label, value, macro))
                value = getattr(lib, macro)
            try:
                setattr(target, name, value)
            except (OverflowError, TypeError) as e:
                raise ValueError("%s: %r: %s" % (label, value, e)) from None


def to_python(value, ctype):
    if ctype.kind == "enum":
        return enum_names(ctype.cname).get(value)
    if ctype.kind == "array":
        return tuple(value)
    if ctype.kind == "pointer":
        if ctype.item.cname == "char":
            return ffi.string(value).decode("utf-8", "replace") if value != ffi.NULL else None
        return value
    return value


def dataclass_for(ctype_name, pyname, doc, namespace=None, extra_fields=(), convert=None):
    """A frozen dataclass with one field per field of the C struct (plus
    `extra_fields`, (name, type, default) filled by the caller) and a
    from_c(cdata, **extra) constructor.  `convert` maps a field name to
    fn(cdata) making its value where to_python cannot (a nested struct, an
    array given as a pointer and a count)."""
    cfields = ffi.typeof(ctype_name).fields
    names = [n for n, _ in cfields]
    ns = dict(namespace or {})
    convert = dict(convert or {})

    def from_c(cls, cdata, **extra):
        return cls(**{n: convert[n](cdata) if n in convert else to_python(getattr(cdata, n), f.type)
                      for n, f in cfields}, **extra)

    ns["from_c"] = classmethod(from_c)
    ns["__doc__"] = doc
    spec = [(n, object) for n in names] + [(n, t, dataclasses.field(default=d)) for n, t, d in extra_fields]
    return dataclasses.make_dataclass(pyname, spec, namespace=ns, frozen=True)

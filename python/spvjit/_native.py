"""Loading libspvjit through cffi (ABI mode) and turning its statuses into exceptions.

Where the library is looked for, first found wins:
  1. $SPVJIT_LIBRARY (a path),
  2. libspvjit.so.0 next to this package (what `make install` and
     `pip install ./python` after `make` put there),
  3. the source tree's build/libspvjit.so (running from a checkout),
  4. libspvjit.so.0 on the dynamic linker's path (e.g. `make install PREFIX=/usr`).
"""

import builtins
import os

from cffi import FFI

from ._cdef import CDEF

ffi = FFI()
ffi.cdef(CDEF)


def _candidates():
    env = os.environ.get("SPVJIT_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    return [
        os.path.join(here, "libspvjit.so.0"),
        os.path.join(root, "build", "libspvjit.so"),
        "libspvjit.so.0",
    ]


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (absent)")
            continue
        try:
            return ffi.dlopen(path), path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError(
        "spvjit: cannot load libspvjit; tried " + "; ".join(tried) + ". Build it with `make` or set SPVJIT_LIBRARY"
    )


lib, library_path = _load()


# --- errors: one class per spvjit_status -------------------------------------------


class Error(Exception):
    """A failed libspvjit call: `status` is the spvjit_status name, the message the library's."""

    status = None

    def __init__(self, message, status=None):
        super().__init__(message)
        if status is not None:
            self.status = status


class InvalidModuleError(Error):
    """Malformed or invalid SPIR-V."""


class UnsupportedError(Error):
    """Valid SPIR-V that spvjit cannot run."""


class SpecConstantError(Error, ValueError):
    """Unknown SpecId, wrong value type, out of range."""


class BindingError(Error, ValueError):
    """Missing or too small buffer, bad argument, wrong dtype."""


class DispatchError(Error):
    """Bad dispatch size, barrier divergence, ..."""


class NotFoundError(Error, LookupError):
    """Entry point or file not found."""


class IoError(Error, OSError):
    """Reading a file failed."""


class OutOfMemoryError(Error, MemoryError):
    pass


class InvalidArgumentError(Error, ValueError):
    pass


class TimeoutError(Error, builtins.TimeoutError):
    """A dispatch ran past its time limit."""


class CancelledError(Error):
    """A dispatch was cancelled (spvjit_dispatch_cancel)."""


class MemoryCheckError(Error):
    """memory="check": an out-of-bounds access or a work-group memory race."""


class LimitError(Error):
    """Beyond a limit of spvjit_limits_get (work-group size, work-group or private memory)."""


def _class_name(status_name):
    """SPVJIT_ERROR_SPEC_CONSTANT -> SpecConstantError."""
    words = status_name[len("SPVJIT_ERROR_") :].split("_")
    return "".join(w.capitalize() for w in words) + "Error"


# Every status of the enum maps to a class: the ones above by name, and one made
# here for a status the C API gained later (so it still gets its own class).
errors = {}
for _name, _value in ffi.typeof("spvjit_status").relements.items():
    if _value == 0:
        continue
    _cls = globals().get(_class_name(_name))
    if _cls is None:
        _cls = type(_class_name(_name), (Error,), {"__doc__": _name})
        globals()[_cls.__name__] = _cls
    _cls.status = _name
    errors[_value] = _cls


def status_name(st):
    return ffi.string(lib.spvjit_status_name(st)).decode()


def error_for(st, context=None):
    """The exception for status st, carrying this thread's last library message."""
    msg = ffi.string(lib.spvjit_last_error()).decode("utf-8", "replace")
    if not msg:
        msg = status_name(st)
    if context:
        msg = "%s: %s" % (context, msg)
    return errors.get(st, Error)(msg, status_name(st))


def check(st, context=None):
    """Raises the exception for a failed call (the library's message is per thread,
    and cffi calls run on the calling thread, so it is read right away)."""
    if st != 0:
        raise error_for(st, context)

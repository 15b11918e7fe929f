"""Python bindings of the tilec runtime: ctypes over its C API.

    import tilec
    module = tilec.Module.from_files("softmax.ptx", "softmax.json")
    softmax = module.kernel("softmax_f32")
    softmax((rows,), x, y, rows, cols)      # torch tensors, ints, floats

Arguments are converted per the kernel's metadata: tensors (anything with
data_ptr()) and ints go to ``ptr`` parameters, ints to ``i32``/``i64``, ints or
floats to ``f32``/``f64``, 128-byte buffers to ``tensormap``. The launch uses
the current PyTorch stream unless ``stream=`` is given. Errors raise
TilecError with the runtime's message. torch is imported only when a kernel is
launched without an explicit stream, never at import time.
"""

import ctypes
import json
import operator
import os
import pathlib
import sys

__all__ = [
    "TilecError",
    "Module",
    "Kernel",
    "device_available",
    "default_target",
    "list_embedded",
    "softmax",
    "synchronize",
    "topk",
]

_LIB_NAME = "libtilec_runtime.so"

# tilec_arg.kind values (runtime/tilec_c_api.h).
_ARG_KINDS = {"ptr": 0, "i32": 1, "i64": 2, "f32": 3, "f64": 4, "tensormap": 5}

# Metadata element types and the torch dtypes that carry them.
_TORCH_DTYPES = {
    "f64": "torch.float64",
    "f32": "torch.float32",
    "f16": "torch.float16",
    "bf16": "torch.bfloat16",
    "f8e4m3": "torch.float8_e4m3fn",
    "f8e5m2": "torch.float8_e5m2",
    "i64": "torch.int64",
    "i32": "torch.int32",
    "i16": "torch.int16",
    "i8": "torch.int8",
    "u64": "torch.uint64",
    "u32": "torch.uint32",
    "u16": "torch.uint16",
    "u8": "torch.uint8",
    "i1": "torch.bool",
}

_INT_RANGES = {"i32": (-(2**31), 2**31 - 1), "i64": (-(2**63), 2**63 - 1)}


class TilecError(RuntimeError):
    """A runtime failure. ``code`` is the absl::StatusCode value; argument
    errors caught by this module itself use 3 (INVALID_ARGUMENT)."""

    def __init__(self, message, code=3):
        super().__init__(message)
        self.code = code


class _Value(ctypes.Union):
    _fields_ = [
        ("ptr", ctypes.c_void_p),
        ("i32", ctypes.c_int32),
        ("i64", ctypes.c_int64),
        ("f32", ctypes.c_float),
        ("f64", ctypes.c_double),
    ]


class _Arg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("v", _Value)]


def _candidate_paths():
    env = os.environ.get("TILEC_RUNTIME_LIB")
    if env:
        yield pathlib.Path(env)
        return
    here = pathlib.Path(__file__).resolve().parent
    yield here / _LIB_NAME
    # runtime/python/tilec -> repository root
    root = here.parents[2]
    yield root / "build" / "lib" / _LIB_NAME
    yield pathlib.Path.cwd() / "build" / "lib" / _LIB_NAME


def _load_library():
    tried = []
    for path in _candidate_paths():
        tried.append(str(path))
        if path.is_file():
            return _declare(ctypes.CDLL(str(path)))
    raise ImportError(
        "tilec: cannot find %s (set TILEC_RUNTIME_LIB); tried: %s"
        % (_LIB_NAME, ", ".join(tried))
    )


def _declare(lib):
    c_int, c_char_p, c_void_p, c_size_t = (
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_void_p,
        ctypes.c_size_t,
    )
    out_ptr = ctypes.POINTER(c_void_p)
    out_str = ctypes.POINTER(c_char_p)
    signatures = {
        "tilec_last_error": (c_char_p, []),
        "tilec_device_available": (c_int, [ctypes.POINTER(c_int)]),
        "tilec_default_target": (c_int, [out_str]),
        "tilec_module_load": (c_int, [c_char_p, c_char_p, out_ptr]),
        "tilec_module_load_embedded": (c_int, [c_char_p, c_char_p, out_ptr]),
        "tilec_embedded_count": (c_int, [ctypes.POINTER(c_size_t)]),
        "tilec_embedded_entry": (c_int, [c_size_t, out_str, out_str]),
        "tilec_module_unload": (c_int, [c_void_p]),
        "tilec_module_get_kernel": (c_int, [c_void_p, c_char_p, out_ptr]),
        "tilec_kernel_info_json": (c_int, [c_void_p, out_str]),
        "tilec_kernel_launch": (
            c_int,
            [c_void_p, ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(_Arg),
             c_size_t, c_void_p],
        ),
        "tilec_kernel_launch_clusters": (
            c_int,
            [c_void_p, ctypes.POINTER(ctypes.c_uint),
             ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(_Arg), c_size_t,
             c_void_p],
        ),
        "tilec_kernel_max_active_clusters": (
            c_int,
            [c_void_p, ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(c_int)],
        ),
        "tilec_synchronize": (c_int, []),
        "tilec_softmax": (
            c_int, [c_void_p, c_void_p, c_int, c_int, c_int, c_void_p],
        ),
        "tilec_topk": (
            c_int,
            [c_void_p, c_int, c_int, c_int, c_void_p, c_void_p, c_void_p],
        ),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


_lib = _load_library()


def _check(code):
    if code != 0:
        raise TilecError(_lib.tilec_last_error().decode(errors="replace"), code)


def _as_int(value):
    """The integer value of ints and integer-like objects (numpy, 0-d
    tensors); None for floats, bools and anything else."""
    if isinstance(value, (bool, float)):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def _text(value):
    return value.encode() if isinstance(value, str) else bytes(value)


def device_available():
    """True when the CUDA driver loads and reports a device."""
    out = ctypes.c_int()
    _check(_lib.tilec_device_available(ctypes.byref(out)))
    return bool(out.value)


def default_target():
    """The PTX target for the current device ("sm_90a", ...)."""
    out = ctypes.c_char_p()
    _check(_lib.tilec_default_target(ctypes.byref(out)))
    return out.value.decode()


def list_embedded():
    """(name, target) of every module embedded in the runtime library."""
    count = ctypes.c_size_t()
    _check(_lib.tilec_embedded_count(ctypes.byref(count)))
    entries = []
    for index in range(count.value):
        name, target = ctypes.c_char_p(), ctypes.c_char_p()
        _check(_lib.tilec_embedded_entry(index, ctypes.byref(name),
                                         ctypes.byref(target)))
        entries.append((name.value.decode(), target.value.decode()))
    return entries


def synchronize():
    """Waits for all work in the current CUDA context."""
    _check(_lib.tilec_synchronize())


def _stream_handle(stream):
    """A CUstream as an int: explicit handles and torch streams pass through;
    None means PyTorch's current stream, or the default stream without it."""
    if stream is not None:
        return getattr(stream, "cuda_stream", stream)
    torch = sys.modules.get("torch")
    if torch is None:
        try:
            import torch  # imported lazily: tilec must not require torch
        except ImportError:
            return None
    if not torch.cuda.is_available():
        return None
    return torch.cuda.current_stream().cuda_stream


def _device_address(value, name):
    """A device pointer from an int or an object with data_ptr()."""
    if hasattr(value, "data_ptr"):
        return value.data_ptr()
    if isinstance(value, int):
        return value
    raise TilecError(f"argument '{name}' must be a device pointer or a "
                     f"tensor, got {type(value).__name__}")


def softmax(x, y, stream=None):
    """y = softmax(x, dim=1) for (rows, cols) float32 or bfloat16 CUDA
    tensors, fp32 math; y may be x."""
    shape = getattr(x, "shape", None)
    if shape is None or len(shape) != 2:
        raise TilecError("argument 'x' must be a 2-D tensor")
    if getattr(y, "shape", None) != shape:
        raise TilecError(f"argument 'y' must have x's shape {tuple(shape)}")
    dtypes = {"torch.float32": 0, "torch.bfloat16": 1}
    dtype = dtypes.get(str(getattr(x, "dtype", None)))
    if dtype is None or str(y.dtype) != str(x.dtype):
        raise TilecError("arguments 'x' and 'y' must both be float32 or both "
                         f"bfloat16, got {x.dtype} and {y.dtype}")
    for name, t in (("x", x), ("y", y)):
        if not t.is_contiguous():
            raise TilecError(f"argument '{name}' must be contiguous")
    _check(_lib.tilec_softmax(_device_address(x, "x"),
                              _device_address(y, "y"), int(shape[0]),
                              int(shape[1]), dtype, _stream_handle(stream)))


def topk(x, k, values, indices, batch=None, n=None, stream=None):
    """Row-wise top-k (torch.topk largest/sorted semantics) of a (batch, n)
    fp32 device matrix into preallocated (batch, k) fp32 ``values`` and
    int64 ``indices``. Tensors give their own shape; raw pointers need
    ``batch`` and ``n``."""
    if batch is None or n is None:
        shape = getattr(x, "shape", None)
        if shape is None or len(shape) != 2:
            raise TilecError("pass batch and n, or a 2-D tensor as x")
        batch, n = int(shape[0]), int(shape[1])
    _check(_lib.tilec_topk(_device_address(x, "x"), int(batch), int(n),
                           int(k), _device_address(values, "values"),
                           _device_address(indices, "indices"),
                           _stream_handle(stream)))


class Module:
    """A loaded PTX module. Unloaded by close(), ``with``, or collection;
    its kernels must not be used afterwards."""

    def __init__(self, handle):
        self._handle = handle
        self._kernels = {}

    @classmethod
    def load(cls, ptx_text, meta_json):
        handle = ctypes.c_void_p()
        _check(_lib.tilec_module_load(_text(ptx_text), _text(meta_json),
                                      ctypes.byref(handle)))
        return cls(handle)

    @classmethod
    def from_files(cls, ptx_path, json_path):
        return cls.load(pathlib.Path(ptx_path).read_bytes(),
                        pathlib.Path(json_path).read_bytes())

    @classmethod
    def embedded(cls, name, target=None):
        handle = ctypes.c_void_p()
        _check(_lib.tilec_module_load_embedded(
            _text(name), None if target is None else _text(target),
            ctypes.byref(handle)))
        return cls(handle)

    def kernel(self, name):
        if self._handle is None:
            raise TilecError("module is closed")
        if name not in self._kernels:
            handle = ctypes.c_void_p()
            _check(_lib.tilec_module_get_kernel(self._handle, _text(name),
                                                ctypes.byref(handle)))
            self._kernels[name] = Kernel(self, handle)
        return self._kernels[name]

    def close(self):
        if self._handle is not None:
            handle, self._handle = self._handle, None
            self._kernels.clear()
            _check(_lib.tilec_module_unload(handle))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        # Interpreter shutdown may have torn down the library already.
        try:
            self.close()
        except Exception:
            pass


class Kernel:
    """A kernel of a Module, callable as ``kernel(grid, *args, stream=None)``."""

    def __init__(self, module, handle):
        self._module = module  # keeps the module loaded
        self._handle = handle
        info = ctypes.c_char_p()
        _check(_lib.tilec_kernel_info_json(handle, ctypes.byref(info)))
        self.info = json.loads(info.value.decode())
        self.name = self.info["name"]
        self.block = tuple(self.info["block"])
        self.shared_bytes = self.info["shared_bytes"]
        self.cluster = tuple(self.info["cluster"])
        self.params = self.info["params"]

    def __repr__(self):
        signature = ", ".join("%s: %s" % (p["name"], p["kind"])
                              for p in self.params)
        return "<tilec.Kernel %s(%s) block=%s>" % (self.name, signature,
                                                  self.block)

    def _fail(self, index, message):
        param = self.params[index]["name"]
        raise TilecError("kernel '%s': argument %d ('%s') %s"
                         % (self.name, index, param, message))

    def _convert(self, index, value, keepalive):
        param = self.params[index]
        kind = param["kind"]
        arg = _Arg(kind=_ARG_KINDS[kind])
        if kind == "ptr":
            arg.v.ptr = self._pointer(index, value, param.get("elem"))
        elif kind in ("i32", "i64"):
            number = _as_int(value)
            if number is None:
                self._fail(index, "expects %s, got %s %r"
                           % (kind, type(value).__name__, value))
            low, high = _INT_RANGES[kind]
            if not low <= number <= high:
                self._fail(index, "value %d is out of range for %s"
                           % (number, kind))
            setattr(arg.v, kind, number)
        elif kind in ("f32", "f64"):
            if not isinstance(value, (int, float)) and not hasattr(
                    value, "__float__"):
                self._fail(index, "expects %s, got %s"
                           % (kind, type(value).__name__))
            setattr(arg.v, kind, float(value))
        else:  # tensormap: 128 bytes, kept alive until the launch returns
            if not isinstance(value, (bytes, bytearray, memoryview)):
                self._fail(index, "expects 128 tensor-map bytes, got %s"
                           % type(value).__name__)
            raw = bytes(value)
            if len(raw) != 128:
                self._fail(index, "expects 128 tensor-map bytes, got %d"
                           % len(raw))
            buffer = ctypes.create_string_buffer(raw, 128)
            keepalive.append(buffer)
            arg.v.ptr = ctypes.addressof(buffer)
        return arg

    def _pointer(self, index, value, elem):
        if hasattr(value, "data_ptr"):  # a torch tensor, checked duck-typed
            if not getattr(value, "is_cuda", False):
                self._fail(index, "must be a CUDA tensor, got one on %s"
                           % getattr(value, "device", "the CPU"))
            if not value.is_contiguous():
                self._fail(index, "must be a contiguous tensor")
            expected = _TORCH_DTYPES.get(elem) if elem else None
            if expected is not None and str(value.dtype) != expected:
                self._fail(index, "expects elements of type %s (%s), got %s"
                           % (elem, expected, value.dtype))
            return value.data_ptr()
        if isinstance(value, bool) or not isinstance(value, int):
            self._fail(index, "expects a tensor or a device address, got %s"
                       % type(value).__name__)
        return value

    def _dims(self, what, value):
        dims = (value,) if _as_int(value) is not None else tuple(value)
        ints = [_as_int(d) for d in dims]
        if not 1 <= len(ints) <= 3 or any(
                d is None or not 0 <= d < 2**32 for d in ints):
            raise TilecError("kernel '%s': %s must be 1 to 3 non-negative "
                             "32-bit integers, got %r" % (self.name, what,
                                                          value))
        return (ctypes.c_uint * 3)(*(ints + [1, 1])[:3])

    def __call__(self, grid, *args, stream=None, cluster=None):
        """Launches over `grid`; `cluster` (1 to 8 programs that divide the
        grid) groups programs into thread-block clusters at launch."""
        if self._module._handle is None:
            raise TilecError("kernel '%s': its module is closed" % self.name)
        grid3 = self._dims("grid", grid)
        if len(args) != len(self.params):
            signature = ", ".join("%s: %s" % (p["name"], p["kind"])
                                  for p in self.params)
            raise TilecError("kernel '%s' expects %d arguments (%s), got %d"
                             % (self.name, len(self.params), signature,
                                len(args)))
        keepalive = []
        converted = (_Arg * max(len(args), 1))(
            *[self._convert(i, a, keepalive) for i, a in enumerate(args)])
        if cluster is None:
            _check(_lib.tilec_kernel_launch(self._handle, grid3, converted,
                                            len(args), _stream_handle(stream)))
        else:
            _check(_lib.tilec_kernel_launch_clusters(
                self._handle, grid3, self._dims("cluster", cluster),
                converted, len(args), _stream_handle(stream)))

    def max_active_clusters(self, cluster):
        """How many clusters of shape `cluster` the device runs at once."""
        if self._module._handle is None:
            raise TilecError("kernel '%s': its module is closed" % self.name)
        out = ctypes.c_int()
        _check(_lib.tilec_kernel_max_active_clusters(
            self._handle, self._dims("cluster", cluster), ctypes.byref(out)))
        return out.value

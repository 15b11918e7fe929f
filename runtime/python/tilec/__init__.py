"""Python bindings of the tilec runtime: ctypes over its C API.

    import tilec
    module = tilec.Module.from_files("softmax.ptx", "softmax.json")
    softmax = module.kernel("softmax_f32_c8192")
    softmax((rows,), x, y, rows, cols)      # torch tensors, ints, floats

    values, indices = tilec.topk(x, 64)     # torch.topk(x, 64) semantics
    y = tilec.softmax(x)                     # torch.softmax(x, dim=-1)
    y = tilec.gemm(x, w, scale)              # bf16((x @ w.T).float() * scale)
    out = tilec.paged_decode(q, kv_cache, block_table, seq_lens)
    o, ht = tilec.kda_forward(q, k, v, g, beta, output_final_state=True)

Arguments are converted per the kernel's metadata: tensors and ints go to
``ptr`` parameters, ints to ``i32``/``i64``, ints or floats to
``f32``/``f64``, 128-byte buffers to ``tensormap``. A tensor is a torch tensor
or any object with ``__cuda_array_interface__`` (CuPy, Numba) or ``__dlpack__``
(JAX, CuPy, ...). The launch uses the current PyTorch stream (of the
tensors' device, for topk, softmax and gemm) unless ``stream=`` is given. Every argument is checked before anything is launched
(here and again in the runtime, which also asks the driver whether each
address is device memory of the right device), so a bad argument raises
TilecError naming it and leaves the CUDA context usable. torch is imported
only when a kernel is launched without an explicit stream or outputs are
allocated, never at import time.
"""

import collections
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
    "gemm",
    "list_embedded",
    "softmax",
    "synchronize",
    "topk",
    "topk_strategy",
    "paged_decode",
    "paged_decode_plan",
    "kda_forward",
    "TopK",
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

# TILEC_DTYPE_* values (runtime/tilec_c_api.h) by metadata element name.
_DTYPE_CODES = {"f32": 0, "bf16": 1, "f16": 2, "f64": 3, "i8": 4, "i16": 5,
                "i32": 6, "i64": 7, "u8": 8, "i1": 9, "f8e4m3": 10}
# The same element types as torch dtypes, __cuda_array_interface__ type
# strings and DLPack (type code, bits); DLPack codes: 0 int, 1 uint,
# 2 float, 4 bfloat, 6 bool, 10 float8_e4m3fn.
_TORCH_ELEMS = {v: k for k, v in _TORCH_DTYPES.items()}
_TYPESTR_ELEMS = {"<f4": "f32", "<f2": "f16", "<f8": "f64", "|i1": "i8",
                  "<i2": "i16", "<i4": "i32", "<i8": "i64", "|u1": "u8",
                  "|b1": "i1"}
_DLPACK_ELEMS = {(2, 32): "f32", (4, 16): "bf16", (2, 16): "f16",
                 (2, 64): "f64", (0, 8): "i8", (0, 16): "i16", (0, 32): "i32",
                 (0, 64): "i64", (1, 8): "u8", (6, 8): "i1",
                 (10, 8): "f8e4m3"}
_ELEM_BYTES = {"f32": 4, "bf16": 2, "f16": 2, "f64": 8, "i8": 1, "i16": 2,
               "i32": 4, "i64": 8, "u8": 1, "i1": 1, "f8e4m3": 1}
# DLPack device types that are CUDA memory: device and managed.
_DLPACK_CUDA, _DLPACK_CUDA_MANAGED = 2, 13
_DLPACK_DEVICE_NAMES = {1: "cpu", 2: "cuda", 3: "cuda_host", 4: "opencl",
                        7: "vulkan", 8: "metal", 10: "rocm", 13: "cuda_managed"}

_INT_RANGES = {"i32": (-(2**31), 2**31 - 1), "i64": (-(2**63), 2**63 - 1)}


class TilecError(RuntimeError):
    """A runtime failure. ``code`` is the absl::StatusCode value; argument
    errors caught by this module itself use 3 (INVALID_ARGUMENT)."""

    def __init__(self, message, code=3):
        super().__init__(message)
        self.code = code


class _Tensor(ctypes.Structure):
    """tilec_tensor (runtime/tilec_c_api.h)."""
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_int32),
        ("ndim", ctypes.c_int32),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
    ]


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


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
        "tilec_kernel_launch_tiles": (
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
            c_int,
            [c_void_p, c_void_p, ctypes.c_int64, ctypes.c_int64, c_int,
             c_void_p],
        ),
        "tilec_topk": (
            c_int,
            [c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
             c_void_p, c_void_p, c_void_p],
        ),
        "tilec_softmax_tensor": (
            c_int,
            [ctypes.POINTER(_Tensor), ctypes.POINTER(_Tensor), c_void_p],
        ),
        "tilec_paged_decode_plan": (
            ctypes.c_char_p, [ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                              ctypes.c_int64, ctypes.c_int64,
                              ctypes.POINTER(ctypes.c_int)],
        ),
        "tilec_topk_strategy": (
            ctypes.c_char_p, [ctypes.c_int64, ctypes.c_int64, ctypes.c_int64],
        ),
        "tilec_topk_tensor": (
            c_int,
            [ctypes.POINTER(_Tensor), ctypes.c_int64, ctypes.POINTER(_Tensor),
             ctypes.POINTER(_Tensor), c_void_p],
        ),
        "tilec_gemm_tensor": (
            c_int,
            [ctypes.POINTER(_Tensor), ctypes.POINTER(_Tensor),
             ctypes.POINTER(_Tensor), ctypes.POINTER(_Tensor), c_void_p],
        ),
        "tilec_paged_decode_tensor": (
            c_int,
            [ctypes.POINTER(_Tensor), ctypes.POINTER(_Tensor),
             ctypes.POINTER(_Tensor), ctypes.POINTER(_Tensor),
             ctypes.POINTER(_Tensor), c_void_p],
        ),
        "tilec_kda_forward_tensor": (
            c_int,
            [ctypes.POINTER(_Tensor)] * 5 + [ctypes.c_float] +
            [ctypes.POINTER(_Tensor)] * 4 + [c_int, ctypes.c_int64,
                                             c_void_p],
        ),
    }
    for name, (restype, argtypes) in signatures.items():
        # Libraries built before these planning functions existed (a
        # benchmark's baseline build) still load.
        if name in _OPTIONAL and not hasattr(lib, name):
            continue
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


_OPTIONAL = ("tilec_topk_strategy", "tilec_paged_decode_plan")
_lib = _load_library()


def _check(code, c_name=None, py_name=None):
    """Raises the last error for a failed call; messages of `c_name` are
    shown as coming from `py_name`."""
    if code != 0:
        message = _lib.tilec_last_error().decode(errors="replace")
        if c_name and message.startswith(c_name + ": "):
            message = py_name + ": " + message[len(c_name) + 2:]
        raise TilecError(message, code)


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


def _stream_handle(stream, device=None):
    """A CUstream as an int: explicit handles and torch streams pass through;
    None means PyTorch's current stream of `device` (a CUDA ordinal; None:
    torch's current device), or the default stream without torch."""
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
    return torch.cuda.current_stream(device).cuda_stream


def _device_index(value):
    """The CUDA ordinal a tensor argument says it lives on, when it says:
    the runtime launches on the device of the tensors, so the default
    stream must be that device's."""
    if _is_torch(value):
        return value.device.index if value.device.type == "cuda" else None
    if hasattr(value, "__dlpack_device__"):
        try:
            kind, index = value.__dlpack_device__()
        except Exception:
            return None
        return int(index) if kind in (_DLPACK_CUDA,
                                      _DLPACK_CUDA_MANAGED) else None
    index = getattr(getattr(value, "device", None), "id", None)  # CuPy
    return index if isinstance(index, int) else None


def _device_address(value, name):
    """A device pointer from an int or an object with data_ptr()."""
    if hasattr(value, "data_ptr"):
        return value.data_ptr()
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise TilecError(f"argument '{name}' must be a device pointer or a "
                     f"tensor, got {type(value).__name__}")


def _is_torch(value):
    return type(value).__module__.split(".")[0] == "torch" and hasattr(
        value, "data_ptr")


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class _TensorArg:
    """A tensor argument as the C API's tilec_tensor: address, element type,
    shape and strides (elements), from a torch tensor or an object with
    __cuda_array_interface__ or __dlpack__. Raises TilecError naming the
    argument for what cannot be described (CPU memory, unknown element
    types, strides that are not whole elements); everything else is
    checked by the runtime, which knows what the entry point expects."""

    def __init__(self, value, name, stream):
        self.name = name
        self.value = value
        self.readonly = False
        self._keepalive = []
        if _is_torch(value):
            self._from_torch(value)
        elif hasattr(value, "__cuda_array_interface__"):
            self._from_array_interface(value.__cuda_array_interface__)
        elif hasattr(value, "__dlpack__"):
            self._from_dlpack(value, stream)
        else:
            raise TilecError(
                f"argument '{name}' must be a CUDA tensor (torch, or an object "
                f"with __cuda_array_interface__ or __dlpack__), got "
                f"{type(value).__name__}")
        if self.elem not in _DTYPE_CODES:
            raise TilecError(f"argument '{name}' has dtype {self.elem}, "
                             "which tilec does not handle")

    def _fail(self, why):
        raise TilecError(f"argument '{self.name}' {why}")

    def _from_torch(self, t):
        if t.device.type != "cuda":
            self._fail(f"is on {t.device}; expected a CUDA tensor")
        self.elem = _TORCH_ELEMS.get(str(t.dtype), str(t.dtype))
        self.address = t.data_ptr()
        self.shape = tuple(int(d) for d in t.shape)
        self.strides = tuple(int(s) for s in t.stride())

    def _from_array_interface(self, cai):
        typestr = cai.get("typestr", "?")
        self.elem = _TYPESTR_ELEMS.get(typestr.replace("=", "<"),
                                       f"'{typestr}'")
        if cai.get("mask") is not None:
            self._fail("has a mask; tilec takes unmasked arrays")
        self.address, self.readonly = int(cai["data"][0]), bool(cai["data"][1])
        self.shape = tuple(int(d) for d in cai["shape"])
        self.strides = None
        if cai.get("strides") is not None:
            size = _ELEM_BYTES.get(self.elem, 1)
            if any(s % size for s in cai["strides"]):
                self._fail(f"has strides {tuple(cai['strides'])} bytes, not "
                           f"whole {size}-byte elements")
            self.strides = tuple(int(s) // size for s in cai["strides"])

    def _from_dlpack(self, value, stream):
        if hasattr(value, "__dlpack_device__"):
            kind, index = value.__dlpack_device__()
            if kind not in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
                where = _DLPACK_DEVICE_NAMES.get(int(kind), f"device type {kind}")
                self._fail(f"is on {where}:{index}; expected a CUDA tensor")
        # DLPack's stream argument: 1 is the legacy default stream; the
        # producer orders its pending work before that stream.
        try:
            capsule = value.__dlpack__(stream=stream or 1)
        except TypeError:
            capsule = value.__dlpack__()
        # The capsule stays unconsumed (its name is not changed), so its
        # destructor frees the tensor; it is kept until the call returns.
        self._keepalive.append(capsule)
        managed = _DLManagedTensor.from_address(
            _capsule_pointer(capsule, b"dltensor"))
        t = managed.dl_tensor
        if t.device.device_type not in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
            where = _DLPACK_DEVICE_NAMES.get(t.device.device_type,
                                             f"device type {t.device.device_type}")
            self._fail(f"is on {where}:{t.device.device_id}; expected a CUDA "
                       "tensor")
        key = (t.dtype.code, t.dtype.bits)
        self.elem = _DLPACK_ELEMS.get(key) if t.dtype.lanes == 1 else None
        if self.elem is None:
            self.elem = "DLPack (code %d, bits %d, lanes %d)" % (
                t.dtype.code, t.dtype.bits, t.dtype.lanes)
        self.address = (t.data or 0) + t.byte_offset
        self.shape = tuple(t.shape[i] for i in range(t.ndim))
        self.strides = (tuple(t.strides[i] for i in range(t.ndim))
                        if t.strides else None)

    def row_major(self):
        if self.strides is None:
            return True
        expected = 1
        for extent, stride in zip(reversed(self.shape), reversed(self.strides)):
            if extent != 1 and stride != expected:
                return False
            expected *= extent
        return True

    def as_c(self, output=False):
        """The tilec_tensor; outputs must be writable."""
        if output and self.readonly:
            self._fail("is read-only; expected a writable output")
        shape = (ctypes.c_int64 * max(len(self.shape), 1))(*self.shape)
        strides = None
        if self.strides is not None:
            strides = (ctypes.c_int64 * max(len(self.strides), 1))(
                *self.strides)
        self._keepalive += [shape, strides]
        return _Tensor(self.address, _DTYPE_CODES[self.elem], len(self.shape),
                       shape, strides)


def _empty(like, shape, elem, name):
    """A new CUDA tensor of `shape` and element type `elem` from the
    framework of `like` (torch or CuPy), on its device."""
    if _is_torch(like):
        torch = sys.modules["torch"]
        return torch.empty(shape, dtype=getattr(torch, _TORCH_DTYPES[elem][6:]),
                           device=like.device)
    if type(like).__module__.split(".")[0] == "cupy":
        cupy = sys.modules["cupy"]
        dtype = {"f32": "float32", "i64": "int64", "f16": "float16"}.get(elem)
        if dtype is None:
            raise TilecError(f"argument '{name}' was not given and CuPy has "
                             f"no {elem} dtype to allocate it with; pass it "
                             "preallocated")
        with like.device:
            return cupy.empty(shape, dtype=dtype)
    raise TilecError(f"argument '{name}' was not given and tilec allocates "
                     f"outputs only for torch and CuPy inputs, not "
                     f"{type(like).__name__}; pass it preallocated")


def _matrix_shape(x, name):
    """(rows, cols) of a 2-D tensor argument, as the runtime would word it."""
    if len(x.shape) != 2:
        raise TilecError(f"argument '{name}' must be 2-D, got shape "
                         f"{x.shape}")
    return x.shape


def softmax(x, y=None, stream=None, dim=-1):
    """y = softmax(x, dim=-1) of a (rows, cols) float32 or bfloat16 CUDA
    tensor, fp32 math. Without ``y`` a new tensor like x is returned (torch
    and CuPy inputs); ``y`` may be x. Returns y."""
    if dim not in (-1, 1):
        raise TilecError(f"tilec.softmax: argument 'dim' is {dim!r}; tilec's "
                         "softmax runs along the last dimension (-1 or 1)")
    handle = _stream_handle(stream, _device_index(x))
    xt = _TensorArg(x, "x", handle)
    if y is None:
        y = _empty(x, _matrix_shape(xt, "x"), xt.elem, "y")
    yt = _TensorArg(y, "y", handle)
    cx, cy = xt.as_c(), yt.as_c(output=True)
    _check(_lib.tilec_softmax_tensor(ctypes.byref(cx), ctypes.byref(cy),
                                     handle),
           "tilec_softmax_tensor", "tilec.softmax")
    return y


TopK = collections.namedtuple("TopK", ["values", "indices"])


def topk_strategy(batch, n, k):
    """The name of the path tilec.topk takes for a (batch, n) input and k
    (docs/runtime.md, Top-k strategies), without touching the device."""
    return _lib.tilec_topk_strategy(int(batch), int(n), int(k)).decode()


def topk(x, k, values=None, indices=None, batch=None, n=None, stream=None):
    """Row-wise top-k with torch.topk(x, k, dim=-1, largest=True,
    sorted=True) semantics of a (batch, n) float32 CUDA tensor: float32
    values, descending, and int64 indices, each (batch, k). Without
    ``values`` and ``indices`` both are allocated (torch and CuPy inputs).
    Returns (values, indices). A raw device address as x takes ``batch``
    and ``n`` and preallocated outputs (contiguous, checked by the
    runtime)."""
    if (values is None) != (indices is None):
        raise TilecError("tilec.topk: pass both 'values' and 'indices', or "
                         "neither to have them allocated")
    number = _as_int(k)
    if number is None:
        raise TilecError(f"tilec.topk: argument 'k' must be an integer, got "
                         f"{type(k).__name__}")
    k = number
    handle = _stream_handle(stream, _device_index(x))
    if isinstance(x, int) and not isinstance(x, bool):
        if values is None or batch is None or n is None:
            raise TilecError("tilec.topk: a raw address as 'x' needs 'batch', "
                             "'n', 'values' and 'indices'")
        _check(_lib.tilec_topk(x, int(batch), int(n), k,
                               _device_address(values, "values"),
                               _device_address(indices, "indices"), handle),
               "tilec_topk", "tilec.topk")
        return TopK(values, indices)
    xt = _TensorArg(x, "x", handle)
    if values is None:
        rows, cols = _matrix_shape(xt, "x")
        if not 1 <= k <= cols:
            raise TilecError(f"tilec.topk: argument 'k' must be in [1, "
                             f"n={cols}], got {k}")
        values = _empty(x, (rows, k), "f32", "values")
        indices = _empty(x, (rows, k), "i64", "indices")
    vt, it = _TensorArg(values, "values", handle), _TensorArg(
        indices, "indices", handle)
    cx, cv, ci = xt.as_c(), vt.as_c(output=True), it.as_c(output=True)
    _check(_lib.tilec_topk_tensor(ctypes.byref(cx), k, ctypes.byref(cv),
                                  ctypes.byref(ci), handle),
           "tilec_topk_tensor", "tilec.topk")
    return TopK(values, indices)


def gemm(x, w, scale, y=None, stream=None):
    """y = bf16(float(x @ w.T) * scale) with fp32 accumulation: x (M, K) and
    w (N, K) CUDA tensors, both bfloat16 or both float8_e4m3fn; scale a
    float32 tensor of N factors, one per column of y; y (M, N) bfloat16.
    Without ``y`` a new tensor is returned (torch inputs). Returns y."""
    handle = _stream_handle(stream, _device_index(x))
    xt = _TensorArg(x, "x", handle)
    wt = _TensorArg(w, "w", handle)
    st = _TensorArg(scale, "scale", handle)
    if y is None:
        rows = _matrix_shape(xt, "x")[0]
        cols = _matrix_shape(wt, "w")[0]
        y = _empty(x, (rows, cols), "bf16", "y")
    yt = _TensorArg(y, "y", handle)
    cx, cw, cs, cy = xt.as_c(), wt.as_c(), st.as_c(), yt.as_c(output=True)
    _check(_lib.tilec_gemm_tensor(ctypes.byref(cx), ctypes.byref(cw),
                                  ctypes.byref(cs), ctypes.byref(cy), handle),
           "tilec_gemm_tensor", "tilec.gemm")
    return y


def paged_decode(query, kv_cache, block_table, seq_lens, out=None,
                 stream=None):
    """Paged-attention decode: query (B, H, D) bfloat16 with D 64 or 128,
    kv_cache (pages, 16, Hkv, 2*D) bfloat16 packed [K | V], block_table
    (B, W) int32 page numbers, seq_lens (B,) int32, all CUDA tensors; out
    (B, H, D) bfloat16 = softmax(q K^T / sqrt(D)) V over each sequence's
    first seq_lens[b] tokens (zeros for a length of 0), query head h reading
    kv head h // (H // Hkv). seq_lens are read on the GPU. Without ``out`` a
    new tensor is returned. Returns out."""
    handle = _stream_handle(stream, _device_index(query))
    qt = _TensorArg(query, "query", handle)
    kt = _TensorArg(kv_cache, "kv_cache", handle)
    bt = _TensorArg(block_table, "block_table", handle)
    lt = _TensorArg(seq_lens, "seq_lens", handle)
    if out is None:
        out = _empty(query, tuple(qt.shape), "bf16", "out")
    ot = _TensorArg(out, "out", handle)
    cq, ck, cb, cl = qt.as_c(), kt.as_c(), bt.as_c(), lt.as_c()
    co = ot.as_c(output=True)
    _check(_lib.tilec_paged_decode_tensor(
        ctypes.byref(cq), ctypes.byref(ck), ctypes.byref(cb),
        ctypes.byref(cl), ctypes.byref(co), handle),
        "tilec_paged_decode_tensor", "tilec.paged_decode")
    return out


def paged_decode_plan(batch, heads, kv_heads, head_dim, width):
    """(kernel name, pages per span) tilec.paged_decode takes for `batch`
    sequences of `heads` query heads over `kv_heads` kv heads of dim
    `head_dim` and a block table `width` pages wide (docs/runtime.md),
    without touching the device."""
    pps = ctypes.c_int(0)
    name = _lib.tilec_paged_decode_plan(int(batch), int(heads), int(kv_heads),
                                        int(head_dim), int(width),
                                        ctypes.byref(pps))
    if name is None:
        raise ValueError("tilec.paged_decode_plan: no decode kernel for "
                         f"batch {batch}, heads {heads}, kv_heads {kv_heads}, "
                         f"head_dim {head_dim}, width {width}")
    return name.decode(), pps.value


def kda_forward(q, k, v, g, beta, scale=None, initial_state=None,
                output_final_state=False, cu_seqlens=None, out=None,
                final_state=None, schedule="two_phase_bf16", segment_chunks=0,
                stream=None):
    """KDA (Kimi Delta Attention) chunked forward, as flash-linear-attention's
    chunk_kda: q, k (B, T, H, K) bfloat16, v (B, T, H, V) bfloat16, g (B, T,
    H, K) float32 raw log-decay, beta (B, T, H) bfloat16, all CUDA tensors,
    K = V in (64, 128); per token S <- diag(exp(g))·S, S <- S + beta·k ⊗ (v
    - Sᵀk), o = scale·Sᵀq with S in fp32. ``scale`` defaults to K**-0.5;
    ``initial_state`` (N, H, K, V) float32; ``cu_seqlens`` (N + 1,) int32
    offsets of N sequences packed along T (B = 1; other integer dtypes are
    converted); N = B without it. Returns (o, final_state): final_state is
    (N, H, K, V) float32 when ``output_final_state`` (or a ``final_state``
    tensor is given, which is written), else None. ``schedule``:
    "two_phase_bf16" (the default: chunks in parallel into bf16 records,
    then the chain over blocks of state columns, its products on bf16
    operands), "two_phase" (the same in f32 records and tf32 products, at
    about half the error) or "single" (one program per sequence and head).
    ``segment_chunks``: 0 chooses how the two-phase chain is cut into
    segments (composed in parallel, then scanned) from the shape; n >= 1
    forces segments of n chunks of 64 tokens."""
    schedules = {"two_phase": 0, "single": 1, "two_phase_bf16": 2}
    if schedule not in schedules:
        raise TilecError(f"tilec.kda_forward: argument 'schedule' must be "
                         f"one of {sorted(schedules)}, got {schedule!r}")
    handle = _stream_handle(stream, _device_index(q))
    qt = _TensorArg(q, "q", handle)
    if scale is None:
        scale = float(qt.shape[-1]) ** -0.5 if len(qt.shape) == 4 else 1.0
    if cu_seqlens is not None and _is_torch(cu_seqlens):
        torch = sys.modules["torch"]
        if cu_seqlens.dtype != torch.int32:
            cu_seqlens = cu_seqlens.to(torch.int32)
    if out is None:
        out = _empty(q, tuple(qt.shape), "bf16", "out")
    if final_state is None and output_final_state:
        if len(qt.shape) != 4:
            raise TilecError("tilec.kda_forward: argument 'q' must be "
                             "(B, T, H, K)")
        n = qt.shape[0] if cu_seqlens is None else len(cu_seqlens) - 1
        d = qt.shape[3]
        final_state = _empty(q, (n, qt.shape[2], d, d), "f32", "final_state")
    args = [qt.as_c()]
    keep = [qt]
    for value, name in ((k, "k"), (v, "v"), (g, "g"), (beta, "beta")):
        t = _TensorArg(value, name, handle)
        keep.append(t)
        args.append(t.as_c())
    ot = _TensorArg(out, "o", handle)
    co = ot.as_c(output=True)
    optional = []
    for value, name, output in ((initial_state, "initial_state", False),
                                (final_state, "final_state", True),
                                (cu_seqlens, "cu_seqlens", False)):
        if value is None:
            optional.append(None)
            continue
        t = _TensorArg(value, name, handle)
        keep.append(t)
        optional.append(ctypes.byref(t.as_c(output=output)))
    _check(_lib.tilec_kda_forward_tensor(
        *[ctypes.byref(a) for a in args], float(scale), ctypes.byref(co),
        *optional, schedules[schedule], int(segment_chunks), handle),
        "tilec_kda_forward_tensor", "tilec.kda_forward")
    return out, final_state


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
        # Tile rows walked side by side by a persistent kernel; 0 otherwise.
        self.persistent = self.info.get("persistent", 0)

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
        if not hasattr(value, "data_ptr") and (
                hasattr(value, "__cuda_array_interface__")
                or hasattr(value, "__dlpack__")):
            try:
                tensor = _TensorArg(value, "data", None)
            except TilecError as error:
                self._fail(index, str(error).split("' ", 1)[-1])
            if elem and elem in _DTYPE_CODES and tensor.elem != elem:
                self._fail(index, "expects elements of type %s, got %s"
                           % (elem, tensor.elem))
            if not tensor.row_major():
                self._fail(index, "must be a contiguous tensor")
            return tensor.address
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
        grid3 = self._dims("grid", grid)
        keepalive = []
        converted = self._convert_all(args, len(self.params), keepalive)
        if cluster is None:
            _check(_lib.tilec_kernel_launch(self._handle, grid3, converted,
                                            len(args), _stream_handle(stream)))
        else:
            _check(_lib.tilec_kernel_launch_clusters(
                self._handle, grid3, self._dims("cluster", cluster),
                converted, len(args), _stream_handle(stream)))

    def _convert_all(self, args, count, keepalive):
        """The first `count` params' arguments, checked and converted."""
        if self._module._handle is None:
            raise TilecError("kernel '%s': its module is closed" % self.name)
        if len(args) != count:
            signature = ", ".join("%s: %s" % (p["name"], p["kind"])
                                  for p in self.params[:count])
            raise TilecError("kernel '%s' expects %d arguments (%s), got %d"
                             % (self.name, count, signature, len(args)))
        return (_Arg * max(len(args), 1))(
            *[self._convert(i, a, keepalive) for i, a in enumerate(args)])

    def launch_tiles(self, tiles, *args, stream=None):
        """Runs the work of a grid of `tiles` (one program per tile, as the
        source is written). A persistent kernel takes every argument but
        its last two, the tile counts, which the runtime appends; it runs
        on as many programs as the GPU holds at once (at most one per
        tile). Other kernels are launched on `tiles`."""
        count = len(self.params) - (2 if self.persistent else 0)
        keepalive = []
        converted = self._convert_all(args, count, keepalive)
        _check(_lib.tilec_kernel_launch_tiles(
            self._handle, self._dims("tiles", tiles), converted, len(args),
            _stream_handle(stream)))

    def max_active_clusters(self, cluster):
        """How many clusters of shape `cluster` the device runs at once."""
        if self._module._handle is None:
            raise TilecError("kernel '%s': its module is closed" % self.name)
        out = ctypes.c_int()
        _check(_lib.tilec_kernel_max_active_clusters(
            self._handle, self._dims("cluster", cluster), ctypes.byref(out)))
        return out.value

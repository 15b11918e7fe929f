"""Argument checks of tilec.topk and tilec.softmax.

Without a GPU: tensors are described by fake objects with
__cuda_array_interface__ or __dlpack__ whose addresses are never
dereferenced, since every case here is rejected before the driver is asked.
With torch and a GPU (and the kernels embedded in the library): each bad
call raises TilecError, and afterwards the same context still computes
torch.topk / torch.softmax results.
"""

import ctypes
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "runtime" / "python"))

import tilec  # noqa: E402

# Aligned addresses far apart, never dereferenced.
X, VALUES, INDICES = 1 << 30, 2 << 30, 3 << 30


class ArrayInterface:
    """A CUDA array as CuPy or Numba would describe it."""

    def __init__(self, address, shape, typestr="<f4", strides=None,
                 readonly=False):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": typestr,
            "data": (address, readonly), "strides": strides, "version": 3}


def _check_message(call, *parts, code=3):
    with pytest.raises(tilec.TilecError) as error:
        call()
    for part in parts:
        assert part in str(error.value), str(error.value)
    assert error.value.code == code
    return error.value


def topk_args(**changes):
    args = dict(x=ArrayInterface(X, (8, 1000)), k=16,
                values=ArrayInterface(VALUES, (8, 16)),
                indices=ArrayInterface(INDICES, (8, 16), "<i8"))
    args.update(changes)
    return args


@pytest.mark.parametrize("changes, parts", [
    (dict(x=ArrayInterface(X, (8, 1000), "<f2")),
     ["tilec.topk: argument 'x' has dtype f16; expected f32"]),
    (dict(x=ArrayInterface(X, (2, 4, 1000))),
     ["argument 'x' must be 2-D, got shape (2, 4, 1000)"]),
    (dict(x=ArrayInterface(X, (8, 1000), strides=(4, 32))),
     ["argument 'x' must be contiguous (row-major)"]),
    (dict(x=ArrayInterface(X, (8, 1000), strides=(4002, 2))),
     ["argument 'x' has strides (4002, 2) bytes, not whole 4-byte elements"]),
    (dict(k=0), ["argument 'k' must be in [1, n=1000], got 0"]),
    (dict(k=1001), ["argument 'k' must be in [1, n=1000], got 1001"]),
    (dict(k=2.0), ["argument 'k' must be an integer"]),
    (dict(values=ArrayInterface(VALUES, (8, 8))),
     ["argument 'values' has shape (8, 8); expected (8, 16)"]),
    (dict(values=ArrayInterface(VALUES, (8, 16), readonly=True)),
     ["argument 'values' is read-only"]),
    (dict(indices=ArrayInterface(INDICES, (8, 16), "<i4")),
     ["argument 'indices' has dtype i32; expected i64"]),
    (dict(indices=ArrayInterface(VALUES, (8, 16), "<i8")),
     ["arguments 'values' and 'indices' overlap in memory"]),
    (dict(x=ArrayInterface(X, (8, 1000), "<c8")),
     ["argument 'x' has dtype '<c8', which tilec does not handle"]),
    (dict(x=[[1.0, 2.0]]), ["argument 'x' must be a CUDA tensor", "list"]),
])
def test_topk_rejects(changes, parts):
    _check_message(lambda: tilec.topk(**topk_args(**changes)), *parts)


def test_topk_limit_is_unimplemented():
    _check_message(lambda: tilec.topk(
        ArrayInterface(X, (1, 5000)), 4096, ArrayInterface(VALUES, (1, 4096)),
        ArrayInterface(INDICES, (1, 4096), "<i8")), "sorts at most 2048",
        code=12)


def test_topk_needs_both_outputs_or_neither():
    _check_message(lambda: tilec.topk(ArrayInterface(X, (8, 1000)), 4,
                                      values=ArrayInterface(VALUES, (8, 4))),
                   "pass both 'values' and 'indices'")


def test_topk_allocates_only_for_known_frameworks():
    _check_message(lambda: tilec.topk(ArrayInterface(X, (8, 1000)), 4),
                   "argument 'values' was not given",
                   "only for torch and CuPy inputs")


@pytest.mark.parametrize("x, y, parts", [
    (ArrayInterface(X, (4, 100), "<i4"), ArrayInterface(VALUES, (4, 100)),
     ["tilec.softmax: argument 'x' has dtype i32; expected f32 or bf16"]),
    (ArrayInterface(X, (4, 100)), ArrayInterface(VALUES, (4, 100), "<f2"),
     ["argument 'y' has dtype f16; expected f32"]),
    (ArrayInterface(X, (4, 100)), ArrayInterface(VALUES, (4, 99)),
     ["argument 'y' has shape (4, 99); expected (4, 100)"]),
    (ArrayInterface(X, (4, 100)), ArrayInterface(X + 64, (4, 100)),
     ["arguments 'x' and 'y' overlap"]),
    (ArrayInterface(X, (4, 100)), ArrayInterface(VALUES, (4, 100),
                                                 readonly=True),
     ["argument 'y' is read-only"]),
])
def test_softmax_rejects(x, y, parts):
    _check_message(lambda: tilec.softmax(x, y), *parts)


def test_softmax_dim_must_be_last():
    _check_message(lambda: tilec.softmax(ArrayInterface(X, (4, 100)), dim=0),
                   "argument 'dim' is 0")


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", tilec._DLTensor),
                ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class DLPackArray:
    """A tensor exported through DLPack (a capsule named "dltensor")."""

    def __init__(self, address, shape, code=2, bits=32, device=(2, 0)):
        self.device = device
        self._shape = (ctypes.c_int64 * len(shape))(*shape)
        self._managed = DLManagedTensor()
        t = self._managed.dl_tensor
        t.data, t.ndim = address, len(shape)
        t.device.device_type, t.device.device_id = device
        t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, 1
        t.shape = self._shape

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self._managed), b"dltensor", None)


def test_dlpack_tensors_are_read():
    # f16 (code 2, 16 bits) reaches the runtime's dtype check.
    _check_message(lambda: tilec.topk(DLPackArray(X, (8, 1000), bits=16), 16,
                                      DLPackArray(VALUES, (8, 16)),
                                      DLPackArray(INDICES, (8, 16), 0, 64)),
                   "argument 'x' has dtype f16; expected f32")
    _check_message(lambda: tilec.topk(DLPackArray(X, (8, 1000)), 16,
                                      DLPackArray(VALUES, (8, 16)),
                                      DLPackArray(INDICES, (8, 16), 0, 32)),
                   "argument 'indices' has dtype i32; expected i64")


def test_dlpack_cpu_tensor_is_rejected():
    _check_message(lambda: tilec.softmax(DLPackArray(X, (4, 4),
                                                     device=(1, 0))),
                   "argument 'x' is on cpu:0; expected a CUDA tensor")


def test_host_memory_never_reaches_a_launch():
    """Valid shapes over host memory: the driver's pointer check rejects it
    (without a driver the call fails on the driver instead)."""
    x = (ctypes.c_float * (8 * 1000))()
    values = (ctypes.c_float * (8 * 16))()
    indices = (ctypes.c_int64 * (8 * 16))()
    call = lambda: tilec.topk(  # noqa: E731
        ArrayInterface(ctypes.addressof(x), (8, 1000)), 16,
        ArrayInterface(ctypes.addressof(values), (8, 16)),
        ArrayInterface(ctypes.addressof(indices), (8, 16), "<i8"))
    if not tilec.device_available():
        _check_message(call, "tilec.topk: ", code=9)
    elif ("topk", tilec.default_target()) in tilec.list_embedded():
        _check_message(call, "argument 'x' address", "is not CUDA memory")


# With torch and a GPU.

def _torch_with_kernels():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or not tilec.device_available():
        pytest.skip("no CUDA device")
    embedded = {name for name, target in tilec.list_embedded()
                if target == tilec.default_target()}
    if not {"topk", "softmax"} <= embedded:
        pytest.skip("the runtime library has no embedded topk/softmax")
    return torch


def _expect_healthy(torch):
    """The context still runs both kernels correctly."""
    torch.cuda.synchronize()
    x = torch.randn(6, 5000, device="cuda")
    values, indices = tilec.topk(x, 8)
    reference = torch.topk(x, 8)
    assert torch.equal(values, reference.values)
    assert torch.equal(x.gather(1, indices), reference.values)
    y = tilec.softmax(x)
    torch.testing.assert_close(y, torch.softmax(x, dim=-1))
    torch.cuda.synchronize()


@pytest.mark.parametrize("make_call, parts", [
    (lambda torch, x: tilec.topk(x.cpu(), 8),
     ["argument 'x' is on cpu; expected a CUDA tensor"]),
    (lambda torch, x: tilec.topk(x.half(), 8),
     ["argument 'x' has dtype f16; expected f32"]),
    (lambda torch, x: tilec.topk(x.t().contiguous().t(), 8),
     ["argument 'x' must be contiguous"]),
    (lambda torch, x: tilec.topk(x, 8, torch.empty(6, 4, device="cuda"),
                                 torch.empty(6, 8, dtype=torch.int64,
                                             device="cuda")),
     ["argument 'values' has shape (6, 4); expected (6, 8)"]),
    (lambda torch, x: tilec.topk(x, 8, torch.empty(6, 8, device="cuda"),
                                 torch.empty(6, 8, dtype=torch.int32,
                                             device="cuda")),
     ["argument 'indices' has dtype i32; expected i64"]),
    (lambda torch, x: tilec.topk(x, 8, torch.empty(6, 8),
                                 torch.empty(6, 8, dtype=torch.int64)),
     ["argument 'values' is on cpu"]),
    (lambda torch, x: tilec.topk(x.data_ptr() + 4096 * 64, 8,
                                 torch.empty(6, 8, device="cuda"),
                                 torch.empty(6, 8, dtype=torch.int64,
                                             device="cuda"),
                                 batch=6, n=5000),
     # A raw address 256 KiB into a 120 KB tensor: rejected when that is
     # past the allocation, accepted (garbage in, no fault) when the
     # caching allocator's segment reaches that far.
     []),
    (lambda torch, x: tilec.topk(x, 0), ["argument 'k' must be in"]),
    (lambda torch, x: tilec.softmax(x, x[:, 1:]),
     ["argument 'y' has shape (6, 4999)"]),
    (lambda torch, x: tilec.softmax(x.cpu()), ["argument 'x' is on cpu"]),
])
def test_rejected_calls_leave_the_context_usable(make_call, parts):
    torch = _torch_with_kernels()
    x = torch.randn(6, 5000, device="cuda")
    try:
        make_call(torch, x)
    except tilec.TilecError as error:
        for part in parts:
            assert part in str(error)
    else:
        assert not parts, "the call was not rejected"
    _expect_healthy(torch)


def test_allocating_forms_match_torch():
    torch = _torch_with_kernels()
    x = torch.randn(32, 16384, device="cuda")
    result = tilec.topk(x, 32)
    assert isinstance(result, tilec.TopK)
    assert result.values.dtype == torch.float32
    assert result.indices.dtype == torch.int64
    assert torch.equal(result.values, torch.topk(x, 32).values)
    xb = x.bfloat16()
    torch.testing.assert_close(tilec.softmax(xb), torch.softmax(xb, dim=-1),
                               atol=1e-2, rtol=1e-2)
    # The preallocated form returns its outputs too.
    values = torch.empty(32, 4, device="cuda")
    indices = torch.empty(32, 4, dtype=torch.int64, device="cuda")
    out = tilec.topk(x, 4, values, indices)
    assert out.values is values and out.indices is indices


def test_array_interface_and_dlpack_producers():
    torch = _torch_with_kernels()
    x = torch.randn(4, 3000, device="cuda")

    class Wrapped:  # a CuPy-like view of a torch tensor
        def __init__(self, t):
            self.__cuda_array_interface__ = t.__cuda_array_interface__

    values = torch.empty(4, 5, device="cuda")
    indices = torch.empty(4, 5, dtype=torch.int64, device="cuda")
    tilec.topk(Wrapped(x), 5, Wrapped(values), Wrapped(indices))
    assert torch.equal(values, torch.topk(x, 5).values)

    class Exported:  # a JAX-like producer that only speaks DLPack
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    y = torch.empty_like(x)
    tilec.softmax(Exported(x), Exported(y))
    torch.testing.assert_close(y, torch.softmax(x, dim=-1))


def test_tensors_on_device_1_run_there():
    """Tensors on cuda:1 while cuda:0 is current: the call runs on device 1,
    on device 1's current torch stream; tensors of two devices are refused
    by name."""
    torch = _torch_with_kernels()
    if torch.cuda.device_count() < 2:
        pytest.skip("needs two CUDA devices")
    torch.cuda.set_device(0)
    x = torch.randn(6, 5000, device="cuda:1")
    torch.testing.assert_close(tilec.softmax(x), torch.softmax(x, dim=-1))
    values, indices = tilec.topk(x, 8)
    assert values.device == x.device
    assert torch.equal(values, torch.topk(x, 8).values)
    with pytest.raises(tilec.TilecError) as error:
        tilec.softmax(x, torch.empty(6, 5000, device="cuda:0"))
    assert ("argument 'y' is memory of device 0, but argument 'x' is memory "
            "of device 1") in str(error.value)
    _expect_healthy(torch)

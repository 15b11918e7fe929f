"""Argument checks of tilec.topk, tilec.softmax and tilec.gemm.

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


def test_sizes_past_32_bits_are_named():
    # More than 2^31 elements is fine, an extent of 2^31 is not; the pointer
    # form passes 64-bit sizes intact.
    big = 1 << 31
    _check_message(lambda: tilec.topk(
        ArrayInterface(X, (big, 2)), 1, ArrayInterface(VALUES, (big, 1)),
        ArrayInterface(INDICES, (big, 1), "<i8")),
        "argument 'x' has extent 2147483648 in dimension 0")
    _check_message(lambda: tilec.softmax(ArrayInterface(X, (1, big)),
                                         ArrayInterface(VALUES, (1, big))),
                   "argument 'x' has extent 2147483648 in dimension 1")
    _check_message(lambda: tilec.topk(X, 1, VALUES, INDICES, batch=big, n=4,
                                      stream=0),
                   "argument 'batch' must be in [1, 2^31 - 1], got 2147483648")
    _check_message(lambda: tilec.topk(X, 1, VALUES, INDICES, batch=1,
                                      n=big + 4, stream=0),
                   "argument 'n' must be in [1, 2^31 - 1], got 2147483652")


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


# DLPack (type code, bits) of the GEMM's element types.
BF16, F8E4M3, F32 = (4, 16), (10, 8), (2, 32)
W, SCALE, Y = 4 << 30, 5 << 30, 6 << 30


def gemm_args(m=128, n=64, k=32, types=(BF16, BF16, F32, BF16), **changes):
    """Valid arguments of (M, N, K) with the DLPack element types `types`
    of x, w, scale and y, then `changes`."""
    args = dict(x=DLPackArray(X, (m, k), *types[0]),
                w=DLPackArray(W, (n, k), *types[1]),
                scale=DLPackArray(SCALE, (n,), *types[2]),
                y=DLPackArray(Y, (m, n), *types[3]))
    args.update(changes)
    return args


@pytest.mark.parametrize("args, parts", [
    (gemm_args(types=(F32, F32, F32, BF16)),
     ["tilec.gemm: argument 'x' has dtype f32; expected bf16 or f8e4m3"]),
    (gemm_args(types=(BF16, F8E4M3, F32, BF16)),
     ["argument 'w' has dtype f8e4m3; expected bf16"]),
    (gemm_args(types=(F8E4M3, BF16, F32, BF16)),
     ["argument 'w' has dtype bf16; expected f8e4m3"]),
    (gemm_args(types=(BF16, BF16, BF16, BF16)),
     ["argument 'scale' has dtype bf16; expected f32"]),
    (gemm_args(types=(BF16, BF16, F32, F32)),
     ["argument 'y' has dtype f32; expected bf16"]),
    (gemm_args(w=DLPackArray(W, (64, 33), *BF16)),
     ["argument 'w' has shape (64, 33); expected (*, 32)"]),
    (gemm_args(scale=DLPackArray(SCALE, (65,), *F32)),
     ["argument 'scale' has shape (65,); expected (64,)"]),
    (gemm_args(y=DLPackArray(Y, (128, 65), *BF16)),
     ["argument 'y' has shape (128, 65); expected (128, 64)"]),
    (gemm_args(x=DLPackArray(X, (2, 128, 32), *BF16)),
     ["argument 'x' must be 2-D, got shape (2, 128, 32)"]),
    (gemm_args(y=DLPackArray(X + 64, (128, 64), *BF16)),
     ["arguments 'x' and 'y' overlap in memory"]),
    (gemm_args(scale=DLPackArray(SCALE, (64,), *F32, device=(1, 0))),
     ["argument 'scale' is on cpu:0; expected a CUDA tensor"]),
])
def test_gemm_rejects(args, parts):
    _check_message(lambda: tilec.gemm(**args), *parts)


def test_gemm_row_limit_is_unimplemented():
    rows = 65535 * 128 + 1
    _check_message(lambda: tilec.gemm(**gemm_args(m=rows, n=1, k=1)),
                   f"argument 'x' has {rows} rows; the GEMM kernels take at "
                   "most 8388480", code=12)


def test_gemm_allocates_only_for_torch():
    args = gemm_args()
    del args["y"]
    _check_message(lambda: tilec.gemm(**args),
                   "argument 'y' was not given",
                   "only for torch and CuPy inputs")


I32, I64 = (0, 32), (0, 64)
KV, TABLE, LENS, OUT = 4 << 30, 5 << 30, 6 << 30, 7 << 30


def decode_args(b=2, h=8, hkv=2, d=64, pages=10, width=5, **changes):
    """Valid paged-decode arguments, then `changes`."""
    args = dict(query=DLPackArray(X, (b, h, d), *BF16),
                kv_cache=DLPackArray(KV, (pages, 16, hkv, 2 * d), *BF16),
                block_table=DLPackArray(TABLE, (b, width), *I32),
                seq_lens=DLPackArray(LENS, (b,), *I32),
                out=DLPackArray(OUT, (b, h, d), *BF16))
    args.update(changes)
    return args


@pytest.mark.parametrize("args, parts", [
    (decode_args(query=DLPackArray(X, (2, 8, 64), *F32)),
     ["tilec.paged_decode: argument 'query' has dtype f32; expected bf16"]),
    (decode_args(kv_cache=DLPackArray(KV, (10, 8, 2, 128), *BF16)),
     ["argument 'kv_cache' has shape (10, 8, 2, 128)"]),
    (decode_args(kv_cache=DLPackArray(KV, (10, 16, 3, 128), *BF16)),
     ["3 kv heads, which do not divide the query's 8 heads"]),
    (decode_args(block_table=DLPackArray(TABLE, (2, 5), *I64)),
     ["argument 'block_table' has dtype i64; expected i32"]),
    (decode_args(seq_lens=DLPackArray(LENS, (3,), *I32)),
     ["argument 'seq_lens' has shape (3,); expected (2,)"]),
    (decode_args(out=DLPackArray(KV, (2, 8, 64), *BF16)),
     ["arguments 'kv_cache' and 'out' overlap"]),
])
def test_paged_decode_rejects(args, parts):
    _check_message(lambda: tilec.paged_decode(**args), *parts)


def test_paged_decode_head_dim_is_unimplemented():
    _check_message(lambda: tilec.paged_decode(**decode_args(d=96)),
                   "argument 'query' has head dim 96", code=12)


def test_paged_decode_allocates_only_for_torch():
    args = decode_args()
    del args["out"]
    _check_message(lambda: tilec.paged_decode(**args),
                   "argument 'out' was not given")


KK, KV_, KG, KB, KO, KH0, KHT, KCU = (8 << 30, 9 << 30, 10 << 30, 11 << 30,
                                     12 << 30, 13 << 30, 14 << 30, 15 << 30)


def kda_args(b=1, t=100, h=2, d=64, **changes):
    """Valid KDA arguments (final state and offsets given), then
    `changes`."""
    args = dict(q=DLPackArray(X, (b, t, h, d), *BF16),
                k=DLPackArray(KK, (b, t, h, d), *BF16),
                v=DLPackArray(KV_, (b, t, h, d), *BF16),
                g=DLPackArray(KG, (b, t, h, d), *F32),
                beta=DLPackArray(KB, (b, t, h), *BF16),
                out=DLPackArray(KO, (b, t, h, d), *BF16))
    args.update(changes)
    return args


@pytest.mark.parametrize("args, parts", [
    (kda_args(q=DLPackArray(X, (1, 100, 2, 64), *F32)),
     ["tilec.kda_forward: argument 'q' has dtype f32; expected bf16"]),
    (kda_args(k=DLPackArray(KK, (1, 100, 3, 64), *BF16)),
     ["argument 'k' has shape (1, 100, 3, 64); expected (1, 100, 2, 64)"]),
    (kda_args(g=DLPackArray(KG, (1, 100, 2, 64), *BF16)),
     ["argument 'g' has dtype bf16; expected f32"]),
    (kda_args(beta=DLPackArray(KB, (1, 100, 2, 1), *BF16)),
     ["argument 'beta' must be 3-D"]),
    (kda_args(out=DLPackArray(KK, (1, 100, 2, 64), *BF16)),
     ["arguments 'k' and 'o' overlap"]),
    (kda_args(initial_state=DLPackArray(KH0, (1, 2, 64, 32), *F32)),
     ["argument 'initial_state' has shape (1, 2, 64, 32); "
      "expected (1, 2, 64, 64)"]),
    (kda_args(final_state=DLPackArray(KHT, (1, 2, 64, 64), *BF16)),
     ["argument 'final_state' has dtype bf16; expected f32"]),
    (kda_args(cu_seqlens=DLPackArray(KCU, (3,), *I64)),
     ["argument 'cu_seqlens' has dtype i64; expected i32"]),
    (kda_args(b=2, cu_seqlens=DLPackArray(KCU, (3,), *I32)),
     ["argument 'q' has batch 2"]),
])
def test_kda_forward_rejects(args, parts):
    _check_message(lambda: tilec.kda_forward(**args), *parts)


def test_kda_forward_head_dim_is_unimplemented():
    _check_message(lambda: tilec.kda_forward(**kda_args(d=96)),
                   "argument 'q' has head dim K = 96", code=12)


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


def _gemm_reference(torch, x, w, scale):
    return (x.float() @ w.float().t() * scale).bfloat16()


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float8_e4m3fn"])
def test_gemm_matches_torch(dtype_name):
    """Both element types, the allocating and the preallocated form, a
    ragged shape (M, N not multiples of the 128 x 128 tile)."""
    torch = _torch_with_kernels()
    if "gemm" not in {name for name, target in tilec.list_embedded()
                      if target == tilec.default_target()}:
        pytest.skip("the runtime library has no embedded gemm")
    dtype = getattr(torch, dtype_name, None)
    if dtype is None:
        pytest.skip(f"this torch has no {dtype_name}")
    m, n, k = 200, 136, 256
    x = (torch.randn(m, k, device="cuda") * 0.5).to(dtype)
    w = (torch.randn(n, k, device="cuda") * 0.5).to(dtype)
    scale = torch.rand(n, device="cuda") + 0.5
    reference = _gemm_reference(torch, x, w, scale)
    y = tilec.gemm(x, w, scale)
    assert y.dtype == torch.bfloat16 and y.shape == (m, n)
    torch.testing.assert_close(y.float(), reference.float(), atol=2e-2,
                               rtol=2e-2)
    out = torch.full((m, n), float("nan"), dtype=torch.bfloat16,
                     device="cuda")
    assert tilec.gemm(x, w, scale, out) is out
    torch.testing.assert_close(out.float(), reference.float(), atol=2e-2,
                               rtol=2e-2)


def test_gemm_pads_unaligned_rows():
    """K = 4127: rows are not 16-byte aligned, so the entry point pads them
    into scratch before the GEMM; twice, to reuse the stream's scratch."""
    torch = _torch_with_kernels()
    if "gemm" not in {name for name, target in tilec.list_embedded()
                      if target == tilec.default_target()}:
        pytest.skip("the runtime library has no embedded gemm")
    m, n, k = 70, 130, 4127
    for _ in range(2):
        x = (torch.randn(m, k, device="cuda") * 0.5).bfloat16()
        w = (torch.randn(n, k, device="cuda") * 0.5).bfloat16()
        scale = torch.rand(n, device="cuda") + 0.5
        y = tilec.gemm(x, w, scale)
        torch.testing.assert_close(y.float(),
                                   _gemm_reference(torch, x, w,
                                                   scale).float(),
                                   atol=5e-2, rtol=2e-2)


def _decode_reference(torch, query, kv_cache, block_table, seq_lens):
    """float32 attention over each sequence's pages, gathered here."""
    b, h, d = query.shape
    hkv = kv_cache.shape[2]
    out = torch.zeros(b, h, d, device=query.device)
    for i in range(b):
        length = int(seq_lens[i])
        if length == 0:
            continue
        pages = block_table[i, :(length + 15) // 16].long()
        kv = kv_cache[pages].reshape(-1, hkv, 2 * d)[:length].float()
        keys = kv[..., :d].repeat_interleave(h // hkv, dim=1)
        values = kv[..., d:].repeat_interleave(h // hkv, dim=1)
        scores = torch.einsum("hd,thd->ht", query[i].float(), keys) / d**0.5
        out[i] = torch.einsum("ht,thd->hd", scores.softmax(dim=-1), values)
    return out


@pytest.mark.parametrize("d", [64, 128])
def test_paged_decode_matches_torch(d):
    """Ragged lengths (0, 1, a non-multiple of 16, the whole table), pages
    in random order, the allocating and the preallocated form."""
    torch = _torch_with_kernels()
    if "paged_decode" not in {name for name, target in tilec.list_embedded()
                              if target == tilec.default_target()}:
        pytest.skip("the runtime library has no embedded paged_decode")
    b, h, hkv, width = 4, 16, 4, 12
    pages = b * width + 3
    query = torch.randn(b, h, d, device="cuda").bfloat16()
    kv_cache = torch.randn(pages, 16, hkv, 2 * d, device="cuda").bfloat16()
    block_table = torch.randperm(pages, device="cuda")[:b * width].reshape(
        b, width).int()
    seq_lens = torch.tensor([0, 1, 77, width * 16], device="cuda",
                            dtype=torch.int32)
    reference = _decode_reference(torch, query, kv_cache, block_table,
                                  seq_lens)
    out = tilec.paged_decode(query, kv_cache, block_table, seq_lens)
    assert out.dtype == torch.bfloat16 and out.shape == (b, h, d)
    torch.testing.assert_close(out.float(), reference, atol=2e-2, rtol=2e-2)
    given = torch.full((b, h, d), float("nan"), dtype=torch.bfloat16,
                       device="cuda")
    assert tilec.paged_decode(query, kv_cache, block_table, seq_lens,
                              given) is given
    torch.testing.assert_close(given.float(), reference, atol=2e-2,
                               rtol=2e-2)


@pytest.mark.parametrize("make_call, parts", [
    (lambda torch, x, w, s: tilec.gemm(x.cpu(), w, s),
     ["argument 'x' is on cpu; expected a CUDA tensor"]),
    (lambda torch, x, w, s: tilec.gemm(x.half(), w.half(), s),
     ["argument 'x' has dtype f16; expected bf16 or f8e4m3"]),
    (lambda torch, x, w, s: tilec.gemm(x, w.to(torch.float8_e4m3fn), s),
     ["argument 'w' has dtype f8e4m3; expected bf16"]),
    (lambda torch, x, w, s: tilec.gemm(x, w, s.double()),
     ["argument 'scale' has dtype f64; expected f32"]),
    (lambda torch, x, w, s: tilec.gemm(x, w.t(), s),
     ["argument 'w' has shape"]),
    (lambda torch, x, w, s: tilec.gemm(x, w, s, torch.empty(
        64, 48, device="cuda")),
     ["argument 'y' has dtype f32; expected bf16"]),
    (lambda torch, x, w, s: tilec.gemm(x, w, s, x[:, :48]),
     ["argument 'y' must be contiguous"]),
])
def test_rejected_gemm_calls_leave_the_context_usable(make_call, parts):
    torch = _torch_with_kernels()
    x = torch.randn(64, 96, device="cuda").bfloat16()
    w = torch.randn(48, 96, device="cuda").bfloat16()
    scale = torch.ones(48, device="cuda")
    with pytest.raises(tilec.TilecError) as error:
        make_call(torch, x, w, scale)
    for part in parts:
        assert part in str(error.value), str(error.value)
    _expect_healthy(torch)


def _kda_reference(torch, q, k, v, g, beta, scale, h0, cu):
    """The per-token recurrence in float64, per packed sequence."""
    _, t, h, d = q.shape
    q, k, v, g, beta = (x[0].double() for x in (q, k, v, g, beta))
    o = torch.zeros(t, h, d, dtype=torch.float64, device=q.device)
    states = []
    for n in range(len(cu) - 1):
        s = h0[n].double().clone()
        for i in range(int(cu[n]), int(cu[n + 1])):
            s = s * g[i].exp().unsqueeze(-1)
            kv = torch.einsum("hkv,hk->hv", s, k[i])
            u = beta[i].unsqueeze(-1) * (v[i] - kv)
            s = s + torch.einsum("hk,hv->hkv", k[i], u)
            o[i] = scale * torch.einsum("hkv,hk->hv", s, q[i])
        states.append(s)
    return o.unsqueeze(0), torch.stack(states)


@pytest.mark.parametrize("schedule", ["single"])
def test_kda_forward_matches_recurrence(schedule):
    """Packed sequences (int64 offsets, converted), an initial and a final
    state, K = V = 64."""
    torch = _torch_with_kernels()
    if "kda" not in {name for name, target in tilec.list_embedded()
                     if target == tilec.default_target()}:
        pytest.skip("the runtime library has no embedded kda")
    cu = torch.tensor([0, 1, 70, 70, 200], device="cuda")  # int64
    t, h, d = 200, 2, 64
    q, k, v = ((torch.randn(1, t, h, d, device="cuda") * 0.1).bfloat16()
               for _ in range(3))
    g = torch.randn(1, t, h, d, device="cuda") * 0.1 - 0.05
    beta = torch.sigmoid(torch.randn(1, t, h, device="cuda")).bfloat16()
    h0 = torch.randn(4, h, d, d, device="cuda") * 0.05
    o, ht = tilec.kda_forward(q, k, v, g, beta, initial_state=h0,
                              output_final_state=True, cu_seqlens=cu,
                              schedule=schedule)
    ref_o, ref_ht = _kda_reference(torch, q, k, v, g, beta, d ** -0.5, h0,
                                   cu.tolist())
    assert o.dtype == torch.bfloat16 and o.shape == q.shape
    assert ht.dtype == torch.float32 and ht.shape == (4, h, d, d)
    tol = 0.02 * ref_o.abs().max().item()
    torch.testing.assert_close(o.double(), ref_o, atol=tol, rtol=0)
    torch.testing.assert_close(ht.double(), ref_ht,
                               atol=0.01 * ref_ht.abs().max().item(),
                               rtol=0.01)

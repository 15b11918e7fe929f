"""Tests of the tilec Python package (runtime/python/tilec).

Needs libtilec_runtime.so (TILEC_RUNTIME_LIB, or build/lib). Launch tests
need a CUDA device and PyTorch and skip without them. The PTX and metadata
default to the add_one fixture; TILEC_TEST_PTX / TILEC_TEST_METADATA select
others, which must define the same add_one(data: ptr i32, n: i32) kernel.
"""

import os
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "runtime" / "python"))

import tilec  # noqa: E402

PTX = pathlib.Path(os.environ.get("TILEC_TEST_PTX", HERE / "fixtures" / "add_one.ptx"))
METADATA = pathlib.Path(
    os.environ.get("TILEC_TEST_METADATA", HERE / "fixtures" / "add_one.json"))


def test_malformed_metadata_raises_without_a_device():
    with pytest.raises(tilec.TilecError) as error:
        tilec.Module.load(PTX.read_text(), '{"format": ')
    assert "malformed JSON at byte 11" in str(error.value)
    assert error.value.code == 3


def test_unknown_kind_is_named():
    bad = METADATA.read_text().replace('"kind": "i32"', '"kind": "int"')
    with pytest.raises(tilec.TilecError, match="unknown kind 'int'"):
        tilec.Module.load(PTX.read_text(), bad)


def test_nothing_embedded_in_the_plain_library():
    assert isinstance(tilec.list_embedded(), list)
    with pytest.raises(tilec.TilecError, match="no embedded module"):
        tilec.Module.embedded("no_such_module", "sm_80")


def test_device_available_is_a_bool():
    assert tilec.device_available() in (True, False)


def _torch_with_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or not tilec.device_available():
        pytest.skip("no CUDA device")
    return torch


@pytest.fixture
def add_one():
    torch = _torch_with_cuda()
    torch.cuda.init()
    module = tilec.Module.from_files(PTX, METADATA)
    yield torch, module.kernel("add_one")
    module.close()


def test_launch_adds_one(add_one):
    torch, kernel = add_one
    data = torch.arange(1000, dtype=torch.int32, device="cuda")
    kernel(((1000 + 127) // 128,), data, 1000)
    torch.cuda.synchronize()
    assert torch.equal(data.cpu(), torch.arange(1, 1001, dtype=torch.int32))


def test_launch_on_an_explicit_stream_and_raw_pointer(add_one):
    torch, kernel = add_one
    data = torch.zeros(256, dtype=torch.int32, device="cuda")
    stream = torch.cuda.Stream()
    kernel(2, data.data_ptr(), 100, stream=stream)
    stream.synchronize()
    assert int(data.sum()) == 100


def _needs_clusters(torch):
    if torch.cuda.get_device_capability()[0] < 9:
        pytest.skip("thread-block clusters need sm_90 or newer")


def test_launch_in_clusters(add_one):
    torch, kernel = add_one
    _needs_clusters(torch)
    data = torch.arange(1000, dtype=torch.int32, device="cuda")
    kernel(8, data, 1000, cluster=2)
    torch.cuda.synchronize()
    assert torch.equal(data.cpu(), torch.arange(1, 1001, dtype=torch.int32))
    assert kernel.max_active_clusters(2) >= 1
    assert kernel.max_active_clusters((4, 1, 1)) >= 1


def test_cluster_errors(add_one):
    torch, kernel = add_one
    _needs_clusters(torch)
    data = torch.zeros(4, dtype=torch.int32, device="cuda")
    with pytest.raises(tilec.TilecError, match="must divide the grid"):
        kernel(4, data, 4, cluster=3)
    with pytest.raises(tilec.TilecError, match="1 to 8 programs"):
        kernel(16, data, 4, cluster=16)
    with pytest.raises(tilec.TilecError, match="cluster must be 1 to 3"):
        kernel(4, data, 4, cluster=(1, 1, 1, 1))


def test_kernel_metadata_is_exposed(add_one):
    _, kernel = add_one
    assert kernel.block == (128, 1, 1)
    assert [p["name"] for p in kernel.params] == ["data", "n"]


@pytest.mark.parametrize(
    "make_args, message",
    [
        (lambda t: (t.float(), 4), "argument 0 ('data') expects elements of type i32"),
        (lambda t: (t.cpu(), 4), "argument 0 ('data') must be a CUDA tensor"),
        (lambda t: (t.view(2, 2).t(), 4), "argument 0 ('data') must be a contiguous"),
        (lambda t: (t, 4.0), "argument 1 ('n') expects i32, got float"),
        (lambda t: (t, 2**31), "argument 1 ('n') value 2147483648 is out of range"),
        (lambda t: (t, "4"), "argument 1 ('n') expects i32, got str"),
        (lambda t: ("x", 4), "argument 0 ('data') expects a tensor or a device address"),
        (lambda t: (0, 4), "argument 0 ('data') is a null pointer"),
        (lambda t: (t,), "expects 2 arguments (data: ptr, n: i32), got 1"),
    ],
)
def test_argument_errors_name_the_parameter(add_one, make_args, message):
    torch, kernel = add_one
    data = torch.zeros(4, dtype=torch.int32, device="cuda")
    with pytest.raises(tilec.TilecError) as error:
        kernel(1, *make_args(data))
    assert message in str(error.value)


def test_grid_errors(add_one):
    torch, kernel = add_one
    data = torch.zeros(4, dtype=torch.int32, device="cuda")
    with pytest.raises(tilec.TilecError, match="grid.x must be in"):
        kernel((0,), data, 4)
    with pytest.raises(tilec.TilecError, match="grid must be 1 to 3"):
        kernel((1, 1, 1, 1), data, 4)


def test_unknown_kernel_lists_available():
    _torch_with_cuda()
    module = tilec.Module.from_files(PTX, METADATA)
    with pytest.raises(tilec.TilecError, match="available: add_one"):
        module.kernel("nope")
    module.close()
    with pytest.raises(tilec.TilecError, match="closed"):
        module.kernel("add_one")


def test_paged_decode_plan_names_the_kernel_and_span():
    assert tilec.paged_decode_plan(8, 32, 8, 128, 64) == (
        "paged_decode_d128_w8", 64)
    assert tilec.paged_decode_plan(32, 32, 8, 128, 128) == (
        "paged_decode_d128", 128)
    assert tilec.paged_decode_plan(8, 16, 4, 64, 125) == (
        "paged_decode_d64", 32)
    with pytest.raises(ValueError, match="head_dim 96"):
        tilec.paged_decode_plan(8, 32, 8, 96, 64)


def test_topk_strategy_names_the_path():
    assert tilec.topk_strategy(16384, 64, 64) == "rows"
    assert tilec.topk_strategy(1, 1000, 64) == "rows_few"
    assert tilec.topk_strategy(16384, 64, 8) == "rows_select"
    assert tilec.topk_strategy(1, 131072, 64) == "split"
    assert tilec.topk_strategy(1024, 50257, 4096) == "large_k"

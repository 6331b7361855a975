"""gradbook.save / gradbook.load in torch's zip format: round trips, the weights_only refusals, files
made to attack the loader, and (with torch installed) files crossing between the two libraries."""

from __future__ import annotations

import collections
import copy
import io
import pickle
import zipfile

import numpy as np
import pytest

import gradbook
from gradbook import nn


def round_trip(obj, **load_kw):
    buffer = io.BytesIO()
    gradbook.save(obj, buffer)
    buffer.seek(0)
    return gradbook.load(buffer, **load_kw)


def test_a_state_dict_comes_back_equal_and_loads_into_a_new_module():
    gradbook.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    state = round_trip(net.state_dict())
    assert list(state) == list(net.state_dict())
    for name, value in net.state_dict().items():
        assert np.array_equal(state[name].numpy(), value.numpy()) and state[name].dtype == value.dtype
    other = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    other.load_state_dict(state)
    x = gradbook.randn(5, 3)
    assert np.array_equal(other(x).detach().numpy(), net(x).detach().numpy())


@pytest.mark.parametrize(
    "make",
    [
        lambda: gradbook.tensor(3.5, dtype=gradbook.float64),  # 0-d
        lambda: gradbook.arange(6.0).reshape(2, 3).t(),  # not contiguous
        lambda: gradbook.tensor([True, False]),
        lambda: gradbook.tensor([[1, 2]], dtype=gradbook.int32),
        lambda: gradbook.zeros(0, 3),
        lambda: gradbook.ones(2, dtype=gradbook.float16),
    ],
)
def test_values_dtypes_and_shapes_survive(make):
    t = make()
    back = round_trip(t)
    assert back.dtype == t.dtype and back.shape == t.shape
    assert np.array_equal(back.numpy(), t.numpy())


def test_requires_grad_and_parameters_survive_but_not_the_graph():
    x = gradbook.ones(2, requires_grad=True)
    (x * 2).sum().backward()
    back = round_trip({"x": x, "y": x * 3, "p": nn.Parameter(gradbook.ones(1))})
    assert back["x"].requires_grad and back["x"].is_leaf and back["x"].grad is None
    assert back["y"].requires_grad and back["y"].is_leaf  # as torch: a non-leaf comes back a leaf
    assert type(back["p"]) is nn.Parameter and back["p"].requires_grad


def test_loaded_tensors_are_writable_and_independent_of_each_other():
    back = round_trip([gradbook.ones(2), gradbook.ones(2)])
    back[0].add_(1)
    assert back[0].tolist() == [2.0, 2.0] and back[1].tolist() == [1.0, 1.0]


def test_an_optimizer_state_round_trips():
    net = nn.Linear(2, 1)
    opt = gradbook.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    net(gradbook.ones(1, 2)).sum().backward()
    opt.step()
    state = round_trip(opt.state_dict())
    assert state["param_groups"][0]["momentum"] == 0.9
    assert np.array_equal(
        state["state"][0]["momentum_buffer"].numpy(), opt.state_dict()["state"][0]["momentum_buffer"].numpy()
    )


def test_a_whole_module_needs_weights_only_false():
    net = nn.Linear(2, 1)
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL gradbook.nn.modules.linear.Linear"):
        round_trip(net)
    back = round_trip(net, weights_only=False)
    assert type(back) is nn.Linear and np.array_equal(back.weight.detach().numpy(), net.weight.detach().numpy())
    with gradbook.serialization.safe_globals([nn.Linear]):
        assert type(round_trip(net)) is nn.Linear  # (Linear's state holds only plain data and tensors)
    with pytest.raises(pickle.UnpicklingError):
        round_trip(net)  # the allowance ended with the block


def _archive(pickled: bytes, storages: dict[str, bytes] | None = None) -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("archive/data.pkl", pickled)
        for key, raw in (storages or {}).items():
            z.writestr(f"archive/data/{key}", raw)
    buffer.seek(0)
    return buffer


def test_a_file_that_would_run_code_is_refused_without_running_it(tmp_path):
    marker = tmp_path / "ran"

    class Attack:
        def __reduce__(self):
            return (exec, (f"open({str(marker)!r}, 'w').write('x')",))

    with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL builtins.exec"):
        gradbook.load(_archive(pickle.dumps(Attack(), protocol=2)))
    assert not marker.exists()


def test_a_file_whose_strides_reach_outside_its_bytes_is_refused():
    good = io.BytesIO()
    gradbook.save(gradbook.ones(4), good)
    with zipfile.ZipFile(io.BytesIO(good.getvalue())) as z:
        pickled, raw = z.read("archive/data.pkl"), z.read("archive/data/0")
    # the same pickle, with size (4,) made (4000,): it would read memory after the 16 bytes
    bad = pickled.replace(b"K\x04\x85", b"M\xa0\x0f\x85", 1)
    assert bad != pickled
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 16"):
        gradbook.load(_archive(bad, {"0": raw}))


def test_locations_other_than_the_cpu():
    good = io.BytesIO()
    gradbook.save(gradbook.ones(2), good)
    with zipfile.ZipFile(io.BytesIO(good.getvalue())) as z:
        pickled, raw = z.read("archive/data.pkl"), z.read("archive/data/0")
    on_gpu = pickled.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
    with pytest.raises(RuntimeError, match="map_location=torch.device\\('cpu'\\)"):
        gradbook.load(_archive(on_gpu, {"0": raw}))
    assert gradbook.load(_archive(on_gpu, {"0": raw}), map_location="cpu").tolist() == [1.0, 1.0]
    assert gradbook.load(_archive(on_gpu, {"0": raw}), map_location={"cuda:0": "cpu"}).tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="CUDA device but torch.cuda.is_available"):
        gradbook.load(_archive(pickled, {"0": raw}), map_location="cuda")
    with pytest.raises(RuntimeError, match="don't know how to restore data location"):
        gradbook.load(_archive(pickled, {"0": raw}), map_location="meta")
    seen = []
    assert gradbook.load(_archive(on_gpu, {"0": raw}), map_location=lambda s, loc: seen.append(loc) or s).tolist() == [
        1.0,
        1.0,
    ]
    assert seen == ["cuda:0"]  # the callable is asked where each storage was saved
    with pytest.raises(RuntimeError, match="CUDA device"):  # None from it: the saved place, as torch
        gradbook.load(_archive(on_gpu, {"0": raw}), map_location=lambda s, loc: None)
    with pytest.raises(TypeError, match="map_location"):
        gradbook.load(_archive(pickled, {"0": raw}), map_location=0)


def test_views_saved_together_share_memory_again_as_in_torch():
    t = gradbook.arange(6.0)
    back = round_trip({"t": t, "v": t[2:4], "w": t.reshape(2, 3).t()})
    back["t"][2] = 100.0
    assert back["v"].tolist() == [100.0, 3.0] and back["w"][2, 0].item() == 100.0


def test_a_big_endian_file_is_read_in_its_byte_order():
    good = io.BytesIO()
    gradbook.save(gradbook.tensor([1.5, -2.0]), good)
    with zipfile.ZipFile(io.BytesIO(good.getvalue())) as z:
        pickled, raw = z.read("archive/data.pkl"), z.read("archive/data/0")
    swapped = np.frombuffer(raw, dtype="<f4").astype(">f4").tobytes()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("archive/data.pkl", pickled)
        z.writestr("archive/byteorder", b"big")
        z.writestr("archive/data/0", swapped)
    buffer.seek(0)
    assert gradbook.load(buffer).tolist() == [1.5, -2.0]


def test_plain_data_torch_allows_round_trips():
    data = {"b": b"abc", "a": bytearray(b"x"), "c": collections.Counter("aab"), "d": gradbook.device("cpu")}
    assert round_trip(data) == data


def test_damaged_records_are_refused():
    good = io.BytesIO()
    gradbook.save(gradbook.ones(4), good)
    with zipfile.ZipFile(io.BytesIO(good.getvalue())) as z:
        pickled, raw = z.read("archive/data.pkl"), z.read("archive/data/0")
    with pytest.raises(RuntimeError, match="damaged"):
        gradbook.load(_archive(pickled, {"0": raw + b"\0" * 400}))
    int_storage = pickled.replace(b"FloatStorage", b"IntStorage").replace(b"\x89", b"\x88")  # requires_grad=True
    with pytest.raises(RuntimeError, match="floating point"):
        gradbook.load(_archive(int_storage, {"0": raw}))
    with pytest.raises(NotImplementedError, match="uint8"):
        gradbook.load(_archive(pickled.replace(b"FloatStorage", b"ByteStorage"), {"0": raw * 4}))


def test_safe_globals_take_a_name_for_a_class_saved_under_another():
    buffer = io.BytesIO()
    gradbook.save(Box(), buffer)
    with pytest.raises(pickle.UnpicklingError, match="test_serialization.Box"):
        gradbook.load(io.BytesIO(buffer.getvalue()))
    with gradbook.serialization.safe_globals([(Box, "test_serialization.Box")]):
        assert type(gradbook.load(io.BytesIO(buffer.getvalue()))) is Box


class Box:
    """A class of the test's own, saved whole."""


def test_not_a_torch_file():
    with pytest.raises(pickle.UnpicklingError, match="zip format"):
        gradbook.load(io.BytesIO(b"plain bytes"))


def test_save_to_a_path_names_the_archive_after_the_file(tmp_path):
    path = tmp_path / "weights.pt"
    gradbook.save({"w": gradbook.ones(1)}, path)
    assert zipfile.ZipFile(path).namelist()[0] == "weights/data.pkl"
    assert gradbook.load(str(path))["w"].tolist() == [1.0]


def test_pickle_and_deepcopy_of_tensors_and_modules():
    x = gradbook.ones(2, requires_grad=True)
    (x * 2).sum().backward()  # a tensor that went through backward (it holds a weak reference to its node)
    assert pickle.loads(pickle.dumps(x)).requires_grad
    net = nn.Linear(2, 1)
    twin = copy.deepcopy(net)
    assert twin.weight is not net.weight and type(twin.weight) is nn.Parameter
    assert np.array_equal(twin.weight.detach().numpy(), net.weight.detach().numpy())


# ------------------------------------------------ across the two libraries


def test_a_gradbook_file_loads_in_torch_and_a_torch_file_in_gradbook(tmp_path):
    torch = pytest.importorskip("torch")
    gradbook.manual_seed(3)
    ours = {
        "w": gradbook.randn(2, 3),
        "b": gradbook.tensor([1, 2]),
        "p": nn.Parameter(gradbook.ones(2)),
        "t": gradbook.arange(6.0).reshape(2, 3).t(),
        "s": gradbook.tensor(2.5, dtype=gradbook.float64),
    }
    gradbook.save(ours, tmp_path / "ours.pt")
    theirs = torch.load(tmp_path / "ours.pt")
    for name, value in ours.items():
        assert np.array_equal(theirs[name].detach().numpy(), value.detach().numpy()), name
        assert str(theirs[name].dtype).split(".")[1] == str(value.dtype).split(".")[1], name
    assert type(theirs["p"]) is torch.nn.Parameter
    net = torch.nn.Linear(3, 2)
    torch.save(net.state_dict(), tmp_path / "theirs.pt")
    mine = nn.Linear(3, 2)
    mine.load_state_dict(gradbook.load(tmp_path / "theirs.pt"))
    for name, value in net.state_dict().items():
        assert np.array_equal(mine.state_dict()[name].numpy(), value.numpy()), name

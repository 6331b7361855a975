"""gradbook.nn as teaching programs use it: modules and their methods, containers, state_dict,
hooks, printing, and gradbook.nn.init. Hand-derived checks first, then programs run on torch too."""

import math
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import gradbook
from gradbook import nn


def set_weights(model, T=gradbook):
    """Every parameter from NumPy (torch and gradbook initialise differently)."""
    with T.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(T.tensor(np.linspace(-1, 1, p.numel()).reshape(tuple(p.shape)) * (i + 1) / 3, dtype=p.dtype))
    return model


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.bn = nn.BatchNorm1d(4)
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(4, 2, bias=False))
        self.register_buffer("steps", gradbook.tensor(0))
        self.register_buffer("scratch", gradbook.zeros(2), persistent=False)

    def forward(self, x):
        return self.head(self.bn(self.fc(x)))


# ================================================================ registration


def test_parameters_buffers_and_modules_are_registered_in_order():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == ["fc.weight", "fc.bias", "bn.weight", "bn.bias", "head.1.weight"]
    assert [n for n, _ in net.named_parameters(recurse=False)] == []
    assert [n for n, _ in net.named_buffers()] == [
        "steps",
        "scratch",
        "bn.running_mean",
        "bn.running_var",
        "bn.num_batches_tracked",
    ]
    assert [n for n, _ in net.named_children()] == ["fc", "bn", "head"]
    assert [n for n, _ in net.named_modules()] == ["", "fc", "bn", "head", "head.0", "head.1"]
    assert len(list(net.modules())) == 6 and list(net.children())[0] is net.fc
    assert net.head[1].bias is None and "bias" in net.head[1]._parameters


def test_state_dict_holds_parameters_and_persistent_buffers_detached():
    net = Net()
    sd = net.state_dict()
    assert isinstance(sd, OrderedDict)
    assert (
        list(sd)
        == [
            "steps",
            "fc.weight",
            "fc.bias",
            "bn.weight",
            "bn.bias",
            "bn.running_mean",
            "bn.running_var",
            "bn.num_batches_tracked",
            "head.1.weight",
        ]
        or list(sd)[0] == "steps"
    )
    assert not sd["fc.weight"].requires_grad and sd["bn.num_batches_tracked"].dtype == gradbook.int64
    assert net.state_dict(keep_vars=True)["fc.weight"] is net.fc.weight


def test_load_state_dict_copies_values_into_the_same_tensors():
    a, b = set_weights(Net()), Net()
    weight = b.fc.weight
    assert repr(b.load_state_dict(a.state_dict())) == "<All keys matched successfully>"
    assert b.fc.weight is weight and b.fc.weight.equal(a.fc.weight)
    sd = a.state_dict()
    del sd["fc.bias"]
    sd["extra"] = gradbook.ones(1)
    result = b.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["fc.bias"] and result.unexpected_keys == ["extra"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "fc.bias"'):
        b.load_state_dict(sd)


def test_assigning_a_plain_tensor_to_a_parameter_is_refused():
    lin = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="cannot assign 'gradbook.FloatTensor' as parameter 'weight'"):
        lin.weight = gradbook.ones(2, 2)
    lin.weight = None
    assert [n for n, _ in lin.named_parameters()] == ["bias"]


# ================================================================ modes, gradients, dtypes


def test_train_and_eval_reach_every_submodule():
    net = Net().eval()
    assert not any(m.training for m in net.modules())
    assert all(m.training for m in net.train().modules())


def test_zero_grad_requires_grad_and_apply():
    net = set_weights(Net())
    net(gradbook.ones(2, 3)).sum().backward()
    net.zero_grad(set_to_none=False)
    assert net.fc.weight.grad.abs().sum().item() == 0
    net.zero_grad()
    assert net.fc.weight.grad is None
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "BatchNorm1d", "ReLU", "Linear", "Sequential", "Net"]  # children first


def test_to_converts_floating_parameters_and_buffers_in_place():
    net = Net()
    weight = net.fc.weight
    assert net.to("cpu") is net
    net.to(gradbook.float64)
    assert net.fc.weight is weight and weight.dtype == gradbook.float64 and weight.requires_grad
    assert net.bn.running_mean.dtype == gradbook.float64 and net.bn.num_batches_tracked.dtype == gradbook.int64

    assert net.to(gradbook.device("cpu"), dtype=gradbook.float32).fc.weight.dtype == gradbook.float32
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):  # torch's text
        net.to("cuda")
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point"):
        net.to(gradbook.int64)


# ================================================================ layers


def test_batch_norm_running_statistics_by_hand():
    bn = nn.BatchNorm1d(2, momentum=0.5)
    x = gradbook.tensor([[1.0, 10.0], [3.0, 10.0], [5.0, 13.0]])
    bn(x)
    # batch mean (3, 11); unbiased var (4, 3); running = ½ old + ½ batch
    np.testing.assert_allclose(bn.running_mean.numpy(), [1.5, 5.5])
    np.testing.assert_allclose(bn.running_var.numpy(), [2.5, 2.0])
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    out = bn(gradbook.tensor([[1.5, 5.5]]))  # the running mean normalises to 0 in eval
    np.testing.assert_allclose(out.detach().numpy(), [[0.0, 0.0]], atol=1e-6)
    cumulative = nn.BatchNorm1d(1, momentum=None)
    for batch in ([[0.0], [2.0]], [[4.0], [6.0]]):
        cumulative(gradbook.tensor(batch))
    np.testing.assert_allclose(cumulative.running_mean.numpy(), [3.0])  # the average of the batch means


def test_dropout_zeroes_and_rescales_in_training_and_is_identity_in_eval():
    gradbook.manual_seed(0)
    drop = nn.Dropout(0.25)
    x = gradbook.ones(4000, requires_grad=True)
    y = drop(x)
    values = set(np.unique(y.detach().numpy()).tolist())
    assert (
        values == {0.0, float(np.float32(1) / np.float32(0.75))} and abs((y == 0).float().mean().item() - 0.25) < 0.03
    )
    assert y.grad_fn.name() == "MulBackward0"
    assert drop.eval()(x) is x and nn.Dropout(0.0)(x) is x


def test_embedding_rows_and_padding_row():
    emb = nn.Embedding(5, 3, padding_idx=0)
    assert emb.weight.shape == (5, 3) and emb.weight[0].abs().sum().item() == 0
    assert emb(gradbook.tensor([[1, 2], [0, 4]])).shape == (2, 2, 3)
    frozen = nn.Embedding.from_pretrained(gradbook.eye(3))
    assert not frozen.weight.requires_grad and frozen(gradbook.tensor([2])).tolist() == [[0.0, 0.0, 1.0]]


# ================================================================ hooks


def test_forward_hooks_see_and_may_replace_inputs_and_outputs():
    lin = set_weights(nn.Linear(2, 2))
    calls = []
    pre = lin.register_forward_pre_hook(lambda m, args: calls.append(("pre", len(args))))
    post = lin.register_forward_hook(lambda m, args, out: out * 0)
    assert lin(gradbook.ones(1, 2)).abs().sum().item() == 0 and calls == [("pre", 1)]
    pre.remove()
    post.remove()
    assert lin(gradbook.ones(1, 2)).abs().sum().item() > 0 and calls == [("pre", 1)]


def test_full_backward_hook_gets_gradients_shaped_as_inputs_and_outputs():
    lin = set_weights(nn.Linear(2, 3))
    seen = []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append((gi[0].shape, go[0].shape)))
    x = gradbook.ones(4, 2, requires_grad=True)
    y = lin(x)
    assert y.grad_fn.name() == "BackwardHookFunctionBackward"
    y.sum().backward()
    assert seen == [((4, 2), (4, 3))]
    np.testing.assert_allclose(x.grad.numpy(), np.ones((4, 3)) @ lin.weight.detach().numpy())

    zeroing = set_weights(nn.Linear(2, 3))
    zeroing.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0,))
    x = gradbook.ones(4, 2, requires_grad=True)
    zeroing(x).sum().backward()
    assert x.grad.abs().sum().item() == 0


# ================================================================ containers


def test_module_list_and_dict_register_their_modules():
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    layers.append(nn.ReLU())
    layers.insert(0, nn.Tanh())
    assert len(layers) == 5 and isinstance(layers[-1], nn.ReLU) and isinstance(layers[1:3], nn.ModuleList)
    del layers[0]
    assert [n for n, _ in layers.named_children()] == ["0", "1", "2", "3"]
    assert len(list(layers.parameters())) == 6
    with pytest.raises(IndexError, match="index 9 is out of range"):
        layers[9]
    d = nn.ModuleDict({"enc": nn.Linear(2, 2)})
    d["act"] = nn.ReLU()
    assert list(d) == ["enc", "act"] and "act" in d and len(list(d.parameters())) == 2


# ================================================================ init


def test_init_bounds_and_statistics():
    gradbook.manual_seed(0)
    w = nn.Parameter(gradbook.empty(400, 300))
    nn.init.kaiming_uniform_(w, nonlinearity="relu")
    bound = math.sqrt(6 / 300)  # √3 · √2/√fan_in
    assert w.abs().max().item() <= bound and w.abs().max().item() > 0.99 * bound
    assert w.requires_grad and w.grad_fn is None and w.dtype == gradbook.float32
    nn.init.kaiming_normal_(w, mode="fan_out")
    assert abs(np.std(w.detach().numpy()) - math.sqrt(2) / math.sqrt(400)) < 0.002  # gain √2 (a = 0), fan_out 400
    nn.init.xavier_uniform_(w, gain=2.0)
    assert w.abs().max().item() <= 2 * math.sqrt(6 / 700)
    nn.init.xavier_normal_(w)
    assert abs(np.std(w.detach().numpy()) - math.sqrt(2 / 700)) < 0.002
    nn.init.uniform_(w, -3, -2)
    assert -3 <= w.min().item() and w.max().item() < -2
    nn.init.normal_(w, 5.0, 0.1)
    assert abs(np.mean(w.detach().numpy()) - 5) < 0.01
    assert nn.init.zeros_(w).sum().item() == 0 and nn.init.ones_(w).mean().item() == 1
    assert nn.init.constant_(w, 0.5).max().item() == 0.5
    conv_like = gradbook.empty(8, 4, 3, 3)
    nn.init.kaiming_uniform_(conv_like, a=math.sqrt(5))  # fan_in = 4·3·3: Linear's and Conv's default
    assert conv_like.abs().max().item() <= 1 / math.sqrt(36)


def test_calculate_gain_values():
    g = nn.init.calculate_gain
    assert (g("linear"), g("sigmoid"), g("tanh"), g("relu"), g("selu")) == (1, 1, 5 / 3, math.sqrt(2), 0.75)
    assert g("leaky_relu", 0.2) == math.sqrt(2 / 1.04)


# ================================================================ against torch


def run(T, program):
    """What a program prints, or its exception's type and first line (torch. read as gradbook.)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return str(program(T)).replace("torch.", "gradbook.")
        except Exception as e:  # noqa: BLE001  (the exception is the outcome)
            return type(e).__name__ + ": " + str(e).split("\n")[0].replace("torch.", "gradbook.")


def everything(T):
    nn_ = T.nn
    return nn_.Sequential(
        nn_.Linear(2, 3),
        nn_.BatchNorm1d(3),
        nn_.BatchNorm1d(4, eps=0.1, momentum=None, affine=False, track_running_stats=False),
        nn_.BatchNorm1d(3, bias=False),
        nn_.Dropout(0.2),
        nn_.LeakyReLU(),
        nn_.LeakyReLU(0.2, inplace=True),
        nn_.GELU(),
        nn_.GELU("tanh"),
        nn_.Softmax(dim=1),
        nn_.LogSoftmax(1),
        nn_.Flatten(),
        nn_.Identity(),
        nn_.Embedding(10, 3, padding_idx=-1),
        nn_.BCELoss(),
        nn_.BCEWithLogitsLoss(pos_weight=T.ones(3)),
        nn_.L1Loss(reduction="sum"),
        nn_.SmoothL1Loss(),
        nn_.HuberLoss(),
        nn_.NLLLoss(),
        nn_.ModuleList([nn_.ReLU(), nn_.ReLU(), nn_.Tanh(), nn_.Linear(1, 1), nn_.Linear(1, 1), nn_.ReLU()]),
        nn_.ModuleDict({"a": nn_.ReLU(), "b": nn_.Sequential(nn_.Tanh(), nn_.ModuleList())}),
    )


def small(T):
    class Small(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = T.nn.Linear(3, 2)
            self.bn = T.nn.BatchNorm1d(2)
            self.drop = T.nn.Dropout(0.0)

        def forward(self, x):
            return self.drop(self.bn(self.fc(x)))

    return set_weights(Small(), T)


X = [[0.5, -1.0, 2.0], [1.5, 0.0, -0.5], [-1.0, 1.0, 1.0], [0.0, 2.0, 0.5]]


def trained(T, steps=3):
    model = small(T)
    x = T.tensor(X)
    for _ in range(steps):
        model.zero_grad()
        loss = (model(x) ** 2).mean()
        loss.backward()
        with T.no_grad():
            for p in model.parameters():
                p -= 0.1 * p.grad
    return model


def load(T, change):
    model = small(T)
    sd = model.state_dict()
    change(T, sd)
    return model.load_state_dict(sd)


PROGRAMS = {
    "repr of every module": lambda T: everything(T),
    "state_dict keys": lambda T: list(everything(T).state_dict()),
    "named_modules": lambda T: [n for n, _ in everything(T).named_modules()],
    "parameter repr": lambda T: T.nn.Parameter(T.ones(2, dtype=T.float64)),
    "parameter without grad": lambda T: T.nn.Parameter(T.ones(2), requires_grad=False),
    "parameter times 2": lambda T: T.nn.Parameter(T.ones(2)) * 2,
    "batch norm state_dict": lambda T: T.nn.BatchNorm1d(2).state_dict(),
    "trained running stats": lambda T: (lambda m: (m.bn.running_mean, m.bn.running_var, m.bn.num_batches_tracked))(
        trained(T)
    ),
    "trained weights": lambda T: [p.detach().numpy().round(5).tolist() for p in trained(T).parameters()],
    "eval output": lambda T: trained(T).eval()(T.tensor(X)).detach().numpy().round(5).tolist(),
    "eval grad_fn": lambda T: trained(T).eval()(T.tensor(X)).grad_fn.name(),
    "3-D batch norm": lambda T: (  # rounded: torch's float32 arithmetic differs in the last bits
        lambda bn: (
            bn(T.tensor([[[1.0, 2.0], [3.0, 5.0]], [[0.0, 1.0], [2.0, 2.0]]])).detach().numpy().round(4),
            bn.running_var,
        )
    )(T.nn.BatchNorm1d(2)),
    "load all keys": lambda T: load(T, lambda T, sd: None),
    "load missing": lambda T: load(T, lambda T, sd: sd.pop("bn.running_var")),
    "load unexpected": lambda T: load(T, lambda T, sd: sd.update({"bn.extra": T.ones(1), "other": T.ones(1)})),
    "load size mismatch": lambda T: load(T, lambda T, sd: sd.update({"fc.bias": T.ones(3)})),
    "load not strict": lambda T: small(T).load_state_dict({"fc.weight": T.zeros(2, 3), "x.y": T.ones(1)}, strict=False),
    "batch of one": lambda T: T.nn.BatchNorm1d(3)(T.ones(1, 3)),
    "4-D batch norm": lambda T: T.nn.BatchNorm1d(3)(T.ones(2, 3, 2, 2)),
    "dropout p": lambda T: T.nn.Dropout(1.5),
    "bce range": lambda T: T.nn.BCELoss()(T.tensor([2.0]), T.tensor([1.0])),
    "bce size": lambda T: T.nn.BCELoss()(T.tensor([0.5]), T.tensor([[1.0]])),
    "bce dtype": lambda T: T.nn.BCELoss()(T.tensor([0.5]), T.tensor([1.0], dtype=T.float64)),
    "bce logits size": lambda T: T.nn.BCEWithLogitsLoss()(T.tensor([0.5]), T.tensor([[1.0]])),
    "bce weight grad": lambda T: T.nn.functional.binary_cross_entropy(
        T.tensor([0.5]), T.tensor([1.0]), weight=T.ones(1, requires_grad=True)
    ),
    "losses": lambda T: [
        round(loss(T.tensor([0.2, 0.9, 0.4]), T.tensor([0.0, 1.0, 1.0])).item(), 6)
        for loss in (
            T.nn.BCELoss(),
            T.nn.BCEWithLogitsLoss(),
            T.nn.L1Loss(),
            T.nn.SmoothL1Loss(beta=0.3),
            T.nn.HuberLoss(delta=0.3),
            T.nn.MSELoss(),
        )
    ],
    "nll": lambda T: T.nn.NLLLoss()(T.tensor([[-0.5, -1.0], [-2.0, -0.1]]), T.tensor([1, 0])),
    "l1 graph": lambda T: T.nn.L1Loss()(T.ones(2, requires_grad=True), T.zeros(2)),
    "smooth l1 beta 0": lambda T: T.nn.SmoothL1Loss(beta=0.0)(T.ones(2, requires_grad=True), T.zeros(2)),
    "smooth l1 negative beta": lambda T: T.nn.functional.smooth_l1_loss(T.ones(2), T.zeros(2), beta=-1.0),
    "huber zero delta": lambda T: T.nn.functional.huber_loss(T.ones(2), T.zeros(2), delta=0.0),
    "bad reduction": lambda T: T.nn.L1Loss(reduction="avg")(T.ones(2), T.zeros(2)),
    "gelu approximate": lambda T: T.nn.functional.gelu(T.ones(2), approximate="x"),
    "gelu of ints": lambda T: T.nn.functional.gelu(T.tensor([1, 2])),
    "leaky of ints": lambda T: T.nn.functional.leaky_relu(T.tensor([1, 2])),
    "embedding index": lambda T: T.nn.Embedding(3, 2)(T.tensor([3])),
    "embedding floats": lambda T: T.nn.Embedding(3, 2)(T.tensor([1.0])),
    "assign tensor to parameter": lambda T: setattr(T.nn.Linear(2, 2), "weight", T.ones(2, 2)),
    "softmax without dim": lambda T: T.nn.Softmax()(T.tensor([[1.0, 2.0], [3.0, 3.0]])),
    "module list index": lambda T: T.nn.ModuleList([T.nn.ReLU()])[3],
    "module list slice": lambda T: T.nn.ModuleList([T.nn.ReLU(), T.nn.Tanh(), T.nn.Sigmoid()])[1:],
    "sequential slice": lambda T: T.nn.Sequential(T.nn.ReLU(), T.nn.Tanh(), T.nn.Sigmoid())[::2],
    "sequential of OrderedDict": lambda T: T.nn.Sequential(OrderedDict(fc=T.nn.Linear(1, 2), act=T.nn.ReLU())),
    "missing forward": lambda T: T.nn.Module()(1),
    "missing attribute": lambda T: T.nn.Linear(1, 1).foo,
    "register parameter twice": lambda T: (lambda m: m.register_buffer("weight", T.ones(1)))(T.nn.Linear(1, 1)),
    "dotted buffer name": lambda T: T.nn.Module().register_buffer("a.b", T.ones(1)),
    "to int": lambda T: T.nn.Linear(1, 1).to(T.int64),
    "fan of a vector": lambda T: T.nn.init.xavier_uniform_(T.empty(3)),
    "bad mode": lambda T: T.nn.init.kaiming_normal_(T.empty(3, 2), mode="fan_x"),
    "bad nonlinearity": lambda T: T.nn.init.calculate_gain("foo"),
    "bad slope": lambda T: T.nn.init.calculate_gain("leaky_relu", "a"),
    "gains": lambda T: [T.nn.init.calculate_gain(n, 0.3) for n in ("conv2d", "tanh", "relu", "leaky_relu", "selu")],
    "init returns": lambda T: T.nn.init.constant_(T.nn.Parameter(T.empty(2)), 3.0),
    "init of zero elements": lambda T: T.nn.init.kaiming_uniform_(T.empty(0, 3)).shape,
    "backward hook shapes": lambda T: hook_shapes(T),
}


def hook_shapes(T):
    seen = []

    class Pair(T.nn.Module):
        def forward(self, a, b):
            return a * b, a + b

    def hook(module, grad_input, grad_output):
        seen.append(
            (type(module).__name__, [None if g is None else tuple(g.shape) for g in grad_input], len(grad_output))
        )

    seq = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.ReLU())
    for m in (seq, seq[0], seq[1]):
        m.register_full_backward_hook(hook)
    seq(T.ones(4, 2)).sum().backward()  # no input requires grad: the hooks fire with grad_input None
    seq(T.ones(4, 2, requires_grad=True)).sum().backward()
    pair = Pair()
    pair.register_full_backward_hook(hook)
    a = T.ones(3, requires_grad=True)
    sum(t.sum() for t in pair(a, 2.0)).backward()
    return seen


@pytest.mark.oracle
@pytest.mark.parametrize("name", PROGRAMS)
def test_programs_print_what_torch_prints(name):
    torch = pytest.importorskip("torch")
    assert run(gradbook, PROGRAMS[name]) == run(torch, PROGRAMS[name])


@pytest.mark.oracle
def test_random_initialisers_have_torchs_distributions():
    """Not torch's numbers (another generator), but the same bounds and spread, side by side."""
    torch = pytest.importorskip("torch")
    for init in ("kaiming_uniform_", "kaiming_normal_", "xavier_uniform_", "xavier_normal_"):
        spreads = []
        for T in (gradbook, torch):
            w = T.empty(300, 200)
            getattr(T.nn.init, init)(w)
            spreads.append((float(np.std(w.numpy())), float(np.abs(w.numpy()).max())))
        assert spreads[0][0] == pytest.approx(spreads[1][0], rel=0.02), init
        if "uniform" in init:
            assert spreads[0][1] == pytest.approx(spreads[1][1], rel=0.01), init

"""gradbook.optim: optimizers and lr schedulers.

First the tests that need no torch (hand-derived steps, saving and loading), then the oracle
section: gradbook and torch start from the same NumPy weights, take the same gradients, and must
end at the same weights to float32 rounding, print the same reprs and state_dicts, raise the same
errors and follow the same lr schedules.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import gradbook
from gradbook.optim import SGD, Adam, lr_scheduler

# ------------------------------------------------ without torch


def test_first_adam_step_is_lr_g_over_abs_g_plus_eps():
    """Step 1 from zero state: m = (1-β₁)g, v = (1-β₂)g²; after bias correction m/(1-β₁) = g and
    √(v/(1-β₂)) = |g|, so p ← p - lr·g/(|g| + eps): about lr·sign(g), exactly half of it when |g| = eps."""
    g = np.array([3.0, -0.5, 1e-8, 0.0], dtype=np.float32)
    w = gradbook.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    opt = Adam([w], lr=0.1)
    w.grad = gradbook.tensor(g)
    opt.step()
    expected = np.array([1.0, 2.0, 3.0, 4.0]) - 0.1 * g / (np.abs(g) + 1e-8)
    np.testing.assert_allclose(w.detach().numpy(), expected, rtol=1e-6)
    assert w.detach().numpy()[2] == pytest.approx(3.0 - 0.05)  # |g| = eps: half a step
    assert opt.state[w]["step"].item() == 1.0


def test_sgd_with_momentum_steps_by_the_running_velocity():
    """v₁ = g, v₂ = 0.9·v₁ + g: with g = 1 twice, w moves by 0.5·1 then 0.5·1.9."""
    w = gradbook.tensor([1.0], requires_grad=True)
    opt = SGD([w], lr=0.5, momentum=0.9)
    for _ in range(2):
        w.grad = gradbook.tensor([1.0])
        opt.step()
    assert w.item() == pytest.approx(1.0 - 0.5 - 0.95)
    assert list(opt.state[w]) == ["momentum_buffer"]


def test_step_skips_parameters_without_grad_and_runs_the_closure():
    a = gradbook.tensor([1.0], requires_grad=True)
    b = gradbook.tensor([1.0], requires_grad=True)
    opt = SGD([a, b], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (a * 3).sum()
        loss.backward()
        return loss

    assert opt.step(closure).item() == 3.0
    assert a.item() == pytest.approx(0.7) and b.item() == 1.0 and b.grad is None
    assert not a.requires_grad or a.grad_fn is None  # the update made no graph


def test_zero_grad_sets_none_or_zeros():
    w = gradbook.tensor([1.0, 2.0], requires_grad=True)
    opt = SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert w.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert w.grad is None


def test_state_dict_names_parameters_by_index_and_loading_continues_training():
    def model():
        return [gradbook.tensor([1.0, -1.0], requires_grad=True), gradbook.tensor([0.5], requires_grad=True)]

    def train(opt, params, steps):
        for _ in range(steps):
            opt.zero_grad()
            (params[0] ** 2).sum().add((params[1] * 3).sum()).backward()
            opt.step()

    straight = model()
    opt = Adam([{"params": [straight[0]]}, {"params": [straight[1]], "lr": 0.5}], lr=0.1)
    train(opt, straight, 4)

    resumed = model()
    first = Adam([{"params": [resumed[0]]}, {"params": [resumed[1]], "lr": 0.5}], lr=0.1)
    train(first, resumed, 2)
    saved = first.state_dict()
    assert [g["params"] for g in saved["param_groups"]] == [[0], [1]]
    assert list(saved["state"]) == [0, 1] and list(saved["state"][0]) == ["step", "exp_avg", "exp_avg_sq"]
    second = Adam([{"params": [resumed[0]]}, {"params": [resumed[1]]}], lr=0.9)
    second.load_state_dict(saved)
    assert [g["lr"] for g in second.param_groups] == [0.1, 0.5]
    train(second, resumed, 2)
    for s, r in zip(straight, resumed):
        assert s.tolist() == r.tolist()


def test_step_lr_multiplies_by_gamma_every_step_size_epochs():
    opt = SGD([gradbook.ones(1, requires_grad=True)], lr=1.0)
    sched = lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    lrs = []
    for _ in range(7):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    assert lrs == [1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25]
    assert sched.last_epoch == 7 and opt.param_groups[0]["lr"] == 0.25 and opt.param_groups[0]["initial_lr"] == 1.0


def test_optim_lists_only_torch_public_names():
    public = [n for n in dir(gradbook.optim) if not n.startswith("_")]
    assert public == ["Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]
    assert gradbook.optim.SGD is SGD and gradbook.optim.Optimizer.__name__ == "Optimizer"


# ------------------------------------------------ against torch


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


W0 = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
B0 = np.random.default_rng(1).standard_normal(3).astype(np.float32)
GRADS = [
    (g[:12].reshape(4, 3), g[12:])
    for g in np.random.default_rng(2).standard_normal((5, 15)).astype(np.float32) * np.float32(0.7)
]

CASES = {
    "SGD": ("SGD", {"lr": 0.1}),
    "SGD momentum": ("SGD", {"lr": 0.1, "momentum": 0.9}),
    "SGD nesterov, weight decay": ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
    "SGD dampening, maximize": ("SGD", {"lr": 0.05, "momentum": 0.5, "dampening": 0.3, "maximize": True}),
    "Adam": ("Adam", {"lr": 0.01}),
    "Adam amsgrad, weight decay": ("Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}),
    "Adam betas, eps, maximize": ("Adam", {"lr": 0.05, "betas": (0.3, 0.9), "eps": 1e-3, "maximize": True}),
    "AdamW": ("AdamW", {"lr": 0.01}),
    "AdamW amsgrad, weight decay": ("AdamW", {"lr": 0.02, "amsgrad": True, "weight_decay": 0.5}),
    "RMSprop": ("RMSprop", {"lr": 0.01}),
    "RMSprop momentum, centered, weight decay": (
        "RMSprop",
        {"lr": 0.01, "momentum": 0.9, "centered": True, "weight_decay": 0.1},
    ),
    "RMSprop alpha, centered, maximize": ("RMSprop", {"lr": 0.01, "alpha": 0.3, "centered": True, "maximize": True}),
    "Adagrad": ("Adagrad", {"lr": 0.1}),
    "Adagrad lr_decay, weight decay, accumulator": (
        "Adagrad",
        {"lr": 0.1, "lr_decay": 0.1, "weight_decay": 0.1, "initial_accumulator_value": 0.5, "eps": 1e-6},
    ),
}


def five_steps(L, name, options, dtype=np.float32, groups=False):
    """The optimizer and its weight and bias after one step for each gradient of GRADS."""
    w = L.tensor(W0.astype(dtype), requires_grad=True)
    b = L.tensor(B0.astype(dtype), requires_grad=True)
    params = [{"params": [w]}, {"params": [b], "lr": options["lr"] / 2}] if groups else [w, b]
    opt = getattr(L.optim, name)(params, **options)
    for gw, gb in GRADS:
        w.grad, b.grad = L.tensor(gw.astype(dtype)), L.tensor(gb.astype(dtype))
        opt.step()
    return opt, (w, b)


@pytest.mark.oracle
@pytest.mark.parametrize("case", CASES)
def test_five_steps_reach_torch_weights(torch, case):
    name, options = CASES[case]
    for groups in (False, True):
        _, expected = five_steps(torch, name, options, groups=groups)
        _, mine = five_steps(gradbook, name, options, groups=groups)
        for e, m in zip(expected, mine):
            assert m.dtype == gradbook.float32
            np.testing.assert_allclose(m.detach().numpy(), e.detach().numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.oracle
@pytest.mark.parametrize("case", ["SGD nesterov, weight decay", "Adam amsgrad, weight decay", "RMSprop", "Adagrad"])
def test_five_float64_steps_reach_torch_weights(torch, case):
    name, options = CASES[case]
    _, expected = five_steps(torch, name, options, dtype=np.float64)
    _, mine = five_steps(gradbook, name, options, dtype=np.float64)
    for e, m in zip(expected, mine):
        assert m.dtype == gradbook.float64
        np.testing.assert_allclose(m.detach().numpy(), e.detach().numpy(), rtol=1e-13, atol=1e-13)


@pytest.mark.oracle
@pytest.mark.parametrize("case", CASES)
def test_state_matches_torch(torch, case):
    """The same state keys in the same order, the same values; and state_dict() prints as torch's."""
    name, options = CASES[case]
    expected = five_steps(torch, name, options)[0].state_dict()
    mine = five_steps(gradbook, name, options)[0].state_dict()
    assert mine["param_groups"] == expected["param_groups"]
    assert list(mine["state"]) == list(expected["state"])
    for i, state in expected["state"].items():
        assert list(mine["state"][i]) == list(state)
        for key, value in state.items():
            np.testing.assert_allclose(mine["state"][i][key].numpy(), value.numpy(), rtol=1e-6, atol=1e-6)
            assert str(mine["state"][i][key].dtype).split(".")[-1] == str(value.dtype).split(".")[-1]


def adam_on_a_loss(L):
    """Five Adam steps on a least-squares loss: the gradients come from backward()."""
    x = L.tensor(W0)
    w = L.tensor(B0, requires_grad=True)
    opt = L.optim.Adam([w], lr=0.1)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = ((x @ w - 1.0) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, w.detach().numpy()


@pytest.mark.oracle
def test_adam_on_a_loss_matches_torch(torch):
    (losses_t, w_t), (losses_g, w_g) = adam_on_a_loss(torch), adam_on_a_loss(gradbook)
    np.testing.assert_allclose(losses_g, losses_t, rtol=1e-6)
    np.testing.assert_allclose(w_g, w_t, rtol=1e-6, atol=1e-6)


REPRS = {
    "SGD": lambda L, ps: L.optim.SGD(ps, lr=0.1),
    "SGD options": lambda L, ps: L.optim.SGD(ps, lr=0.01, momentum=0.9, nesterov=True, weight_decay=1e-4),
    "Adam": lambda L, ps: L.optim.Adam(ps),
    "Adam options": lambda L, ps: L.optim.Adam(ps, lr=3e-4, betas=(0.5, 0.99), amsgrad=True, foreach=False),
    "AdamW": lambda L, ps: L.optim.AdamW(ps, lr=0.01),
    "RMSprop": lambda L, ps: L.optim.RMSprop(ps, momentum=0.9, centered=True),
    "Adagrad": lambda L, ps: L.optim.Adagrad(ps, lr_decay=0.01),
    "two groups": lambda L, ps: L.optim.Adam([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.5}], lr=0.1),
    "added group": lambda L, ps: with_added_group(L.optim.SGD(ps[:1], lr=0.1), {"params": ps[1:], "momentum": 0.5}),
}


def with_added_group(opt, group):
    opt.add_param_group(group)
    return opt


@pytest.mark.oracle
@pytest.mark.parametrize("case", REPRS)
def test_reprs_match_torch(torch, case):
    texts = []
    for L in (torch, gradbook):
        params = [L.tensor([1.0, 2.0], requires_grad=True), L.tensor([3.0], requires_grad=True)]
        texts.append(repr(REPRS[case](L, params)))
    assert texts[1] == texts[0].replace("torch.", "gradbook.")


@pytest.mark.oracle
def test_state_dict_prints_as_torch(torch):
    texts = []
    for L in (torch, gradbook):
        opt = five_steps(L, "Adam", {"lr": 0.01, "amsgrad": True})[0]
        texts.append(str(opt.state_dict()).replace("torch.", "gradbook."))
    assert texts[1].split("'param_groups'")[1] == texts[0].split("'param_groups'")[1]
    assert texts[1].count("tensor(") == texts[0].count("tensor(") and "'step': tensor(5.)" in texts[1]


def first_line_of_error(L, program):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            program(L)
        except Exception as e:  # noqa: BLE001  (the exception is the outcome)
            outcome = (type(e).__name__, str(e).split("\n")[0].replace("torch.", "gradbook."))
        else:
            outcome = None
    return outcome, [str(w.message) for w in caught]


def leaf(L):
    return L.tensor([1.0, 2.0], requires_grad=True)


def twice(L, make):
    """``make`` given one leaf, to pass twice."""
    return make(leaf(L))


ERRORS = {
    "negative lr": lambda L: L.optim.SGD([leaf(L)], lr=-1),
    "negative momentum": lambda L: L.optim.SGD([leaf(L)], lr=0.1, momentum=-0.5),
    "negative weight decay": lambda L: L.optim.SGD([leaf(L)], lr=0.1, weight_decay=-1),
    "nesterov without momentum": lambda L: L.optim.SGD([leaf(L)], lr=0.1, nesterov=True),
    "nesterov with dampening": lambda L: L.optim.SGD([leaf(L)], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
    "Adam negative lr": lambda L: L.optim.Adam([leaf(L)], lr=-0.001),
    "Adam beta 0": lambda L: L.optim.Adam([leaf(L)], betas=(1.0, 0.999)),
    "Adam beta 1": lambda L: L.optim.Adam([leaf(L)], betas=(0.9, -0.1)),
    "Adam eps": lambda L: L.optim.Adam([leaf(L)], eps=-1e-8),
    "Adam weight decay": lambda L: L.optim.Adam([leaf(L)], weight_decay=-0.1),
    "Adam int betas": lambda L: L.optim.Adam([leaf(L)], betas=(0, 0.9)),
    "AdamW beta 1": lambda L: L.optim.AdamW([leaf(L)], betas=(0.9, 1.5)),
    "RMSprop alpha": lambda L: L.optim.RMSprop([leaf(L)], alpha=-0.9),
    "RMSprop momentum": lambda L: L.optim.RMSprop([leaf(L)], momentum=-1),
    "RMSprop eps": lambda L: L.optim.RMSprop([leaf(L)], eps=-1),
    "Adagrad lr_decay": lambda L: L.optim.Adagrad([leaf(L)], lr_decay=-1),
    "Adagrad accumulator": lambda L: L.optim.Adagrad([leaf(L)], initial_accumulator_value=-1),
    "Adagrad eps": lambda L: L.optim.Adagrad([leaf(L)], eps=-1),
    "empty": lambda L: L.optim.SGD([], lr=0.1),
    "a tensor, not a list": lambda L: L.optim.SGD(leaf(L), lr=0.1),
    "a float64 tensor": lambda L: L.optim.SGD(L.tensor([1.0], dtype=L.float64), lr=0.1),
    "not a tensor": lambda L: L.optim.SGD([1.0], lr=0.1),
    "non-leaf": lambda L: L.optim.SGD([leaf(L) * 2], lr=0.1),
    "in two groups": lambda L: twice(L, lambda p: L.optim.SGD([{"params": [p]}, {"params": [p]}])),
    "duplicate warns": lambda L: twice(L, lambda p: L.optim.SGD([p, p], lr=0.1)),
    "group not a dict": lambda L: L.optim.SGD([leaf(L)], lr=0.1).add_param_group([leaf(L)]),
    "group as a set": lambda L: L.optim.SGD([leaf(L)], lr=0.1).add_param_group({"params": {leaf(L)}}),
    "load: other groups": lambda L: L.optim.SGD([leaf(L)], lr=0.1).load_state_dict({"state": {}, "param_groups": []}),
    "load: other sizes": lambda L: L.optim.SGD([leaf(L)], lr=0.1).load_state_dict(
        L.optim.SGD([leaf(L), leaf(L)], lr=0.1).state_dict()
    ),
    "scheduler of a non-optimizer": lambda L: L.optim.lr_scheduler.StepLR(3, step_size=2),
    "LambdaLR: too few lambdas": lambda L: L.optim.lr_scheduler.LambdaLR(L.optim.SGD([leaf(L)]), [abs, abs]),
    "resume without initial_lr": lambda L: L.optim.lr_scheduler.ExponentialLR(L.optim.SGD([leaf(L)]), 0.5, 3),
    "get_lr outside step warns": lambda L: L.optim.lr_scheduler.StepLR(L.optim.SGD([leaf(L)]), 2).get_lr(),
    "scheduler step first warns": lambda L: L.optim.lr_scheduler.StepLR(L.optim.SGD([leaf(L)]), 2).step(),
    "step(epoch) warns": lambda L: L.optim.lr_scheduler.StepLR(L.optim.SGD([leaf(L)]), 2).step(4),
    "ConstantLR factor > 1": lambda L: L.optim.lr_scheduler.ConstantLR(L.optim.SGD([leaf(L)]), factor=2),
    "LinearLR start_factor 0": lambda L: L.optim.lr_scheduler.LinearLR(L.optim.SGD([leaf(L)]), start_factor=0),
    "LinearLR end_factor > 1": lambda L: L.optim.lr_scheduler.LinearLR(L.optim.SGD([leaf(L)]), end_factor=1.5),
    "MultiplicativeLR of a number": lambda L: L.optim.lr_scheduler.MultiplicativeLR(L.optim.SGD([leaf(L)]), 0.5),
    "ReduceLROnPlateau factor 1": lambda L: L.optim.lr_scheduler.ReduceLROnPlateau(L.optim.SGD([leaf(L)]), factor=1.0),
    "ReduceLROnPlateau mode": lambda L: L.optim.lr_scheduler.ReduceLROnPlateau(L.optim.SGD([leaf(L)]), mode="up"),
    "ReduceLROnPlateau min_lrs": lambda L: L.optim.lr_scheduler.ReduceLROnPlateau(
        L.optim.SGD([leaf(L)]), min_lr=[0, 1]
    ),
    "CosineAnnealingLR step(epoch)": lambda L: (lambda s: (s.step(5), s.get_last_lr())[1])(
        L.optim.lr_scheduler.CosineAnnealingLR(L.optim.SGD([leaf(L)], lr=1.0), T_max=8)
    ),
}


@pytest.mark.oracle
@pytest.mark.parametrize("case", ERRORS)
def test_errors_and_warnings_match_torch(torch, case):
    assert first_line_of_error(gradbook, ERRORS[case]) == first_line_of_error(torch, ERRORS[case])


@pytest.mark.oracle
def test_zero_grad_matches_torch(torch):
    outcomes = []
    for L in (torch, gradbook):
        w = leaf(L)
        opt = L.optim.SGD([w], lr=0.1)
        (w * w).sum().backward()
        opt.zero_grad(set_to_none=False)
        kept = (w.grad.tolist(), w.grad.requires_grad)
        opt.zero_grad()
        outcomes.append((kept, w.grad))
    assert outcomes[0] == outcomes[1]


@pytest.mark.oracle
def test_load_state_dict_matches_torch(torch):
    """Load an optimizer's state into a new one over other tensors, then take more steps."""
    results = []
    for L in (torch, gradbook):
        opt, _ = five_steps(L, "RMSprop", {"lr": 0.01, "momentum": 0.9}, groups=True)
        w, b = L.tensor(W0, requires_grad=True), L.tensor(B0, requires_grad=True)
        new = L.optim.RMSprop([{"params": [w]}, {"params": [b]}], lr=0.5)
        new.load_state_dict(opt.state_dict())
        for gw, gb in GRADS[:2]:
            w.grad, b.grad = L.tensor(gw), L.tensor(gb)
            new.step()
        results.append((repr(new).replace("torch.", "gradbook."), w.detach().numpy(), b.detach().numpy()))
    assert results[1][0] == results[0][0]
    for e, m in zip(results[0][1:], results[1][1:]):
        np.testing.assert_allclose(m, e, rtol=1e-6, atol=1e-6)


@pytest.mark.oracle
def test_public_names_are_torch_names(torch):
    for mine, theirs in [(gradbook.optim, torch.optim), (gradbook.optim.lr_scheduler, torch.optim.lr_scheduler)]:
        assert {n for n in dir(mine) if not n.startswith("_")} <= set(dir(theirs))


SCHEDULES = {
    "StepLR": lambda L, o: L.optim.lr_scheduler.StepLR(o, step_size=3),
    "StepLR gamma": lambda L, o: L.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.7),
    "ExponentialLR": lambda L, o: L.optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
    "LambdaLR": lambda L, o: L.optim.lr_scheduler.LambdaLR(o, lambda epoch: 0.95**epoch),
    "LambdaLR per group": lambda L, o: L.optim.lr_scheduler.LambdaLR(o, [lambda e: 1 / (e + 1), lambda e: math.cos(e)]),
    "MultiStepLR": lambda L, o: L.optim.lr_scheduler.MultiStepLR(o, milestones=[2, 5, 5, 8], gamma=0.5),
    "MultiplicativeLR": lambda L, o: L.optim.lr_scheduler.MultiplicativeLR(o, lambda epoch: 0.9 if epoch % 2 else 1.0),
    "ConstantLR": lambda L, o: L.optim.lr_scheduler.ConstantLR(o, factor=0.25, total_iters=4),
    "LinearLR warm-up": lambda L, o: L.optim.lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=4),
    "LinearLR decay": lambda L, o: L.optim.lr_scheduler.LinearLR(o, 1.0, 0.05, total_iters=7),
    "CosineAnnealingLR": lambda L, o: L.optim.lr_scheduler.CosineAnnealingLR(o, T_max=10),
    "CosineAnnealingLR past T_max": lambda L, o: L.optim.lr_scheduler.CosineAnnealingLR(o, T_max=3, eta_min=0.01),
}


PLATEAUS = {
    "min, relative": {},
    "patience and cooldown": {"factor": 0.5, "patience": 1, "cooldown": 2, "min_lr": 0.02},
    "max, absolute": {"mode": "max", "threshold": 0.1, "threshold_mode": "abs", "patience": 0},
    "min_lr per group": {"patience": 0, "min_lr": [0.05, 0.1], "factor": 0.3},
}


@pytest.mark.oracle
@pytest.mark.parametrize("case", PLATEAUS)
def test_reduce_lr_on_plateau_matches_torch_exactly(torch, case):
    metrics = [5.0, 4.0, 4.0, 3.99999, 4.2, 4.1, 4.1, 2.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    runs = []
    for L in (torch, gradbook):
        opt = L.optim.SGD([{"params": [leaf(L)]}, {"params": [leaf(L)], "lr": 0.3}], lr=1.0)
        sched = L.optim.lr_scheduler.ReduceLROnPlateau(opt, **PLATEAUS[case])
        seen = []
        for m in metrics:
            sched.step(L.tensor(m) if m > 4.1 else m)
            seen.append((sched.last_epoch, sched.num_bad_epochs, sched.best, sched.get_last_lr()))
        runs.append((seen, sorted(sched.state_dict())))
    assert runs[1] == runs[0]


@pytest.mark.oracle
@pytest.mark.parametrize("case", SCHEDULES)
def test_lr_schedules_match_torch_exactly(torch, case):
    runs = []
    for L in (torch, gradbook):
        w = leaf(L)
        opt = L.optim.Adam([{"params": [w]}, {"params": [leaf(L)], "lr": 0.3}], lr=0.1)
        sched = SCHEDULES[case](L, opt)
        seen = [(sched.last_epoch, sched.get_last_lr())]
        for _ in range(10):
            w.grad = L.ones(2)
            opt.step()
            sched.step()
            seen.append((sched.last_epoch, sched.get_last_lr(), [g["lr"] for g in opt.param_groups]))
        state = {k: v for k, v in sched.state_dict().items()}
        runs.append((seen, state, [g["initial_lr"] for g in opt.param_groups]))
    assert runs[1] == runs[0]


@pytest.mark.oracle
def test_step_with_epoch_uses_the_closed_form_as_torch(torch):
    runs = []
    for L in (torch, gradbook):
        opt = L.optim.SGD([leaf(L)], lr=1.0)
        sched = L.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runs.append([(sched.step(e), sched.get_last_lr())[1] for e in (5, 1, 3)])
    assert runs[1] == runs[0]

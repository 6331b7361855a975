"""The outside review of issue 30's speed changes (docs/reviews/2026-12-07-speed.md): relu, relu6, hardtanh,
elu, leaky_relu, clamp, sign and abs on -0, nan, ±inf and float16 (values and gradients as bits), tensors
longer than one vector of every width; max/min along a dim and cumsum of a 0-d tensor; randperm's dtype
checks. (max_pool2d's cases are in tests/test_pooling_oracle.py.)"""

import sys

import numpy as np

torch = __import__(sys.argv[1])
F = torch.nn.functional


def attempt(f):
    try:
        out = f()
        print(list(out.shape), out.dtype, out.tolist())
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__, e)


def bits(t):
    """A tensor's values as their bits (so -0 and +0 differ, and a nan's sign shows)."""
    a = t.detach().numpy()
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]).tolist()


values = [-0.0, 0.0, float("nan"), float("inf"), float("-inf"), -1.0, 2.0, 0.5, -0.50425, 1e-40, 6.0, -1.5, 1.0]
finite_or_inf = [v for v in values if v == v]  # no nan: torch's gradient at a nan depends on its vector lane
programs = {
    "relu": (values, lambda x: torch.relu(x)),
    "relu_": (values, lambda x: (x * 1).relu_()),
    "relu6": (finite_or_inf, lambda x: F.relu6(x)),
    "hardtanh": (finite_or_inf, lambda x: F.hardtanh(x, -1.5, 0.5)),
    "elu": (finite_or_inf, lambda x: F.elu(x, 0.7)),
    "elu_": (finite_or_inf, lambda x: F.elu(x * 1, 0.7, inplace=True)),
    "leaky_relu": (values, lambda x: F.leaky_relu(x, 0.1)),
    "leaky_relu_": (values, lambda x: F.leaky_relu(x * 1, 0.1, inplace=True)),
    "clamp": (values, lambda x: x.clamp(-1, 0)),
    "clamp min > max": (values, lambda x: x.clamp(2, 1)),
    "clamp_min": (values, lambda x: x.clamp(min=0)),
    "clamp_max": (values, lambda x: x.clamp(max=0)),
    "sign": (values, lambda x: x.sign() * x),
    "abs": (values, lambda x: x.abs()),
}
for dtype in (torch.float16, torch.float32, torch.float64):
    for name, (vals, program) in programs.items():
        for g in (3.0, -0.0, float("nan"), float("inf"), 0.7):
            x = torch.tensor(vals * 5, dtype=dtype, requires_grad=True)  # 65 values: past one vector of 32
            y = program(x)
            y.backward(torch.full(tuple(y.shape), g, dtype=dtype))
            print(dtype, name, g, bits(y)[:13], bits(x.grad)[:13], bits(x.grad)[-13:])

for which in ("max", "min"):
    x = torch.tensor(3.0, requires_grad=True)
    values_, indices = getattr(x, which)(dim=0)
    values_.backward()
    print(which, values_.tolist(), indices.tolist(), x.grad.tolist(), getattr(x, which)(-1, keepdim=True).indices)
x = torch.tensor(3.0, requires_grad=True)
y = x.cumsum(0)
y.backward()
print(list(y.shape), y.tolist(), x.grad.tolist())

torch.manual_seed(0)
for n, dtype in [(2049, torch.float16), (2050, torch.float16), (3, torch.bool), (2**24 + 2, torch.float32)]:
    attempt(lambda n=n, dtype=dtype: torch.randperm(n, dtype=dtype)[:3])

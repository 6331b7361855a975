"""max_pool2d and avg_pool2d with ceil_mode, count_include_pad=False and divisor_override (values, gradients,
return_indices, output sizes, the modules' reprs), as torch computes them."""

import sys

torch = __import__(sys.argv[1])
F = torch.nn.functional

torch.manual_seed(0)
x = torch.randn(1, 2, 5, 7, dtype=torch.float64, requires_grad=True)
for kw in [
    {"kernel_size": 2},
    {"kernel_size": 2, "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
    {"kernel_size": (2, 3), "stride": (2, 2), "padding": (1, 0), "ceil_mode": True},
    {"kernel_size": 2, "stride": 3, "ceil_mode": True},
]:
    for pool, extra in [(F.max_pool2d, {}), (F.avg_pool2d, {}), (F.avg_pool2d, {"count_include_pad": False})]:
        x.grad = None
        out = pool(x, **kw, **extra)
        (out * torch.arange(float(out.numel()), dtype=torch.float64).reshape(out.shape)).sum().backward()
        print(pool.__name__, sorted(kw.items()), sorted(extra), tuple(out.shape))
        print(out[0, 1], x.grad[0, 0, -1])
print(F.max_pool2d(x, 3, 2, ceil_mode=True, return_indices=True)[1][0, 0])
print(F.max_pool2d(x, 2, 1, dilation=2, ceil_mode=True).shape)
print(F.avg_pool2d(x, 3, 2, padding=1, divisor_override=2)[0, 0])
print(F.avg_pool2d(x[0], 2, ceil_mode=True).shape)
print(torch.nn.MaxPool2d(3, 2, ceil_mode=True), torch.nn.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False))
print(torch.nn.AvgPool2d(2, ceil_mode=True)(torch.arange(9.0).reshape(1, 1, 3, 3)))
try:
    F.avg_pool2d(x, 2, divisor_override=0)
except RuntimeError as e:
    print(e)
nan = float("nan")
v = torch.tensor([[[[1.0, nan, 3.0, nan], [nan, 2.0, 0.0, 5.0]]]], requires_grad=True)
out, where = F.max_pool2d(v, 2, return_indices=True)
out.sum().backward()
print(out, where, v.grad)

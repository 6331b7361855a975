"""F.conv_transpose1d/2d and nn.ConvTranspose1d/2d: values, gradients (stride, padding, output_padding, dilation,
groups), the node torch records (ConvolutionBackward0 with transposed=True), seeded weights, output_size, reprs and
errors."""

import sys

torch = __import__(sys.argv[1])
F = torch.nn.functional

torch.manual_seed(0)
x = torch.randn(2, 4, 3, 3, dtype=torch.float64, requires_grad=True)
for w_shape, kw in [
    ((4, 2, 3, 3), {}),
    ((4, 2, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
    ((4, 3, 2, 2), {"stride": (2, 1), "dilation": 2}),
    ((4, 1, 3, 3), {"groups": 2, "stride": 3, "padding": (0, 1), "output_padding": (2, 0)}),
]:
    torch.manual_seed(1)
    w = torch.randn(*w_shape, dtype=torch.float64, requires_grad=True)
    b = torch.randn(w_shape[1] * kw.get("groups", 1), dtype=torch.float64, requires_grad=True)
    x.grad = None
    y = F.conv_transpose2d(x, w, b, **kw)
    (y * torch.arange(float(y.numel()), dtype=torch.float64).reshape(y.shape)).sum().backward()
    node = y.grad_fn
    print(sorted(kw.items()), tuple(y.shape), node.name(), node._saved_transposed, node._saved_output_padding)
    print(y[1, 0, 0], x.grad[0, 1, 2], w.grad[3, 0], b.grad)
v = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
wv = torch.randn(3, 2, 4, dtype=torch.float64, requires_grad=True)
y = F.conv_transpose1d(v, wv, stride=2, padding=1)
y.sum().backward()
print(y.shape, y[0], v.grad, wv.grad[0])
torch.manual_seed(2)
m = torch.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1, groups=2)
print(m, m.weight.shape, m.bias.shape, m.weight[0, 0, 0], m.bias)
print(m(x.float()).shape, m(x.float(), output_size=[6, 6]).shape, m(x[0].float()).shape)
print(torch.nn.ConvTranspose1d(4, 6, 2), torch.nn.ConvTranspose2d(2, 2, 3, bias=False, dilation=2))
for bad in [
    lambda: F.conv_transpose2d(x, torch.randn(4, 2, 3, 3, dtype=torch.float64), stride=2, output_padding=2),
    lambda: F.conv_transpose2d(x, torch.randn(3, 2, 3, 3, dtype=torch.float64)),
    lambda: F.conv_transpose2d(x, torch.randn(4, 2, 3, 3, dtype=torch.float64), padding="same"),
    lambda: torch.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect"),
]:
    try:
        bad()
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__, e)

# output_padding on a stride-1 dimension (dilation > 1): the input gradient at the input's positions only
x = torch.ones(1, 1, 1, dtype=torch.float64, requires_grad=True)
w = torch.full((1, 1, 1), 0.5, dtype=torch.float64, requires_grad=True)
y = F.conv_transpose1d(x, w, stride=1, output_padding=1, dilation=2)
y.backward(torch.tensor([[[10.0, 20.0]]], dtype=torch.float64))
print(y, x.grad, w.grad)
torch.manual_seed(0)
x = torch.randn(2, 3, 5, 4, dtype=torch.float64, requires_grad=True)
w = torch.randn(3, 2, 3, 2, dtype=torch.float64, requires_grad=True)
y = F.conv_transpose2d(x, w, stride=(1, 2), padding=(1, 0), output_padding=(1, 1), dilation=(2, 1))
gx, gw = torch.autograd.grad((y**2).sum(), (x, w), create_graph=True)
print(y.shape, gx.sum(), gw.sum())
(gx.sum() + gw.sum()).backward()
print(x.grad.sum(), w.grad.sum())

"""F.pad in every mode (constant with a value and negative pads, reflect, replicate, circular; 1-3 dimensions,
with and without a batch dimension), its graph and gradients, the errors; conv2d's padding='same' with an even
kernel (torch's ConstantPadNd first, and its warning) and Conv2d's padding_mode."""

import sys
import warnings

torch = __import__(sys.argv[1])
F = torch.nn.functional


def names(t):
    out, seen, todo = [], set(), [t.grad_fn]
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        out.append(n.name())
        todo.extend(f for f, _ in n.next_functions)
    return out


def attempt(f):
    try:
        print(f())
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__, e)


torch.manual_seed(0)
x = torch.randn(1, 2, 3, 4, dtype=torch.float64, requires_grad=True)
v = torch.randn(2, 3, 4, 5, dtype=torch.float64, requires_grad=True)
for mode in ["constant", "reflect", "replicate", "circular"]:
    for t, pad in [(x, (1, 2)), (x, (1, 1, 2, 0)), (x[0], (2, 1)), (x[0], (1, 1, 2, 1)), (v, (1, 0, 2, 1, 1, 1))]:
        if mode != "constant" and (t.dim() - len(pad) // 2) not in (1, 2):
            continue
        x.grad = v.grad = None
        y = F.pad(t, pad, mode=mode)
        (y * torch.arange(float(y.numel()), dtype=torch.float64).reshape(y.shape)).sum().backward()
        print(mode, pad, tuple(y.shape), names(y)[:3], y.reshape(-1)[:6])
        print((x.grad if x.grad is not None else v.grad).reshape(-1)[:8])
print(F.pad(x, (1, 1), value=2.5)[0, 0, 0], F.pad(x, (-1, 2, 0, -1)).shape, F.pad(x, (1, 1)).grad_fn._saved_pad)
print(F.pad(x, (1, 1, 1, 1), mode="reflect").grad_fn._saved_padding)
print(F.pad(torch.tensor([[1.0, 2.0, 3.0]]), (2, 1), mode="reflect"))
attempt(lambda: F.pad(x, (1,)))
attempt(lambda: F.pad(x, (4, 4, 0, 0), mode="reflect"))
attempt(lambda: F.pad(x, (1, 1), mode="foo"))
attempt(lambda: F.pad(x, (1, 1, 1, 1), mode="reflect", value=1.0))
attempt(lambda: F.pad(x, (1,) * 10))
attempt(lambda: F.pad(x[0, 0, 0], (1, 1), mode="reflect"))
attempt(lambda: F.pad(x, (1, 1), mode="reflect"))
attempt(lambda: F.pad(x, (5, 5, 0, 0), mode="circular"))
w = torch.randn(3, 2, 2, 2, dtype=torch.float64, requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    y = F.conv2d(x, w, padding="same")
print([str(c.message).split(" (Triggered")[0] for c in caught], names(y)[:4], y.shape)
y.sum().backward()
print(w.grad[0, 0])
for mode in ["reflect", "replicate", "circular"]:
    torch.manual_seed(1)
    conv = torch.nn.Conv2d(2, 3, 3, padding=1, padding_mode=mode).double()
    out = conv(x)
    print(conv, names(out)[:4], out[0, 0, 0])
    torch.manual_seed(1)
    conv = torch.nn.Conv1d(2, 3, 4, padding="same", padding_mode=mode).double()
    print(conv, conv(x[0, :, 0]).shape, conv(x[:, :, 1]).shape)

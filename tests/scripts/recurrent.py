"""nn.RNN, nn.LSTM, nn.GRU and their cells: torch's parameter names, shapes and seeded values, reprs, outputs
and gradients (float64, printed to 10 decimals: BLAS libraries may differ in the last bits), and the errors."""

import sys
import warnings

torch = __import__(sys.argv[1])
nn = torch.nn


def show(t):
    return [round(v, 10) for v in t.detach().reshape(-1).tolist()]


torch.manual_seed(0)
for make in (
    lambda: nn.RNN(3, 4, num_layers=2),
    lambda: nn.RNN(3, 4, 1, "relu", batch_first=True),
    lambda: nn.LSTM(3, 4, num_layers=2, bidirectional=True),
    lambda: nn.GRU(3, 4, batch_first=True, bias=False),
    lambda: nn.LSTM(3, 4, num_layers=2, dropout=0.5),
):
    m = make().double()
    print(m, [(n, tuple(p.shape)) for n, p in m.named_parameters()])
    print(show(next(m.parameters()))[:6])
    x = torch.randn(5, 2, 3, dtype=torch.float64, requires_grad=True)
    out, h = m(x)
    hs = h if isinstance(h, tuple) else (h,)
    print(tuple(out.shape), [tuple(t.shape) for t in hs], show(out)[:8], show(hs[0])[:4])
    (out.sum() + sum(t.pow(2).sum() for t in hs)).backward()
    print(show(x.grad)[:6], [show(p.grad)[:3] for p in m.parameters()][:4])
    out1, _ = m(x[:, 0])  # unbatched
    print(tuple(out1.shape))
m = nn.GRU(3, 4).double()
h0 = torch.randn(1, 2, 4, dtype=torch.float64)
print(show(m(torch.randn(6, 2, 3, dtype=torch.float64), h0)[1]))
for cell in (nn.RNNCell(3, 4), nn.RNNCell(3, 4, nonlinearity="relu"), nn.LSTMCell(3, 4, bias=False), nn.GRUCell(3, 4)):
    cell = cell.double()
    x = torch.randn(2, 3, dtype=torch.float64)
    h = cell(x)
    h = h if isinstance(h, tuple) else (h,)
    one = cell(x[0])  # unbatched
    print(cell, [show(t)[:4] for t in h], [tuple(t.shape) for t in (one if isinstance(one, tuple) else (one,))])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    nn.GRU(3, 4, dropout=0.5)
print([str(w.message) for w in caught])
for f in [
    lambda: nn.RNN(3, 4, nonlinearity="foo"),
    lambda: nn.RNN(3, 0),
    lambda: nn.RNN(3, 4, num_layers=0),
    lambda: nn.RNN(3, 4, dropout=2),
    lambda: nn.LSTM(3, 4)(torch.ones(2, 3, 5)),
    lambda: nn.LSTM(3, 4)(torch.ones(2, 3, 3), (torch.zeros(2, 3, 4), torch.zeros(1, 3, 4))),
    lambda: nn.GRU(3, 4)(torch.ones(4, 2, 3, 3)),
    lambda: nn.GRU(3, 4)(torch.ones(2, 3, 3), torch.zeros(1, 2, 4)),
    lambda: nn.RNNCell(3, 4)(torch.ones(2, 2, 3)),
    lambda: nn.LSTMCell(3, 4)(torch.ones(2, 5)),
    lambda: nn.RNN(3, 4.5),
    lambda: nn.GRU(3, 4)(torch.ones(2, 3), torch.zeros(1, 1, 4)),
]:
    try:
        f()
        print("ok")
    except (ValueError, RuntimeError, TypeError) as e:
        print(type(e).__name__, e)

"""nn.init.orthogonal_: torch's draw, the QR and its sign fix, gain, tall, wide and 4-d weights, the weight's
version, and the error (values printed to 4 decimals: the two libraries' LAPACKs round differently)."""

import sys

torch = __import__(sys.argv[1])

for shape, gain in [((3, 3), 1.0), ((5, 3), 2.0), ((2, 6), 1.0), ((4, 2, 2, 1), 0.5)]:
    torch.manual_seed(0)
    w = torch.nn.Parameter(torch.empty(*shape))
    out = torch.nn.init.orthogonal_(w, gain=gain)
    flat = w.detach().reshape(shape[0], -1)
    gram = flat @ flat.T if shape[0] <= flat.shape[1] else flat.T @ flat
    print(out is w, w._version, (w.detach() * 10000).round() / 10000)
    print(bool(((gram - gain**2 * torch.eye(gram.shape[0])).abs() < 1e-5).all()))
torch.manual_seed(1)
g = torch.Generator().manual_seed(3)
print((torch.nn.init.orthogonal_(torch.empty(3, 2, dtype=torch.float64), generator=g) * 1e6).round() / 1e6)
try:
    torch.nn.init.orthogonal_(torch.empty(3))
except ValueError as e:
    print(e)
print(torch.nn.init.orthogonal_(torch.empty(0, 3)).shape)

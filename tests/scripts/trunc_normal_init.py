"""nn.init.trunc_normal_: torch 2.13's rejection sampling (normal draws redrawn outside [a, b]; uniform draws
accepted by the density when [a, b] is narrow), bit for bit with the same seed, its bounds, version and warning."""

import sys
import warnings

torch = __import__(sys.argv[1])

torch.manual_seed(0)
w = torch.nn.Parameter(torch.empty(4, 5))
out = torch.nn.init.trunc_normal_(w, std=0.02)
print(out is w, w._version, (w.detach() * 1e6).round() / 1e6)
torch.manual_seed(1)
big = torch.nn.init.trunc_normal_(torch.empty(10000), mean=1.0, std=2.0, a=-1.0, b=2.5)
print(float(big.min()) >= -1.0, float(big.max()) <= 2.5, round(float(big.mean()), 3), round(float(big.std()), 3))
g = torch.Generator().manual_seed(5)
print((torch.nn.init.trunc_normal_(torch.empty(3, dtype=torch.float64), generator=g) * 1e9).round() / 1e9)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.nn.init.trunc_normal_(torch.empty(2), mean=10.0)
print([str(c.message) for c in caught])
torch.manual_seed(0)
print(torch.nn.init.trunc_normal_(torch.empty(6), mean=3.0, std=1.0, a=2.9, b=3.1).tolist())
torch.manual_seed(0)
print(torch.nn.init.trunc_normal_(torch.empty(4), std=0.02).tolist())

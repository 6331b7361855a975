"""Module.get_submodule / get_parameter / get_buffer: dotted paths and torch's errors."""

import sys

torch = __import__(sys.argv[1])
nn = torch.nn
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.BatchNorm1d(3)))
print(net.get_submodule("1.1"), net.get_submodule("") is net, net.get_parameter("0.bias"))
print(net.get_buffer("1.1.running_mean"), net.get_submodule("1").get_submodule("0"))
for f in [
    lambda: net.get_submodule("2"),
    lambda: net.get_submodule("0.weight"),
    lambda: net.get_parameter("0.foo"),
    lambda: net.get_parameter("1.1.running_mean"),
    lambda: net.get_buffer("0.weight"),
    lambda: net.get_parameter("0"),
    lambda: net.get_submodule("1.0.x"),
    lambda: net.get_buffer("1.1.foo"),
]:
    try:
        f()
    except AttributeError as e:
        print(type(e).__name__, e)

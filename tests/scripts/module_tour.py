"""A tour of nn.Module as a lesson gives it: printing a model, its parameters and buffers, a
state_dict round trip, train/eval, a forward hook, and nn.init."""

import sys

torch = __import__(sys.argv[1])
nn = torch.nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(5, 3)
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(6, 4), nn.GELU(), nn.Dropout(0.5))
        self.head = nn.ModuleDict({"out": nn.Linear(4, 1)})
        self.register_buffer("scale", torch.tensor(2.0))

    def forward(self, idx):
        return self.head["out"](self.body(self.embed(idx))) * self.scale


net = Net()
print(net)
for name, p in net.named_parameters():
    nn.init.constant_(p, 0.1) if p.ndim == 1 else nn.init.ones_(p)
    print(name, tuple(p.shape), p.requires_grad)
print([name for name, _ in net.named_buffers()], [name for name, _ in net.named_children()])
print(list(net.state_dict().keys()))

seen = []
handle = net.body.register_forward_hook(lambda module, inputs, output: seen.append(tuple(output.shape)))
net.eval()
idx = torch.tensor([[0, 1], [2, 3]])
out = net(idx)
print(out, net.training, net.body[3].training, seen)
handle.remove()
out.sum().backward()
print(net.embed.weight.grad, net.head["out"].bias.grad)

copy = Net()
print(copy.load_state_dict(net.state_dict()))
print(torch.equal(copy.eval()(idx), out.detach()))
print(nn.init.calculate_gain("relu"), nn.init.calculate_gain("leaky_relu", 0.2))

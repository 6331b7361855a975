import sys

torch = __import__(sys.argv[1])
nn = torch.nn
F = torch.nn.functional


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


net = MLP()
print(net)
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
x = torch.tensor([[0.5, -1.0], [1.5, 2.0], [0.0, 0.3], [-2.0, 1.0]])
y = torch.tensor([0, 2, 1, 2])
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
for step in range(5):
    opt.zero_grad()
    loss = F.cross_entropy(net(x), y)
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.6f}", loss)
print(net.fc1.weight.grad)
print(net.fc2.bias)
w = torch.tensor([1.0, 2.0], requires_grad=True)
d = w.detach()
d += 1
print(w, d)
with torch.no_grad():
    z = w * 2
print(z.requires_grad, z.grad_fn, z.is_leaf)
print(w.data, w.grad)
a = torch.ones(3, requires_grad=True)
b = a * 2
c = b.sum()
c.backward(retain_graph=True)
c.backward()
print(a.grad)
print(torch.arange(6).reshape(2, 3).float().mean(1), torch.arange(6).view(3, 2).T)
print(torch.tensor([[1.0, 2.0], [3.0, 4.0]]) @ torch.tensor([1.0, 1.0]))
print(torch.stack([torch.ones(2), torch.zeros(2)]), torch.cat([torch.ones(2), torch.zeros(1)]))
s = torch.tensor([1.0, 2.0, 3.0], requires_grad=True).softmax(0)
print(s)
print(torch.where(torch.tensor([1.0, -1.0]) > 0, 1.0, -1.0))
print(torch.tensor([[1.0, 5.0], [3.0, 2.0]]).max(dim=1))
print(torch.zeros(2, 3).size(), torch.zeros(2, 3).shape[1], len(torch.zeros(4, 2)))
print(torch.tensor(3.5).item(), float(torch.tensor(2.0)), int(torch.tensor(7)))
print(torch.tensor([1e-8, 1e8]), torch.tensor([0.1, 0.25], dtype=torch.float64))

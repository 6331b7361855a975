"""retain_grad() and then an in-place change (of the tensor, of its base, through a view, by t[i] = v):
torch moves the retained gradient to the new value (found by an outside review)."""

import sys

torch = __import__(sys.argv[1])
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
y.retain_grad()
y.mul_(3)
(y * torch.tensor([1.0, 10.0])).sum().backward()
print(y.grad, y.retains_grad)
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
v = y[1:]
v.retain_grad()
y.mul_(2)
(v * torch.tensor([1.0, 10.0])).sum().backward()
print(v.grad)
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
y.retain_grad()
y.mul_(2)
print(y.retains_grad)
y.retain_grad()
(y * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(y.grad)
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
y.retain_grad()
y[1:].mul_(2)
(y * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(y.grad)
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
y.retain_grad()
y[0] = 5.0
(y * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(y.grad)
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
y.retain_grad()
y[torch.tensor([True, False, True])] = 5.0
(y * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(y.grad, x.grad)

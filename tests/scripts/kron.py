"""torch.kron: values (numbers of other ranks and dtypes), its graph (UnsafeView, Mul, UnsafeView), gradients."""

import sys

torch = __import__(sys.argv[1])
torch.manual_seed(0)
a = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
b = torch.randn(2, 2, dtype=torch.float64, requires_grad=True)
k = torch.kron(a, b)
print(k.shape, k.grad_fn.name(), k.grad_fn.next_functions[0][0].name())
print([fn.name() for fn, _ in k.grad_fn.next_functions[0][0].next_functions])
(k * torch.arange(24.0, dtype=torch.float64).reshape(4, 6)).sum().backward()
print(k, a.grad, b.grad)
print(torch.kron(torch.tensor([1, 2]), torch.tensor([[1], [10]])))
print(torch.kron(torch.tensor(2.0), torch.tensor([1.0, 2.0])), a.kron(torch.ones(1, 1, dtype=torch.float64)).shape)
print(torch.kron(torch.ones(2, dtype=torch.int64), torch.ones(2)).dtype)

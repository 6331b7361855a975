"""A lesson on reductions: norms, variance, running sums and products, with their gradients."""

import sys

torch = __import__(sys.argv[1])

x = torch.tensor([[3.0, -4.0, 1.0], [0.5, 2.0, -1.0]], requires_grad=True)
print(x.norm(), torch.linalg.norm(x, dim=1), torch.linalg.vector_norm(x, ord=1))
print(x.var(), x.std(dim=1), x.var(1, unbiased=False))
print(x.cumsum(dim=1), x.prod(1), x.sum(axis=0), x.mean(axis=1, keepdims=True))

loss = x.norm() + x.var() + x.prod(1).sum() + x.cumsum(1).square().sum()
print(loss.grad_fn.name(), [f.name() for f, _ in loss.grad_fn.next_functions])
loss.backward()
print(x.grad)

z = torch.tensor([1.6, -0.4, 2.5])
print(z.floor(), z.ceil(), z.round(), z.sign(), z.abs().log1p(), z.exp2())
print(torch.allclose(z, z + 1e-9), torch.isclose(z, torch.tensor([1.6, 0.0, 2.5])), torch.equal(z, z))
w = torch.zeros(3)
w.index_put_((torch.tensor([0, 2]),), torch.tensor([5.0, 6.0]))
print(w, w.masked_fill(w > 5, -1.0), z.gather(0, torch.tensor([2, 0])), z.index_select(0, torch.tensor([1])))

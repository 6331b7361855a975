"""torch's in-place aliases (multiply_, divide_, true_divide_, subtract_, negative_, absolute_): the same values,
versions and graph nodes as mul_, div_, sub_, neg_, abs_."""

import sys

torch = __import__(sys.argv[1])

x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = x * 1
y.multiply_(2).subtract_(1, alpha=2).divide_(4).true_divide_(2).negative_().absolute_()
print(y, y._version, y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
y.sum().backward()
print(x.grad)
z = torch.tensor([4.0, 6.0])
print(z.true_divide_(torch.tensor([2.0, 4.0])), z._version)

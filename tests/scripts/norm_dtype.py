"""norm, linalg.vector_norm and linalg.norm with dtype=: computed in dtype, gradients in the input dtype."""

import sys

torch = __import__(sys.argv[1])
x = torch.tensor([1.0, -2.0, 2.0], requires_grad=True)
for f in [
    lambda: x.norm(dtype=torch.float64),
    lambda: torch.linalg.vector_norm(x, 3, dtype=torch.float64),
    lambda: torch.linalg.norm(x, dtype=torch.float64),
    lambda: x.norm(p=1, dim=0, dtype=torch.float64),
]:
    y = f()
    print(y, y.grad_fn.next_functions[0][0].name().replace("torch::autograd::", ""))
    y.backward()
    print(x.grad, x.grad.dtype)
    x.grad = None
for f in [lambda: x.norm(dtype=torch.int64), lambda: torch.linalg.vector_norm(x, dtype=torch.float16)]:
    try:
        print(f())
    except RuntimeError as e:
        print(type(e).__name__, e)

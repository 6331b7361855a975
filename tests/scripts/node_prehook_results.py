"""Node pre-hooks that return a gradient of another dtype or size, a number, None, or a scaled one: torch's
checks, on an op's node and on a leaf's AccumulateGrad (found by an outside review)."""

import sys

torch = __import__(sys.argv[1])
x = torch.tensor([1.0, 2.0], requires_grad=True)
for ret in [
    lambda g: (g.double(),),
    lambda g: (torch.ones(3),),
    lambda g: (3.0,),
    lambda g: (None,),
    lambda g: (g * 3,),
]:
    x.grad = None
    y = x * 2
    y.grad_fn.register_prehook(lambda go, ret=ret: ret(go[0]))
    try:
        y.sum().backward()
        print("OK", x.grad)
    except Exception as e:
        print(type(e).__name__ + ":", e)
for ret in [lambda g: (torch.ones(3, dtype=torch.float64),), lambda g: (g * 5,), lambda g: (None,)]:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.grad_fn.next_functions[0][0].register_prehook(lambda go, ret=ret: ret(go[0]))
    try:
        y.sum().backward()
        print("OK", x.grad)
    except RuntimeError as e:
        print("RuntimeError:", e)

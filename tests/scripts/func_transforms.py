"""torch.func: grad (argnums, has_aux, dicts, nested), grad_and_value, vjp, jvp, jacrev, jacfwd, hessian,
vmap (in_dims, out_dims, randomness) and functional_call, with per-sample gradients of a model, and
their errors."""

import sys

torch = __import__(sys.argv[1])
func = __import__(sys.argv[1] + ".func", fromlist=["grad"])


def attempt(f):
    try:
        print(f())
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__, e)


x = torch.tensor([1.0, 2.0, 3.0])
cube = lambda x: (x**3).sum()  # noqa: E731
attempt(lambda: func.grad(cube)(x))
attempt(lambda: func.grad(lambda x: x**3)(x))
attempt(lambda: func.grad(cube, argnums=(0,))(x))
attempt(lambda: func.grad(lambda a, b: (a * b).sum(), argnums=1)(x, x * 2))
attempt(lambda: func.grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(x, x * 2))
attempt(lambda: func.grad(lambda a, b: (a * b).sum(), argnums=2)(x, x))
attempt(lambda: func.grad(lambda a, b: (a * b).sum(), argnums=(0, 0))(x, x))
attempt(lambda: func.grad(lambda a, b: (a * b).sum(), argnums=-1)(x, x * 3))
attempt(lambda: func.grad(lambda x: ((x**3).sum(), x))(x))
attempt(lambda: func.grad(lambda x: ((x**3).sum(), x * 2), has_aux=True)(x))
attempt(lambda: func.grad(cube, has_aux=True)(x))
attempt(lambda: func.grad(lambda x: x.sum())(torch.tensor([1, 2])))
attempt(lambda: func.grad(lambda x: torch.tensor(1.0))(x))
attempt(lambda: func.grad(lambda x: x.sum())(2.0))
attempt(lambda: func.grad(func.grad(lambda x: x**3))(torch.tensor(2.0)))
attempt(lambda: func.grad(func.grad(func.grad(lambda x: x.sin())))(torch.tensor(0.5)))
attempt(lambda: func.grad_and_value(cube)(x))
attempt(lambda: func.grad_and_value(lambda x: ((x**2).sum(), x.mean()), has_aux=True)(x))
attempt(lambda: func.grad(lambda d: (d["a"] * d["b"]).sum())({"a": x, "b": x * 2}))
attempt(lambda: func.grad(lambda p: (p[0] * p[1][0]).sum())((x, [x + 1])))
w = torch.tensor([1.0, -1.0, 2.0], requires_grad=True)
g = func.grad(lambda x: (x * w).sin().sum())(x)
print(g)  # keeps its graph: it reaches w, which required grad before the call
g.sum().backward()
print(w.grad)
print(func.grad(cube)(x.clone().requires_grad_()))

out, vjp_fn = func.vjp(lambda x: x**2, x)
print(out, vjp_fn(torch.ones(3)), vjp_fn(torch.tensor([1.0, 0.0, 2.0])))
attempt(lambda: vjp_fn(torch.ones(2)))
attempt(lambda: vjp_fn((torch.ones(3),)))
out, vjp_fn = func.vjp(lambda a, b: (a * b, a + b), x, x * 2)
print(out, vjp_fn((torch.ones(3), torch.ones(3))))
print(func.vjp(lambda x: (x.exp(), x.sum()), x, has_aux=True)[2])

attempt(lambda: func.jvp(lambda x: x**2, (x,), (torch.ones(3),)))
attempt(lambda: func.jvp(lambda a, b: a * b, (x, x * 2), (torch.ones(3), torch.zeros(3))))
attempt(lambda: func.jvp(lambda x: x**2, x, torch.ones(3)))
attempt(lambda: func.jvp(lambda x: x**2, (x,), torch.ones(3)))
attempt(lambda: func.jvp(lambda x: (x.sin(), x.cos()), (x,), (torch.ones(3),)))
attempt(lambda: func.jvp(lambda x: (x.sin(), x * 2), (x,), (torch.ones(3),), has_aux=True))

attempt(lambda: func.jacrev(lambda x: x**2)(x))
attempt(lambda: func.jacfwd(lambda x: x**2)(x))
attempt(lambda: func.jacrev(lambda x: x.sin())(torch.tensor(0.5)))
attempt(lambda: func.jacrev(lambda a, b: (a * b, a + b), argnums=(0, 1))(torch.ones(2), torch.ones(2) * 3))
attempt(lambda: func.jacfwd(lambda a, b: (a * b, a + b), argnums=(0, 1))(torch.ones(2), torch.ones(2) * 3))
attempt(lambda: func.jacrev(lambda d: d["a"] * 2)({"a": torch.ones(2)}))
attempt(lambda: func.jacrev(lambda m: m @ torch.ones(2))(torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])))
attempt(lambda: func.jacrev(lambda x: (x.sum(), x * 2), has_aux=True)(x))
attempt(lambda: func.jacrev(lambda x: x, chunk_size=0)(x))
attempt(lambda: func.hessian(cube)(x))
attempt(lambda: func.hessian(lambda x: (x.sin() * x.exp()).sum())(torch.tensor([0.1, 0.2])))
attempt(lambda: func.hessian(lambda a, b: (a * a * b).sum(), argnums=1)(x, x))
attempt(lambda: func.jacfwd(func.jacrev(lambda x: (x.tanh() ** 2).sum()))(torch.tensor([0.5, -1.0])))
attempt(lambda: func.jacrev(func.jacrev(lambda x: (x.tanh() ** 2).sum()))(torch.tensor([0.5, -1.0])))

m6 = torch.arange(6.0).reshape(2, 3)
attempt(lambda: func.vmap(lambda a: (a * a).sum())(m6))
attempt(lambda: func.vmap(lambda a, b: a * b, in_dims=(0, None))(m6, x))
attempt(lambda: func.vmap(lambda a: a.sum(), in_dims=1)(m6))
attempt(lambda: func.vmap(lambda a: a * 2, out_dims=1)(m6))
attempt(lambda: func.vmap(lambda a: (a.sum(), a * 2))(m6))
attempt(lambda: func.vmap(lambda d: d["p"] + d["q"])({"p": m6, "q": m6}))
attempt(lambda: func.vmap(lambda a: a)(torch.tensor(1.0)))
attempt(lambda: func.vmap(lambda a, b: a + b)(torch.ones(2, 3), torch.ones(3, 3)))
attempt(lambda: func.vmap(lambda a: a, in_dims=(0, 1))(m6))
attempt(lambda: func.vmap(lambda a: a, in_dims=[0])(m6))
attempt(lambda: func.vmap(lambda a: a, in_dims=None)(m6))
attempt(lambda: func.vmap(lambda a: a, in_dims=0.5)(m6))
attempt(lambda: func.vmap(lambda a, n: a * n, in_dims=(0, 0))(m6, 2))
attempt(lambda: func.vmap(lambda a: 3.0)(m6))
attempt(lambda: func.vmap(lambda a: a, out_dims="x")(m6))
attempt(lambda: func.vmap(lambda a: a)())
attempt(lambda: func.vmap(lambda a: torch.rand(2))(m6))
attempt(lambda: func.vmap(lambda a: a, randomness="sometimes"))
torch.manual_seed(0)
same = func.vmap(lambda a: a + torch.rand(()), randomness="same")(torch.zeros(3))
print(same[0] == same[1], same[1] == same[2])
print(func.vmap(func.vmap(lambda a, b: a * b, in_dims=(0, None)), in_dims=(None, 0))(x, torch.ones(2)))

# per-sample gradients of a model: functional_call, vmap(grad(loss)) over the batch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
params = {k: p.detach() for k, p in model.named_parameters()}
xb, yb = torch.randn(5, 3), torch.randn(5, 1)


def loss(params, xs, ys):
    return ((func.functional_call(model, params, (xs.unsqueeze(0),)) - ys) ** 2).mean()


per_sample = func.vmap(func.grad(loss), in_dims=(None, 0, 0))(params, xb, yb)
print({k: g.shape for k, g in per_sample.items()})
print(per_sample["2.bias"].squeeze(), per_sample["0.weight"][0])
print(per_sample["2.weight"].mean(0))
model.zero_grad()
((model(xb) - yb) ** 2).mean().backward()
print(model[2].weight.grad)
print(func.functional_call(model, params, xb).shape, model[0].weight.requires_grad)
attempt(lambda: func.functional_call(model, {"0.weight": torch.zeros(4, 3)}, (xb,), strict=True))
attempt(lambda: func.functional_call(model, 5, (xb,)))
attempt(lambda: func.functional_call(model, [params, {"0.weight": torch.zeros(4, 3)}], (xb,)))
print(func.functional_call(model, {"2.bias": torch.tensor([100.0])}, (xb,)).squeeze())
print(torch.vmap(lambda a: a.sum())(m6))

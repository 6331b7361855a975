import sys


def run(L):
    class Square(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x * x * k

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g * ctx.k, None

    class Bad(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    class BadShape(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.sum()

    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = Square.apply(x, 3.0)
    print(y, y.grad_fn.name(), [type(n).__name__ if n else None for n, _ in y.grad_fn.next_functions])
    y.sum().backward()
    print(x.grad)
    for f in (
        lambda: y.sum().backward(),
        lambda: Bad.apply(x).sum().backward(),
        lambda: BadShape.apply(x).sum().backward(),
    ):
        try:
            f()
        except Exception as e:
            print(type(e).__name__, str(e))
    (g,) = L.autograd.grad(Square.apply(x, 1.0).sum(), x, create_graph=True)
    print(g)
    with L.no_grad():
        print(Square.apply(x, 1.0))


run(__import__(sys.argv[1]))

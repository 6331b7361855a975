"""A custom autograd.Function in the PyTorch 2 style (forward without ctx, then setup_context),
with a non-differentiable second output, checked with gradcheck and gradgradcheck."""

import sys

torch = __import__(sys.argv[1])


class SortedSquares(torch.autograd.Function):
    @staticmethod
    def forward(x):
        y = x * x
        return y, (y > 1.0)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)
        ctx.mark_non_differentiable(output[1])

    @staticmethod
    def backward(ctx, grad_y, grad_mask):
        (x,) = ctx.saved_tensors
        return 2 * x * grad_y


x = torch.tensor([0.5, -1.5, 2.0], dtype=torch.float64, requires_grad=True)
y, mask = SortedSquares.apply(x)
print(y, mask, mask.requires_grad, y.grad_fn.name())
y.sum().backward()
print(x.grad, SortedSquares.apply(x)[0].grad_fn.needs_input_grad if hasattr(y.grad_fn, "needs_input_grad") else "")
print(torch.autograd.gradcheck(lambda t: SortedSquares.apply(t)[0], (x,)))
print(torch.autograd.gradgradcheck(lambda t: SortedSquares.apply(t)[0], (x,)))
with torch.no_grad():
    print(SortedSquares.apply(x)[0].requires_grad)
with torch.inference_mode():
    print(torch.is_inference_mode_enabled(), (x * 2).requires_grad)

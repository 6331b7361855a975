"""The device idiom of every modern tutorial, on a machine without a GPU; then the same tensors moved
between dtypes, as a lesson on devices and dtypes shows them."""

import sys

torch = __import__(sys.argv[1])

device = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
print(f"Using {device} device")
print(torch.device(device), repr(torch.device(device)), torch.cuda.device_count())

x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=device, requires_grad=True)
w = torch.ones(2, 2).to(device)
y = (x @ w).sum()
y.backward()
print(x.device, x.grad, x.is_cuda)
print(x.to(torch.float64), x.double().grad_fn.name(), x.cpu() is x)
print(x.detach().to(device, torch.int64), x.type(), torch.LongTensor([1, 2]).type())
print(isinstance(x, torch.FloatTensor), isinstance(x, torch.DoubleTensor), type(x))
try:
    x.cuda()
except AssertionError as error:
    print("cuda():", error)
try:
    torch.zeros(2, device="cuda")
except AssertionError as error:
    print("device='cuda':", error)
torch.backends.cudnn.deterministic = True
print(torch.backends.cudnn.deterministic, torch.accelerator.is_available(), torch.get_default_dtype())

import sys  # run as: python inplace_versions.py torch|gradbook

torch = __import__(sys.argv[1])


def err(f):
    try:
        f()
        print("no error")
    except RuntimeError as e:
        print(str(e).split(" Hint")[0].replace("torch.", "gradbook."))


x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
y.add_(1)
err(lambda: y.sum().backward())
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.sigmoid()
with torch.no_grad():
    y.mul_(2)
err(lambda: y.sum().backward())
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
z = y * 2
y.add_(1)
err(lambda: z.sum().backward())
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.add_(1)
y.sum().backward()
print(x.grad)

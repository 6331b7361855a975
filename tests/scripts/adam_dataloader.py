"""A regression lesson in the style of the PyTorch tutorials: nn.Sequential, a DataLoader over a
TensorDataset, Adam, the loss printed every few epochs. Run as ``python adam_dataloader.py torch``
or ``... gradbook``: both print the same text."""

import sys

import numpy as np

torch = __import__(sys.argv[1])
nn = torch.nn
DataLoader = torch.utils.data.DataLoader
TensorDataset = torch.utils.data.TensorDataset

# data: y = sin(x₀) + x₁²/2 + noise, from NumPy with a fixed seed
rng = np.random.default_rng(0)
X = rng.uniform(-2, 2, size=(64, 2)).astype(np.float32)
Y = (np.sin(X[:, :1]) + X[:, 1:] ** 2 / 2 + 0.05 * rng.standard_normal((64, 1))).astype(np.float32)
dataset = TensorDataset(torch.tensor(X), torch.tensor(Y))
loader = DataLoader(dataset, batch_size=16, shuffle=False)
print(len(dataset), len(loader))
xb, yb = next(iter(loader))
print(xb.shape, yb.shape, xb.dtype)

model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
print(model)
with torch.no_grad():  # the same start in torch and gradbook: weights from NumPy
    for layer in (model[0], model[2]):
        layer.weight.copy_(torch.tensor(rng.normal(0, 0.5, tuple(layer.weight.shape)).astype(np.float32)))
        layer.bias.copy_(torch.tensor(np.zeros(tuple(layer.bias.shape), dtype=np.float32)))

loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
print(optimizer)

for epoch in range(30):
    total = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(xb)
    if epoch % 5 == 0 or epoch == 29:
        print(f"epoch {epoch:2d}  loss {loss.item():.4f}  mean {total / len(dataset):.4f}")

state = optimizer.state_dict()
print(sorted(state["state"]), list(state["state"][0]), state["state"][0]["step"])
print(state["param_groups"][0]["params"], state["param_groups"][0]["betas"])
with torch.no_grad():
    print(f"{loss_fn(model(torch.tensor(X)), torch.tensor(Y)).item():.4f}")

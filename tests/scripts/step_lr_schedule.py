"""A learning-rate schedule lesson: SGD with momentum, StepLR halving the lr every 3 epochs,
get_last_lr() printed each epoch. Run as ``python step_lr_schedule.py torch`` or ``... gradbook``."""

import sys

import numpy as np

torch = __import__(sys.argv[1])
nn = torch.nn
data = torch.utils.data

rng = np.random.default_rng(1)
X = rng.standard_normal((40, 3)).astype(np.float32)
w_true = np.array([[1.5], [-2.0], [0.5]], dtype=np.float32)
Y = (X @ w_true + 0.1 * rng.standard_normal((40, 1))).astype(np.float32)
loader = data.DataLoader(data.TensorDataset(torch.tensor(X), torch.tensor(Y)), batch_size=8)

model = nn.Linear(3, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[0.1, 0.2, -0.3]]))
    model.bias.zero_()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)
print(scheduler.get_last_lr(), scheduler.last_epoch)

for epoch in range(10):
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        optimizer.step()
    scheduler.step()
    print(epoch, scheduler.get_last_lr(), f"{loss.item():.5f}")

print(optimizer.param_groups[0]["lr"], optimizer.param_groups[0]["initial_lr"])
print(model.weight)
decay = torch.optim.lr_scheduler.ExponentialLR(torch.optim.Adam([model.bias], lr=1.0), gamma=0.5)
for _ in range(3):
    decay.optimizer.step()
    decay.step()
print(decay.get_last_lr(), decay.last_epoch)

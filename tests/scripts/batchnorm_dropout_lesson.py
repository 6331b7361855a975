import sys

import numpy as np

torch = __import__(sys.argv[1])
nn = torch.nn
F = torch.nn.functional


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(4, 6),
            nn.BatchNorm1d(6),
            nn.LeakyReLU(0.1),
            nn.Dropout(p=0.0),
        )
        self.head = nn.Linear(6, 3)

    def forward(self, x):
        return self.head(self.body(x))


model = Classifier()
print(model)
rng = np.random.default_rng(0)
with torch.no_grad():  # weights from NumPy: torch and gradbook draw different random numbers
    for p in model.parameters():
        p.copy_(torch.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)), dtype=torch.float32))
x = torch.tensor(rng.standard_normal((8, 4)), dtype=torch.float32)
y = torch.tensor([0, 1, 2, 1, 0, 2, 1, 0])
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

model.train()
for step in range(5):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")

bn = model.body[1]
print("running_mean", [round(v, 4) for v in bn.running_mean.tolist()])
print("running_var", [round(v, 4) for v in bn.running_var.tolist()])
print("num_batches_tracked", bn.num_batches_tracked)
print(list(model.state_dict().keys()))
print([name for name, _ in model.named_buffers()])

model.eval()
print(model.training, model.body[3].training)
with torch.no_grad():
    scores = model(x)
    print(f"eval loss {loss_fn(scores, y).item():.4f}")
    print("predicted", scores.argmax(dim=1))
out = model(x)
print(out.grad_fn.name(), out.requires_grad)

dropout = nn.Dropout(0.5).eval()
print(dropout, dropout(x) is x)
print(f"{F.binary_cross_entropy_with_logits(out[:, 0], (y == 0).float()).item():.4f}")
print(f"{F.smooth_l1_loss(out[:, 1], out[:, 2]).item():.4f}", f"{F.l1_loss(out[:, 1], out[:, 2]).item():.4f}")

state = model.state_dict()
copy = Classifier()
print(copy.load_state_dict(state))
copy.eval()
with torch.no_grad():
    print("same after loading:", bool((copy(x) - model(x)).abs().max() < 1e-6))

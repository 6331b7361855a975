"""Bool tensors refused as torch refuses them: relu, hardtanh, relu6, negation, subtraction, abs (review items
F26, F32), and what torch accepts (sigmoid, tanh of bool)."""

import sys

torch = __import__(sys.argv[1])
b = torch.tensor([True, False])
for name, f in [
    ("relu", lambda: torch.relu(b)),
    ("F.relu", lambda: torch.nn.functional.relu(b)),
    ("hardtanh", lambda: torch.nn.functional.hardtanh(b)),
    ("relu6", lambda: torch.nn.functional.relu6(b)),
    ("sigmoid", lambda: torch.sigmoid(b)),
    ("neg", lambda: -b),
    ("sub", lambda: b - b),
    ("rsub", lambda: 1 - b),
    ("sub num", lambda: b - 1),
    ("leaky", lambda: torch.nn.functional.leaky_relu(b)),
    ("elu", lambda: torch.nn.functional.elu(b)),
    ("tanh", lambda: torch.tanh(b)),
    ("abs", lambda: b.abs()),
    ("sigmoid of float", lambda: torch.sigmoid(b.float())),
]:
    try:
        print(name, f())
    except Exception as e:
        print(name, type(e).__name__, e)
print(
    torch.tensor([1.0, 2.0]) - 0.5, torch.tensor([1.0, 2.0], dtype=torch.float64) - 2, 1.5 - torch.tensor([1.0])
)  # the number fast path

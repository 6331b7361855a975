"""An in-place op whose backward reads its output (relu_, sigmoid_, F.elu(inplace=True)): the node reads the
tensor itself, as torch's does, so a later in-place change is refused at backward (and .data changes are read)."""

import sys

torch = __import__(sys.argv[1])
F = torch.nn.functional


def _without_grad(change):
    with torch.no_grad():
        change()


for name, first, then in [
    ("relu_ then mul_", lambda x: x.relu_(), lambda y: y.mul_(2)),
    ("relu(inplace) twice", lambda x: F.relu(x, inplace=True), lambda y: F.relu(y, inplace=True)),
    ("sigmoid_ then add_", lambda x: x.sigmoid_(), lambda y: y.add_(1)),
    ("elu_ then y[0] = 5", lambda x: F.elu(x, inplace=True), lambda y: y.__setitem__(0, 5.0)),
    ("exp_ then .data.mul_", lambda x: x.exp_(), lambda y: y.data.mul_(3)),
    ("tanh_ alone", lambda x: x.tanh_(), lambda y: None),
    ("exp then sigmoid_ under no_grad", lambda x: x.exp(), lambda y: _without_grad(y.sigmoid_)),
    ("relu_ then clamp_ under no_grad", lambda x: x.relu_(), lambda y: _without_grad(lambda: y.clamp_(0, 1))),
]:
    a = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    y = first(a * 1)
    then(y)
    try:
        y.sum().backward()
        print(name, [round(v, 4) for v in a.grad.tolist()])
    except RuntimeError as e:
        print(name, str(e).split(" Hint:")[0])

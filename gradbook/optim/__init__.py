"""gradbook.optim: torch.optim's optimizers and learning-rate schedules, for training lessons.

Every optimizer follows torch's single-tensor update (``foreach=False``) formula for formula, in
the parameters' dtype, and prints, saves and loads (``state_dict``) as torch's does.
"""

from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

del adagrad, adam, optimizer, rmsprop, sgd  # noqa: F821  (as torch.optim: only the public names stay)

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]

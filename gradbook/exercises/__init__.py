"""Checks with feedback for the lessons: run one after your answer, fix, run again.

Each ``check_<name>(answer)`` prints one line when the answer is right, and otherwise raises
``AssertionError`` with what was expected (in words), what you gave, and a hint. An answer left
at its placeholder (``...``, ``None``, ``raise NotImplementedError()``) is reported as not
attempted. The same checks are ``Exercise`` objects, with ``.check()``, ``.hint()`` and
``.solution_available``; ``exercises(lesson)`` lists them. No answers ship with gradbook: each
check recomputes what it expects from the problem, with gradbook, and the examples in these
docstrings call the checks with other programs, never with an answer.

>>> from gradbook.exercises import check_grad_after_three_calls
>>> check_grad_after_three_calls(...)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
gradbook.exercises._checking.NotAttemptedError: not attempted: ...
>>> exercises(3)[0].hint()
'retain_graph changes what is freed, not how .grad accumulates.'
"""

from __future__ import annotations

from ..language import on_change
from . import (
    lesson01,
    lesson02,
    lesson03,
    lesson04,
    lesson05,
    lesson06,
    lesson07,
    lesson08,
    lesson09,
    lesson10,
    lesson11,
    lesson12,
    lesson13,
    lesson14,
    lesson15,
    lesson16,
    lesson17,
)
from ._checking import CheckFailedError, Exercise, NotAttemptedError
from ._zh_docs import docstrings
from .lesson01 import check_grad_after_three_calls, check_grad_after_zeroing, check_training_step
from .lesson02 import check_backward_rule, check_jacobian, check_vjp
from .lesson03 import check_backward_twice, check_grad_after_retain
from .lesson04 import check_graph_chain, check_leaves_with_grad, graph_chain
from .lesson05 import check_nth_derivative, check_second_derivative
from .lesson06 import check_grad_through_detach, check_straight_through
from .lesson07 import check_training_loop, check_weight_without_zero_grad
from .lesson08 import check_micrograd_grad, check_torch_grad, check_value_pow
from .lesson09 import check_bias_grad, check_unbroadcast
from .lesson10 import check_gradcheck_verdict, check_logcosh_rule
from .lesson11 import check_hand_gradients, check_numerical_grad, check_tape_backward
from .lesson12 import check_dual_exp, check_jvp_column, check_passes
from .lesson13 import check_accumulation_step, check_grad_without_division
from .lesson14 import check_linear_function, check_softmax_ce_grad
from .lesson15 import check_mask_relu, check_saved_count
from .lesson16 import check_kink_grad, check_xlogx
from .lesson17 import check_array_sum, check_loop_graph

_LESSONS = {
    1: lesson01,
    2: lesson02,
    3: lesson03,
    4: lesson04,
    5: lesson05,
    6: lesson06,
    7: lesson07,
    8: lesson08,
    9: lesson09,
    10: lesson10,
    11: lesson11,
    12: lesson12,
    13: lesson13,
    14: lesson14,
    15: lesson15,
    16: lesson16,
    17: lesson17,
}

# help(check_...) in the language set: the Chinese summary above the English docstring (see _zh_docs)
on_change(docstrings(e.check_answer for module in _LESSONS.values() for e in module.exercises))


def exercises(lesson: int | None = None) -> tuple[Exercise, ...]:
    """The exercises of one lesson (1-17), or of all lessons in order.

    >>> [ex.name for ex in exercises(4)]
    ['graph_chain', 'leaves_with_grad']
    """
    if lesson is None:
        return tuple(ex for module in _LESSONS.values() for ex in module.exercises)
    if lesson not in _LESSONS:
        raise ValueError(f"there are exercises for lessons {sorted(_LESSONS)}, not for lesson {lesson}")
    return _LESSONS[lesson].exercises


__all__ = [
    "CheckFailedError",
    "Exercise",
    "NotAttemptedError",
    "check_accumulation_step",
    "check_array_sum",
    "check_backward_rule",
    "check_backward_twice",
    "check_bias_grad",
    "check_dual_exp",
    "check_grad_after_retain",
    "check_grad_after_three_calls",
    "check_grad_after_zeroing",
    "check_grad_through_detach",
    "check_grad_without_division",
    "check_gradcheck_verdict",
    "check_graph_chain",
    "check_hand_gradients",
    "check_jacobian",
    "check_jvp_column",
    "check_kink_grad",
    "check_leaves_with_grad",
    "check_linear_function",
    "check_logcosh_rule",
    "check_mask_relu",
    "check_loop_graph",
    "check_micrograd_grad",
    "check_nth_derivative",
    "check_numerical_grad",
    "check_passes",
    "check_saved_count",
    "check_second_derivative",
    "check_softmax_ce_grad",
    "check_straight_through",
    "check_tape_backward",
    "check_torch_grad",
    "check_training_loop",
    "check_training_step",
    "check_unbroadcast",
    "check_value_pow",
    "check_vjp",
    "check_weight_without_zero_grad",
    "check_xlogx",
    "exercises",
    "graph_chain",
]

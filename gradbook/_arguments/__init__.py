"""torch's argument rules, off the reading path: what the Tensor methods do before an op runs.

Lifting Python numbers to tensors, dtype promotion, broadcasting errors, which matrix product a
``@`` is, indexing as a chain of views, by the op families of ``gradbook/ops/``. Each function
ends in ``ops.<Op>.apply``. In-place updates and their version counters are in
``gradbook/autograd/inplace.py``; ``docs/engine.md`` says which Tensor methods come through here.
"""

# ruff: noqa: F401
# (the face: gradbook._arguments.<name> for each rule, as tensor.py calls them)
from .arithmetic import (
    add,
    addcmul,
    clamp,
    compare,
    div,
    floor_divide,
    lerp,
    mul,
    number_bound,
    pow,
    rdiv,
    reflected_remainder,
    remainder,
    rpow,
    rsub,
    sub,
    where,
)
from .backward import as_list, backward_inputs, backward_seeds, check_tensors
from .einsum import einsum
from .indexing import fill, gather, getitem, index_put_, index_select, masked_fill, scatter, setitem, sort, topk, zero
from .linalg import addmm, bmm, cross, dot, kron, matmul
from .operands import (
    ReturnType,
    argument,
    binary,
    broadcast_check,
    check_dim,
    check_dims,
    lift,
    operand,
    pair,
    promoting,
    tensor_argument,
    tensor_list,
)
from .random import bernoulli_, fill_random, normal_, normal_node, random_, uniform_
from .reduce import amax, arg_extreme, diff, extreme, logsumexp, reduce, var, vector_norm
from .shape import (
    cat,
    chunk,
    contiguous,
    diagonal,
    expand,
    expanded_shape,
    flatten,
    flip,
    meshgrid,
    movedim,
    narrow,
    permute,
    repeat,
    roll,
    split,
    squeeze,
    stack,
    sum_to_size,
    t,
    tile,
    too_few_sizes,
    transpose,
    unbind,
    view,
)
from .tensors import check_grad, check_requires_grad, deepcopy, leaf_hooks, legacy_type, new_like, new_tensor, to

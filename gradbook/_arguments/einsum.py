"""``einsum`` as torch computes it (ATen's ``einsum`` in ``Linear.cpp``), so that its graph, values and
errors are torch's: each operand gets a diagonal for a repeated label, a size-1 dim for each label it
lacks, and one permutation to a common order (the output's labels, then the summed ones); operands
are then contracted two at a time, left to right, by ``sumproduct_pair``: a multiplication when no
label is summed, else a permutation and reshape of each side, one ``bmm``, and a view back.
(torch orders 3 or more operands by ``opt_einsum`` when that package is installed; gradbook goes
left to right, as torch does without it.)"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor

_LETTERS = 26
_ELLIPSIS = 2 * _LETTERS  # the code of "..." among the 52 label codes


def _code(label: str) -> int:  # A-Z: 0-25, a-z: 26-51, as torch numbers them
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + _LETTERS


def _label(code: int) -> str:
    return chr(ord("A") + code) if code < _LETTERS else chr(ord("a") + code - _LETTERS)


def einsum(*args: Any) -> Tensor:
    """``einsum("ij,jk->ik", a, b)``, or torch's sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``."""
    if len(args) < 2:
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, or at least one operand and its "
            "subscripts list"
        )
    if isinstance(args[0], Tensor):  # the sublist form: operand, its subscripts, ..., [output subscripts]

        def subscript(n: Any) -> str:
            if n is Ellipsis:
                return "..."
            if 0 <= n < 2 * _LETTERS:
                return _label(n)
            raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")

        equation = ",".join("".join(subscript(s) for s in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(subscript(s) for s in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):  # the old form: one list of operands
        return einsum(equation, *operands[0])
    for i, op in enumerate(operands):
        if not isinstance(op, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(op).__name__}")
    return _einsum(equation, list(operands))


def _parse(equation: str, num_ops: int) -> tuple[list[list[int]], str | None]:
    """Each operand's label codes (``_ELLIPSIS`` for ``...``), and the output part (None without ``->``)."""
    lhs, arrow, rhs = equation.partition("->")
    op_labels: list[list[int]] = [[] for _ in range(num_ops)]
    current, ellipsis_seen, i = 0, False, 0
    while i < len(lhs):
        label = lhs[i]
        if label == " ":
            pass
        elif label == ".":
            if ellipsis_seen:
                raise RuntimeError(f"einsum(): found '.' for operand {current} for which an ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for operand {current} that is not part of any ellipsis")
            i += 2
            op_labels[current].append(_ELLIPSIS)
            ellipsis_seen = True
        elif label == ",":
            current += 1
            if current >= num_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            ellipsis_seen = False
        else:
            if not (label.isascii() and label.isalpha()):
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {i} in the equation string, subscripts must be in "
                    "[a-zA-Z]"
                )
            op_labels[current].append(_code(label))
        i += 1
    if current != num_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return op_labels, rhs if arrow else None


def _einsum(equation: str, operands: list[Tensor]) -> Tensor:
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    num_ops = len(operands)
    op_labels, rhs = _parse(equation, num_ops)
    label_count = [0] * _ELLIPSIS
    ell_num_dim = 0  # the most dims any ellipsis covers
    for i, (op, labels) in enumerate(zip(operands, op_labels)):
        nlabels = sum(1 for s in labels if s != _ELLIPSIS)
        has_ellipsis = _ELLIPSIS in labels
        if has_ellipsis:
            ell_num_dim = max(ell_num_dim, op.ndim - nlabels)
        for s in labels:
            if s != _ELLIPSIS:
                label_count[s] += 1
        if (nlabels > op.ndim) if has_ellipsis else (nlabels != op.ndim):
            relation = "is more than" if has_ellipsis else "does not match"
            tail = "" if has_ellipsis else " and no ellipsis was given"
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({nlabels}) {relation} the number of "
                f"dimensions ({op.ndim}) for operand {i}{tail}"
            )
    # each label's place in the common order: the output's dims first, then the summed ones
    perm_of = [-1] * _ELLIPSIS
    perm_index = ell_index = 0
    if rhs is None:  # implicit output: the ellipsis, then the labels seen once, in alphabetical order
        perm_index, ell_in_output = ell_num_dim, True
        for s in range(_ELLIPSIS):
            if label_count[s] == 1:
                perm_of[s] = perm_index
                perm_index += 1
    else:
        ell_in_output, i = False, 0
        while i < len(rhs):
            label = rhs[i]
            if label == ".":
                if ell_in_output:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
                i += 2
                ell_index, ell_in_output = perm_index, True
                perm_index += ell_num_dim
            elif label != " ":
                if not (label.isascii() and label.isalpha()):
                    raise RuntimeError(
                        f"einsum(): invalid subscript given at index {len(equation) - len(rhs) + i} in the equation "
                        "string, subscripts must be in [a-zA-Z]"
                    )
                s = _code(label)
                if not (label_count[s] > 0 and perm_of[s] == -1):
                    why = (
                        "appears more than once in the output"
                        if perm_of[s] > -1
                        else ("does not appear in the equation for any input operand")
                    )
                    raise RuntimeError(f"einsum(): output subscript {label} {why}")
                perm_of[s] = perm_index
                perm_index += 1
            i += 1
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for s in range(_ELLIPSIS):  # the summed labels
        if label_count[s] > 0 and perm_of[s] == -1:
            perm_of[s] = perm_index
            perm_index += 1
    # each operand: diagonals for repeated labels, size-1 dims for missing ones, one permutation
    label_size = [1] * _ELLIPSIS
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index  # how many operands have each dim with size != 1
    aligned: list[Tensor] = []
    for i, (op, labels) in enumerate(zip(operands, op_labels)):
        permutation = [-1] * perm_index
        dim = 0
        for s in labels:
            if s == _ELLIPSIS:
                ndim = operands[i].ndim - (len(labels) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    size = op.shape[dim]
                    if size != 1:
                        if ell_sizes[j] not in (1, size):
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}has size {size} which "
                                f"does not broadcast with previously seen ellipsis with size {ell_sizes[j]} for the "
                                "respective dimension"
                            )
                        ell_sizes[j] = size
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[perm_of[s]] == -1:
                size = op.shape[dim]
                if size != 1:
                    if label_size[s] not in (1, size):
                        raise RuntimeError(
                            f"einsum(): subscript {_label(s)} has size {size} for operand {i} which does not "
                            f"broadcast with previously seen size {label_size[s]}"
                        )
                    label_size[s] = size
                    dim_counts[perm_of[s]] += 1
                permutation[perm_of[s]] = dim
                dim += 1
            else:  # a repeated label: its diagonal, moved to where the label first was
                prev = permutation[perm_of[s]]
                if op.shape[dim] != op.shape[prev]:
                    raise RuntimeError(
                        f"einsum(): subscript {_label(s)} is repeated for operand {i} but the sizes don't match, "
                        f"{op.shape[dim]} != {op.shape[prev]}"
                    )
                op = op.diagonal(0, prev, dim).movedim(-1, prev)
        for k, val in enumerate(permutation):  # the labels this operand lacks: size-1 dims
            if val == -1:
                op = op.unsqueeze(dim)
                permutation[k] = dim
                dim += 1
        aligned.append(op.permute(permutation))
    while len(aligned) > 1:  # contract two at a time, left to right
        a, b = aligned.pop(0), aligned.pop(0)
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(out_num_dim, perm_index):
            if a.shape[d] != 1 and b.shape[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a.shape[d] != 1:
                    a_sum.append(d)
                    dim_counts[d] = 0
                elif b.shape[d] != 1:
                    b_sum.append(d)
                    dim_counts[d] = 0
        if a_sum:
            a = a.sum(a_sum, True)
        if b_sum:
            b = b.sum(b_sum, True)
        aligned.insert(0, _sumproduct_pair(a, b, sum_dims))
    result = aligned[0]
    if perm_index - out_num_dim > 0:  # the summed dims
        if num_ops > 1:  # already size 1 after the contractions
            return result.view(result.shape[:out_num_dim])
        return result.sum(list(range(out_num_dim, perm_index)))
    return result


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list[int]) -> Tensor:
    """``(left * right).sum(sum_dims, keepdim=True)`` by a permutation, a reshape and one ``bmm``."""
    if not sum_dims:
        return left * right
    lro, lo, ro = [], [], []  # dims in left, right and the output; left and output only; right and output only
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(left.ndim):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif sl:
                left = left.sum(i, True)
            elif sr:
                right = right.sum(i, True)
        elif sl and sr:
            if left.shape[i] != right.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    out_size = [left.shape[d] for d in lro] + [left.shape[d] for d in lo] + [1] * len(sum_dims)
    out_size += [right.shape[d] for d in ro]
    opermutation = [-1] * len(out_size)
    for i, d in enumerate(lro + lo + sum_dims + ro):
        opermutation[d] = i
    left = left.permute(lro + lo + sum_dims + ro).reshape(lro_size, lo_size, sum_size)
    right = right.permute(lro + sum_dims + ro + lo).reshape(lro_size, sum_size, ro_size)
    return left.bmm(right).view(out_size).permute(opermutation)

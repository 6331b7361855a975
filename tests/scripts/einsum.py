"""torch.einsum: the graph torch records (permutes, unsqueezes, diagonals, one bmm per contraction, views), values,
gradients, the sublist and list forms, and the errors."""

import sys

torch = __import__(sys.argv[1])


def names(t):
    out = []
    seen = set()
    st = [t.grad_fn]
    while st:
        n = st.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        out.append(n.name())
        st.extend(f for f, _ in n.next_functions)
    return out


torch.manual_seed(0)
g = lambda *s: torch.randn(*s, dtype=torch.float64, requires_grad=True)
a, b, v, w = g(2, 3), g(3, 4), g(3), g(4)
c, d, sq = g(5, 2, 3), g(5, 3, 4), g(3, 3)
e4 = g(2, 3, 4, 5)
cases = [
    ("ij,jk->ik", (a, b)),
    ("ij->ji", (a,)),
    ("ii->i", (sq,)),
    ("ij->", (a,)),
    ("ij->j", (a,)),
    ("i,i->", (v, v)),
    ("i,j->ij", (v, w)),
    ("bij,bjk->bik", (c, d)),
    ("ij,j->i", (a, v)),
    ("ii", (sq,)),
    ("ij,ij->ij", (a, a)),
    ("...ij,...jk->...ik", (c, d)),
    ("ijk->kji", (c,)),
    ("ij,jk", (a, b)),
    ("ij,jk,kl->il", (a, b, g(4, 2))),
    ("bhqd,bhkd->bhqk", (e4, e4)),
    ("i,i", (v, v)),
    ("ij,kj->ik", (a, a)),
    ("...", (a,)),
    ("iij->j", (g(3, 3, 2),)),
    ("ij,jk->", (a, b)),
    ("bi,bi->b", (a, a)),
    ("ab,cd->abcd", (a, b)),
    (" i j , j k -> i k ", (a, b)),
    ("i...->...", (c,)),
    ("...i,...i->...", (c, g(2, 3))),
]
for eq, ops in cases:
    r = torch.einsum(eq, *ops)
    r.sum().backward() if r.requires_grad else None
    print(repr(eq), tuple(r.shape), names(r), [round(float(x), 8) for x in r.detach().reshape(-1)[:4]])
print(
    torch.einsum(a, [0, 1], b, [1, 2], [0, 2]).shape,
    torch.einsum(a, [0, 1], b, [1, 2]).shape,
    torch.einsum("ij,jk", [a, b]).shape,
)
print(torch.einsum(c, [..., 1], [...]).shape)
for bad in [
    lambda: torch.einsum("ij,jk->ik", a),
    lambda: torch.einsum("ij->ik", a),
    lambda: torch.einsum("ij,jk->ik", a, a),
    lambda: torch.einsum("i->ii", v),
    lambda: torch.einsum("ijk->i", a),
    lambda: torch.einsum("i1->i", a),
    lambda: torch.einsum("ij", a, b),
    lambda: torch.einsum("ii->i", a),
    lambda: torch.einsum(".i->i", v),
    lambda: torch.einsum("......->", a),
    lambda: torch.einsum("ij"),
    lambda: torch.einsum(a, [0, 99]),
    lambda: torch.einsum("i,i->", v, [1.0]),
    lambda: torch.einsum("...i,...i->...", g(2, 3), g(4, 3)),
    lambda: torch.einsum("ij->i.", a),
]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)

#!/usr/bin/env python3
# usage: python3 THIS.py COURSE_DIR STUDENT_ID   (run nbgrader generate_assignment first)
"""helpers (inlined into replay scripts)"""
import nbformat, os, sys, re, glob, shutil

def released(course, assignment):
    for d in (f"{course}/release/gradbook-autograd/{assignment}", f"{course}/release/{assignment}"):
        nbs = glob.glob(d + "/*.ipynb")
        if nbs:
            return nbs[0]
    raise SystemExit("run nbgrader generate_assignment first")

def solutions(course, assignment):
    src = glob.glob(f"{course}/source/{assignment}/*.ipynb")[0]
    nb = nbformat.read(src, 4)
    out = {}
    for c in nb.cells:
        m = c.metadata.get("nbgrader", {})
        if m.get("solution"):
            s = re.sub(r"[ \t]*### (BEGIN|END) SOLUTION\n?", "", c.source)
            out[m["grade_id"]] = s
    return out

def build(course, assignment, student, answers=None, honest=True, mutate=None):
    """answers: grade_id -> source. honest: fill the rest with the instructor's solutions."""
    rel = released(course, assignment)
    nb = nbformat.read(rel, 4)
    sol = solutions(course, assignment) if honest else {}
    answers = answers or {}
    for c in nb.cells:
        gid = c.metadata.get("nbgrader", {}).get("grade_id")
        if gid in answers:
            c.source = answers[gid]
        elif gid in sol:
            c.source = sol[gid]
    if mutate:
        nb = mutate(nb) or nb
    d = f"{course}/submitted/{student}/{assignment}"
    os.makedirs(d, exist_ok=True)
    path = f"{d}/{os.path.basename(rel)}"
    import json
    with open(path, 'w') as f:
        json.dump(nb, f, ensure_ascii=True, indent=1)
    return path


# Same empty-broadcast trick on other assignments: 05 hvp, 07 grads, 04 saved, 09 bias_grad.
ANS = {
 '05_higher_order': {'hvp_answer': 'def hvp(f, x, v):\n    return torch.zeros(0, 2)\n'},
 '07_training_loop': {'grads_answer': 'grads = torch.zeros(0, 2)\n'},
 '04_reading_the_graph': {'saved_answer': 'saved = torch.zeros(0, 2)\n'},
 '09_broadcasting': {'values_answer': 'bias_grad = torch.zeros(0, 3, 1)\n'},
}
def attack(course, student):
    for a, ans in ANS.items():
        build(course, a, student, ans, honest=False)


if __name__ == '__main__':
    attack(sys.argv[1], sys.argv[2])
    print('built', sys.argv[2])

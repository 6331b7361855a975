import sys
sys.path.insert(0, "/tmp/attack2/lib")
from mk import build, solutions
def main(course, student):
    a = solutions(course, "02_vjp")
    a["vjp_answer"] = "vjp = [1.0, 2.0]\n"                      # wrong shape
    a["jacobian_answer"] = "jacobian = [[1.0, 2.0], [1.0, 1.0], [0.0, 5.0]]\n"  # wrong value
    print(build(course, student, "02_vjp", a))
    b = solutions(course, "01_accumulation")
    b["three_calls_answer"] = "three_calls = 'abc'\n"             # judge's float() raises
    b["after_zeroing_answer"] = "after_zeroing = 31.0\n"          # wrong value
    b["training_step_answer"] = "def step(w, x, y, lr):\n    with torch.no_grad():\n        w.mul_(0.5)\n"
    print(build(course, student, "01_accumulation", b))
if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

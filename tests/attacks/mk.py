"""make self-contained replay scripts: python mk.py att/NAME.py DEST_DIR"""
import sys, os
lib = open('/tmp/attack/lib.py').read()
body = open(sys.argv[1]).read()
out = "#!/usr/bin/env python3\n# usage: python3 THIS.py COURSE_DIR STUDENT_ID   (run nbgrader generate_assignment first)\n" + lib + "\n\n" + body + "\n\nif __name__ == '__main__':\n    attack(sys.argv[1], sys.argv[2])\n    print('built', sys.argv[2])\n"
dest = os.path.join(sys.argv[2], os.path.basename(sys.argv[1]))
open(dest, 'w').write(out)
print(dest)

# nbgrader configuration of the Chinese course (gradbook 自动求导课程, 中文版): the English course's
# settings (../nbgrader_config.py), with this directory as the course, its own course id, gradebook
# and exchange. Run nbgrader from this directory.
from pathlib import Path

here = Path(__file__).resolve().parent

c = get_config()  # noqa: F821 (nbgrader provides get_config)
load_subconfig(str(here.parent / "nbgrader_config.py"))  # noqa: F821 (and load_subconfig)

c.CourseDirectory.course_id = "gradbook-autograd-zh"
c.CourseDirectory.root = str(here)
c.CourseDirectory.db_url = f"sqlite:///{here / 'gradebook.db'}"
c.Exchange.root = str(here / "exchange")

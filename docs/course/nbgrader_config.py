# nbgrader configuration of the gradbook exercises course. Run nbgrader from this directory.
# Everything nbgrader writes (gradebook.db, release/, submitted/, autograded/, feedback/, the
# exchange) stays inside this directory, so nothing touches your home directory.
from pathlib import Path

here = Path(__file__).resolve().parent

c = get_config()  # noqa: F821 (nbgrader provides get_config)

c.CourseDirectory.course_id = "gradbook-autograd"
c.CourseDirectory.root = str(here)
c.CourseDirectory.db_url = f"sqlite:///{here / 'gradebook.db'}"
c.Exchange.root = str(here / "exchange")
c.Exchange.path_includes_course = True

# the kernel must not wait forever on a student's infinite loop
c.ExecutePreprocessor.timeout = 60
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}

# feedback shows what the hidden tests found, not their code (gradbook/grading/feedback.py)
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor  # noqa: E402
from nbgrader.preprocessors import GetGrades  # noqa: E402

from gradbook.grading.feedback import HideHiddenTests  # noqa: E402

c.GenerateFeedback.preprocessors = [GetGrades, HideHiddenTests, CSSHTMLHeaderPreprocessor]

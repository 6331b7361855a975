# render an autograded notebook the way nbgrader's formgrader does (HTMLExporter, template 'formgrade')
import sys
from nbconvert.exporters import HTMLExporter
from traitlets.config import Config
from nbgrader.server_extensions.formgrader import handlers
c = Config(); c.HTMLExporter.template_name = 'formgrade'; c.HTMLExporter.extra_template_basedirs = [handlers.template_path]
ex = HTMLExporter(config=c)
res = {'assignment_id': 'a', 'notebook_id': 'n', 'submission_id': 's', 'index': 0, 'total': 1, 'base_url': '/', 'student': 'x', 'last_name': None, 'first_name': None, 'notebook_path': '/x'}
html, _ = ex.from_filename(sys.argv[1], resources=res)
open(sys.argv[2], 'w').write(html)

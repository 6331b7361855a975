"""Grading a class with nbgrader, safely: ``gradbook-grade`` (see ``cli.py``).

- ``sandbox.py``: each submission's kernel runs in a bubblewrap sandbox;
- ``scan.py``: a static scan of each submitted notebook for tampering.
"""

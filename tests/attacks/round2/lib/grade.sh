#!/bin/bash
# grade.sh ASSIGNMENT STUDENT
cd /tmp/attack2/course; export HOME=/tmp/attack2/home
A=$1; S=$2
timeout 1500 gradbook-grade autograde $A --student $S --jobs 1 -- --create --force > /tmp/attack2/logs/$S.$A.grade.log 2>&1; echo "autograde rc=$?"
gradbook-grade report > /tmp/attack2/logs/$S.$A.report.log 2>&1
nbgrader generate_feedback $A --student $S --force > /tmp/attack2/logs/$S.$A.fb.log 2>&1; echo "feedback rc=$?"
sqlite3 gradebook.db "select s.student_id, b.name, g.auto_score, g.manual_score, g.needs_manual_grade from grade g join submitted_notebook n on g.notebook_id=n.id join submitted_assignment s on n.assignment_id=s.id join assignment a on s.assignment_id=a.id join base_cell b on b.id=g.cell_id where s.student_id='$S' and a.name='$A' and g.cell_id in (select id from grade_cells)" 2>&1
grep -A15 "$S" /tmp/attack2/logs/$S.$A.report.log | head -30

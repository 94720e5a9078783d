"""The fitted grade model (written by scripts/fit_grades.py from the `tune` halves of the judged
query sets; do not edit by hand, run the script again)."""

from shopagent.domain.ranking import GradeModel

# 158 tune queries of 3 trades: hit@1 0.64, false alarms 0.29, honesty 0.54
# Weights per feature (shopagent.domain.ranking.features):
#   distance: -1.613
#   gap: -2.869
#   vector_rr: +0.520
#   lexical_rr: +1.466
#   title_coverage: +0.024
#   body_coverage: +1.277
#   category_match: +0.349
#   category_closeness: +1.768
#   modifier_missing: -0.642
#   head_in_text: +0.344
#   head_in_category: -0.134
#   head_unknown: -0.080
GRADE_MODEL = GradeModel(
    weights=(-1.6127, -2.8693, 0.5201, 1.4655, 0.0240, 1.2773, 0.3492, 1.7678, -0.6421, 0.3438, -0.1340, -0.0800),
    bias=-1.6067,
    strong_at=0.2733,
    partial_at=0.0800,
)

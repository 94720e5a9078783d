"""The fitted grade model (written by scripts/fit_grades.py from the `tune` halves of the judged
query sets; do not edit by hand, run the script again)."""

from shopagent.domain.ranking import GradeModel

# 158 tune queries of 3 trades: hit@1 0.64, false alarms 0.20, honesty 0.49
# Weights per feature (shopagent.domain.ranking.features):
#   distance: -1.654
#   gap: -2.847
#   vector_rr: +0.600
#   lexical_rr: +1.465
#   title_coverage: -0.010
#   body_coverage: +1.210
#   category_match: +0.410
#   category_closeness: +1.727
#   modifier_missing: -0.643
#   head_in_text: +0.338
#   head_in_category: -0.148
#   head_unknown: -0.123
GRADE_MODEL = GradeModel(
    weights=(-1.6535, -2.8466, 0.5998, 1.4651, -0.0097, 1.2099, 0.4103, 1.7268, -0.6429, 0.3384, -0.1483, -0.1232),
    bias=-1.5753,
    strong_at=0.2637,
    partial_at=0.0800,
)

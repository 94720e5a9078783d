"""The fitted grade model (written by scripts/fit_grades.py from the `tune` halves of the judged
query sets; do not edit by hand, run the script again)."""

from shopagent.domain.ranking import GradeModel

# use-multilingual-v3: 190 tune queries of 3 trades: hit@1 0.65, false alarms 0.29, honesty 0.66
# Weights per feature (shopagent.domain.ranking.features):
#   distance: -1.100
#   gap: -4.117
#   vector_rr: +0.586
#   lexical_rr: +1.281
#   title_coverage: +0.860
#   body_coverage: +1.423
#   category_match: +0.459
#   category_closeness: +1.313
#   modifier_missing: -0.810
#   head_in_text: +0.508
#   head_in_category: -0.334
#   head_unknown: +0.510
GRADE_MODEL = GradeModel(
    weights=(-1.1002, -4.1173, 0.5861, 1.2807, 0.8599, 1.4234, 0.4594, 1.3131, -0.8101, 0.5077, -0.3344, 0.5095),
    bias=-2.0714,
    strong_at=0.1873,
    partial_at=0.0700,
    named_elsewhere_distance=0.6000,
)

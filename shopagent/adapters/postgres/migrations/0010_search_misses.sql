-- Searches that found nothing graded strong, for the shop owner's view of what shoppers asked
-- that the shop may not carry (`shopagent insights`, GET /api/admin/insights/no-strong-match).
-- Only the normalised query, the tool, the time and the best grade found: nothing of who
-- asked. The reaper deletes rows older than `insights.retention_days`.
CREATE TABLE search_miss (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    searched_at timestamptz NOT NULL DEFAULT now(),
    tool text NOT NULL,
    query text NOT NULL CHECK (length(query) BETWEEN 1 AND 200),
    best_match text CHECK (best_match IN ('partial', 'weak'))
);
CREATE INDEX search_miss_searched_at ON search_miss (searched_at);

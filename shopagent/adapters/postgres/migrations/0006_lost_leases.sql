-- `attempts` now counts failed attempts only (a worker that reported a failure); a lease that
-- ran out (the indexer was killed, or hung) is counted apart, so a crash of the process does
-- not use up an event's attempts, while an event whose every worker dies with it is still
-- dead-lettered in the end.
ALTER TABLE outbox_event ADD COLUMN lost_leases integer NOT NULL DEFAULT 0;

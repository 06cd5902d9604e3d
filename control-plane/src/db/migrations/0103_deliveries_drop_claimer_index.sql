-- Every delivery is written three times: queued, claimed (delivery/deliveries.db.ts claimDue) and
-- finished (recordAttempts). The claim sets claimed_by, so each claimed row version added an entry
-- to this index, all under the same key (the instance id), for a lookup that only releaseClaims
-- makes, when an instance starts or stops. That lookup (this instance's live claims: pending with
-- claimed_until in the future) is served by deliveries_inflight_idx, whose rows are the pending
-- deliveries that hold a lease, live or run out.
DROP INDEX IF EXISTS deliveries_claimer_idx;

/**
 * Idempotency levels from the least a client may assume to the most: an RPC marked
 * `NO_SIDE_EFFECTS` may also be called with Connect's GET, and an `IDEMPOTENT` or
 * `NO_SIDE_EFFECTS` one may be retried by clients that honour it.
 */
const LEVELS = ["IDEMPOTENCY_UNKNOWN", "IDEMPOTENT", "NO_SIDE_EFFECTS"];

/** buf's wording of the change (`... changed option "idempotency_level" from "X" to "Y".`). */
const CHANGE = /changed option "idempotency_level" from "([A-Z_]+)" to "([A-Z_]+)"/;

/**
 * Whether a `buf breaking` finding is an RPC's idempotency level raised. buf's FILE rules refuse
 * any change of it (RPC_SAME_IDEMPOTENCY_LEVEL), because a client generated from the new proto
 * could call a server of the old one with GET. The gate guards clients of the published API
 * against the server that serves the proto: a raised level takes nothing away from them (POST is
 * still served, and a retry was already safe or is now), while a lowered one stops their GETs and
 * retries, and stays a break. A finding this does not recognise (buf rewording it) stays a break.
 */
export function isRaisedIdempotency(type: string, message: string): boolean {
  if (type !== "RPC_SAME_IDEMPOTENCY_LEVEL") return false;
  const [, from = "", to = ""] = CHANGE.exec(message) ?? [];
  const before = LEVELS.indexOf(from);
  const after = LEVELS.indexOf(to);
  return before >= 0 && after > before;
}

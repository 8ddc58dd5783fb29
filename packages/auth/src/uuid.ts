const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * True for the canonical textual form of a UUID, in either case: the form of the caller's ids in
 * a token, and what a PostgreSQL `uuid` column accepts.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for the canonical textual form of a UUID (what a `uuid` column accepts). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

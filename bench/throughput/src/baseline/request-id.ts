import { randomUUID } from "node:crypto";

/** Folio keeps a client's `X-Request-Id` when it is a plain token, else makes a new UUID. */
const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFor(incoming: string | string[] | undefined): string {
  return typeof incoming === "string" && ACCEPTABLE.test(incoming) ? incoming : randomUUID();
}

import type { Code } from "@connectrpc/connect";
import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "@folio/googleapis";

/** The domain of the reasons in google.rpc.ErrorInfo details (AIP-193). */
const ERROR_DOMAIN = "folio.v1";

/** An error with a google.rpc.ErrorInfo detail: a machine-readable reason and its metadata. */
export function errorWithReason(
  code: Code,
  message: string,
  reason: string,
  metadata: Record<string, string> = {},
): ConnectError {
  return new ConnectError(message, code, undefined, [
    { desc: ErrorInfoSchema, value: { reason, domain: ERROR_DOMAIN, metadata } },
  ]);
}

import { Code, ConnectError } from "@connectrpc/connect";
import { codeFromString } from "./code-names.js";

/**
 * The error a Connect handler answers with: a JSON object with `code`, `message` and `details` of
 * `{ type, value, debug }` (https://connectrpc.com/docs/protocol#error-end-stream), the details
 * kept in their binary form as a Connect client keeps them. Anything else is an `internal` error
 * whose message says only what the HTTP status was.
 *
 * @private
 */
export function connectErrorFromJson(bytes: Uint8Array, httpStatus: number): ConnectError {
  try {
    return connectErrorFromJsonValue(JSON.parse(new TextDecoder().decode(bytes)), httpStatus);
  } catch {
    return unreadable(httpStatus);
  }
}

/** {@link connectErrorFromJson} of the error's JSON, parsed already (a stream's end message holds it). @private */
export function connectErrorFromJsonValue(json: unknown, httpStatus: number): ConnectError {
  if (typeof json !== "object" || json === null) return unreadable(httpStatus);
  const { code, message, details } = json as { code?: unknown; message?: unknown; details?: unknown };
  const known = typeof code === "string" ? codeFromString(code) : undefined;
  if (known === undefined) return unreadable(httpStatus);
  const error = new ConnectError(typeof message === "string" ? message : "", known);
  if (Array.isArray(details)) {
    for (const detail of details as { type?: unknown; value?: unknown; debug?: unknown }[]) {
      if (typeof detail?.type !== "string" || typeof detail.value !== "string") continue;
      error.details.push({
        type: detail.type,
        value: new Uint8Array(Buffer.from(detail.value, "base64")),
        debug: detail.debug as never,
      });
    }
  }
  return error;
}

function unreadable(httpStatus: number): ConnectError {
  return new ConnectError(`HTTP ${httpStatus} from the handler`, Code.Internal);
}

import type { HttpErrorEnvelope } from "@folio/http-transcoder";
import type { NodeRequest, NodeResponse } from "./node-handler.js";
import { respond } from "./respond.js";

/** The loopback names a browser cannot be made to resolve elsewhere, as they appear in a Host. */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** `host[:port]`: a bracketed IPv6 literal or a name without colons, then an optional port. */
const AUTHORITY = /^(\[[0-9a-f:.]+\]|[^\s:@/[\]]+)(?::\d*)?$/;

/**
 * `*.localhost`: RFC 6761, section 6.3, reserves these names for loopback, and browsers resolve
 * them to it themselves, so a DNS answer cannot point one at an attacker's page.
 */
const LOCALHOST_SUBDOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+localhost$/;

/** Whether a Host (or `:authority`) value names loopback: `localhost`, `*.localhost`, `127.0.0.1` or `[::1]`, any port. */
export function isLoopbackAuthority(authority: string | undefined): boolean {
  const host = AUTHORITY.exec(authority?.toLowerCase() ?? "")?.[1];
  return host !== undefined && (LOOPBACK_HOSTS.has(host) || LOCALHOST_SUBDOMAIN.test(host));
}

/**
 * Whether the request was addressed to a loopback name. HTTP/2 names its target in `:authority`,
 * falling back to Host; when a request carries both, both must be loopback, so that no pairing of
 * the two slips past a check that reads only one.
 */
function addressedToLoopback(req: NodeRequest): boolean {
  const named = [req.headers[":authority"], req.headers.host].filter((value) => value !== undefined);
  return named.length > 0 && named.every((value) => typeof value === "string" && isLoopbackAuthority(value));
}

/**
 * Answers 421 Misdirected Request, in the API's error envelope, when the request is not addressed
 * to a loopback name, and returns true; returns false, having sent nothing, when it is.
 *
 * Development mode's routes hand out tokens (and the keys that check them) to anyone who asks. A
 * page of another site can ask through DNS rebinding (its name re-resolved to 127.0.0.1, so the
 * browser takes the server for that site), but its requests still carry that site's name in
 * Host: answering only to loopback names keeps those routes on the developer's machine.
 */
export function refuseUnlessLoopback(req: NodeRequest, res: NodeResponse, requestId: string): boolean {
  if (addressedToLoopback(req)) return false;
  const envelope: HttpErrorEnvelope = {
    error: {
      code: "failed_precondition",
      message:
        "development mode answers this only at a loopback address: use localhost, 127.0.0.1 or [::1] in the URL",
      requestId,
      details: [],
    },
  };
  respond(res, 421, "application/json", JSON.stringify(envelope));
  return true;
}

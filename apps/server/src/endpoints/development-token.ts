import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import type { DevelopmentIssuer } from "@folio/auth";

export { DEVELOPMENT_TOKEN_PATH } from "@folio/api-document";

/** Largest form accepted: a grant type, a scope list and client credentials fit many times over. */
const MAX_FORM_BYTES = 8192;

/** Lifetime of the tokens, in seconds. */
const EXPIRES_IN = 3600;

/**
 * Development mode's OAuth 2.0 token endpoint (RFC 6749, section 4.4, client credentials): it
 * mints a token of the development issuer for the demo organisation and user, with the scopes
 * asked for (all the API's by default), so that the docs page's request client can authorise
 * itself. Client credentials are not checked: development mode trusts its callers, whom dispatch
 * limits to requests addressed to loopback names (transport/loopback-host.ts).
 */
export function createDevelopmentTokenEndpoint(
  issuer: DevelopmentIssuer,
  subject: { readonly orgId: string; readonly userId: string; readonly scopes: readonly string[] },
): (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => void {
  return (req, res) => {
    if (req.method !== "POST") {
      res.setHeader("allow", "POST");
      reply(res, 405, { error: "invalid_request", error_description: "use POST" });
      return;
    }
    readForm(req).then(
      async (form) => {
        if (form === undefined) {
          reply(res, 400, {
            error: "invalid_request",
            error_description: `send application/x-www-form-urlencoded, at most ${MAX_FORM_BYTES} bytes`,
          });
          return;
        }
        if (form.get("grant_type") !== "client_credentials") {
          reply(res, 400, {
            error: "unsupported_grant_type",
            error_description: "only client_credentials is supported",
          });
          return;
        }
        const asked = (form.get("scope") ?? "").split(" ").filter((scope) => scope !== "");
        const unknown = asked.filter((scope) => !subject.scopes.includes(scope));
        if (unknown.length > 0) {
          reply(res, 400, {
            error: "invalid_scope",
            error_description: `unknown scope: ${unknown.join(" ")}`,
          });
          return;
        }
        const scopes = asked.length > 0 ? asked : subject.scopes;
        const token = await issuer.mint({
          orgId: subject.orgId,
          userId: subject.userId,
          scopes,
          expiresInSeconds: EXPIRES_IN,
        });
        // RFC 6749, section 5.1: tokens are not cached.
        res.setHeader("cache-control", "no-store");
        reply(res, 200, {
          access_token: token,
          token_type: "Bearer",
          expires_in: EXPIRES_IN,
          scope: scopes.join(" "),
        });
      },
      () => reply(res, 500, { error: "server_error" }),
    );
  };
}

function reply(res: ServerResponse | Http2ServerResponse, status: number, body: Record<string, unknown>) {
  res.statusCode = status;
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify(body));
}

/** The form of a request, or undefined for another content type or a body too large. */
async function readForm(req: IncomingMessage | Http2ServerRequest): Promise<URLSearchParams | undefined> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    req.resume();
    return undefined;
  }
  let size = 0;
  const chunks: Buffer[] = [];
  // Read to the end, keeping no more than the limit: the response goes out on the same connection.
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size <= MAX_FORM_BYTES) chunks.push(chunk);
  }
  return size > MAX_FORM_BYTES ? undefined : new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

import createClient, { type Client } from "openapi-fetch";
import { currentToken, type TokenSource } from "./auth.js";
import { type FolioError, folioErrorFromRest } from "./errors.js";
import type { paths } from "./gen/openapi.js";
import { type RetryOptions, retryDelay, sleep } from "./retry.js";

/** The REST API, typed from the OpenAPI document the server serves (openapi-typescript). */
export type FolioRestClient = Client<paths>;

/** What a REST client needs besides its token. */
export interface RestOptions {
  /** The server's origin, e.g. `https://folio.example.com`: the API is under `/api/v1`. */
  readonly baseUrl: string;
  readonly retry: RetryOptions;
  /** The fetch to send requests with (default: the global one). */
  readonly fetch?: typeof fetch | undefined;
}

/** Paths of POST routes that take an `Idempotency-Key`, below `/api/v1`. */
const KEYED_POSTS = new Set(["/folders"]);

/**
 * An openapi-fetch client of the REST API whose requests send the bearer token, carry an
 * idempotency key where the route takes one, and are retried as RPCs are (see retries in rpc.ts):
 * a GET, or a POST with an `Idempotency-Key`, answered 503, 429 or 409 `aborted`, is sent again
 * after the Retry-After delay, else after a back-off. The last answer is what the caller gets.
 */
export function createRestClient(options: RestOptions & TokenSource): FolioRestClient {
  return createClient<paths>({ baseUrl: restBase(options.baseUrl), fetch: policyFetch(options) });
}

/** The REST API's base URL on a server. */
export function restBase(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/api/v1`;
}

/**
 * A fetch that applies the client's policy (token, idempotency key, retries) to each request;
 * no retry starts after `deadline` (epoch ms). `keyedBody`: the body carries its idempotency key
 * (`requestId`), so no header is added and a retry is safe.
 */
export function policyFetch(
  options: RestOptions & TokenSource,
  call: { readonly deadline?: number | undefined; readonly keyedBody?: boolean } = {},
): (input: Request) => Promise<Response> {
  const base = restBase(options.baseUrl);
  const send = options.fetch ?? globalThis.fetch;
  return async (input: Request): Promise<Response> => {
    const request = new Request(input);
    const path = new URL(request.url).pathname.slice(new URL(base).pathname.length);
    const keyed = call.keyedBody === true;
    if (
      request.method === "POST" &&
      KEYED_POSTS.has(path) &&
      !keyed &&
      !request.headers.has("idempotency-key")
    ) {
      request.headers.set("idempotency-key", crypto.randomUUID());
    }
    const safe = request.method === "GET" || keyed || request.headers.has("idempotency-key");
    const { deadline } = call;
    let token = await currentToken(options, false);
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      const sent = request.clone();
      if (token !== undefined && token !== "") sent.headers.set("authorization", `Bearer ${token}`);
      const response = await send(sent);
      if (response.ok) return response;
      if (response.status === 401 && options.getToken !== undefined && !refreshed) {
        refreshed = true;
        const fresh = await currentToken(options, true);
        if (fresh !== undefined && fresh !== "" && fresh !== token) {
          token = fresh;
          attempt--;
          continue;
        }
      }
      if (!safe || ![409, 429, 503].includes(response.status)) return response;
      const error = await errorOf(response);
      const delay = retryDelay(error, attempt, options.retry);
      if (delay === undefined || request.signal.aborted) return response;
      if (deadline !== undefined && Date.now() + delay >= deadline) return response;
      try {
        await sleep(delay, request.signal);
      } catch {
        return response;
      }
    }
  };
}

/** The error a REST answer stands for, read from a copy of it (the caller still gets the body). */
export async function errorOf(response: Response): Promise<FolioError> {
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  return folioErrorFromRest(response.status, response.headers, body);
}

/** The `pageToken` of a `Link: <...>; rel="next"` header, or "" on the last page. */
export function nextPageToken(link: string | null): string {
  if (link === null) return "";
  for (const part of link.split(",")) {
    const match = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (match?.[1] !== undefined && /rel="?next"?/.test(match[2] ?? "")) {
      return new URL(match[1], "http://folio.invalid").searchParams.get("pageToken") ?? "";
    }
  }
  return "";
}

import type { DescMethod } from "@bufbuild/protobuf";
import { requestHeaders } from "@folio/proto";
import createClient, { type Client } from "openapi-fetch";
import { currentToken, type TokenSource } from "./auth.js";
import { type FolioError, folioErrorFromRest } from "./errors.js";
import type { paths } from "./gen/openapi.js";
import { requestIdField, retryRule } from "./method-policy.js";
import { hasRestBinding, restBinding } from "./rest-binding.js";
import { type RetryOptions, retryDelay, sleep } from "./retry.js";
import { folioServices } from "./services.js";

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

/**
 * An openapi-fetch client of the REST API whose requests send the bearer token and are retried
 * as RPCs are, by the rules of the method each request's route belongs to (see method-policy.ts):
 * a method that declares itself idempotent (or is bound to GET), or one whose request carries an
 * idempotency key, answered 503, 429 or 409 `aborted`, is sent again after the Retry-After delay,
 * else after a back-off. A request of a method that takes a key, sent without one, gets an
 * `Idempotency-Key` header when the method reads that header. The last answer is what the caller gets.
 */
export function createRestClient(options: RestOptions & TokenSource): FolioRestClient {
  return createClient<paths>({ baseUrl: restBase(options.baseUrl), fetch: policyFetch(options) });
}

/** The REST API's base URL on a server. */
export function restBase(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/api/v1`;
}

/**
 * A fetch that applies the client's policy (token, retries) to each request; no retry starts
 * after `deadline` (epoch ms). `retryable`: whether the request may be sent again, decided by
 * the caller from its method; when absent, from the method whose route the request matches.
 */
export function policyFetch(
  options: RestOptions & TokenSource,
  call: { readonly deadline?: number | undefined; readonly retryable?: boolean | undefined } = {},
): (input: Request) => Promise<Response> {
  const send = options.fetch ?? globalThis.fetch;
  return async (input: Request): Promise<Response> => {
    const request = new Request(input);
    const safe = call.retryable ?? (await routeAllowsRetry(request, options.baseUrl));
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

/**
 * Whether a request built by hand (openapi-fetch) may be retried, by the rule of the method its
 * route belongs to; may add the `Idempotency-Key` header that makes it so. A route of no known
 * method is retried only when it is a GET.
 */
async function routeAllowsRetry(request: Request, baseUrl: string): Promise<boolean> {
  const method = methodOfRoute(request, baseUrl);
  if (method === undefined) return request.method === "GET";
  switch (retryRule(method)) {
    case "always":
      return true;
    case "never":
      return false;
    case "with-request-id":
      break;
  }
  if (request.headers.has("idempotency-key") || (await bodyRequestId(request, method)) !== "") return true;
  const takesHeader = requestHeaders(method).some(
    (header) => header.name.toLowerCase() === "idempotency-key",
  );
  if (takesHeader) request.headers.set("idempotency-key", crypto.randomUUID());
  return takesHeader;
}

/** The method of Folio's whose REST route a request is on. */
function methodOfRoute(request: Request, baseUrl: string): DescMethod | undefined {
  const prefix = new URL(baseUrl).pathname.replace(/\/+$/, "");
  const path = new URL(request.url).pathname.slice(prefix.length);
  for (const service of folioServices) {
    for (const method of service.methods) {
      if (!hasRestBinding(method)) continue;
      const binding = restBinding(method);
      if (binding.verb === request.method && binding.pathPattern.test(path)) return method;
    }
  }
  return undefined;
}

/** The idempotency key a JSON request body carries, or "". */
async function bodyRequestId(request: Request, method: DescMethod): Promise<string> {
  const field = requestIdField(method);
  if (field === undefined || request.body === null) return "";
  const body: unknown = await request
    .clone()
    .json()
    .catch(() => undefined);
  if (typeof body !== "object" || body === null) return "";
  const value =
    (body as Record<string, unknown>)[field.jsonName] ?? (body as Record<string, unknown>)[field.name];
  return typeof value === "string" ? value : "";
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

// One way to call the Folio API over REST and over Connect, so that each rule is asserted with
// the same expectations on both: what a client sees is the outcome's code (a Connect code name,
// "ok" on success), the JSON of the response message, and the error's details.
import { fromJson, type JsonObject, type JsonValue, toJson } from "@bufbuild/protobuf";
import { ConnectError, createClient } from "@connectrpc/connect";
import { BadRequestSchema, codeToString, ErrorInfoSchema } from "@folio/googleapis";
import {
  CreateFolderRequestSchema,
  CreateFolderResponseSchema,
  FolderService,
  ListProjectsRequestSchema,
  ListProjectsResponseSchema,
  ProjectService,
} from "@folio/proto";
import type { TestServer } from "./harness.js";

/** The two ways external clients reach the API. */
export const VIAS = ["rest", "connect"] as const;
export type Via = (typeof VIAS)[number];

/** What a client learns from a call. */
export interface Outcome {
  /** "ok", or the error's Connect code name ("invalid_argument", ...). */
  readonly code: string;
  /** The HTTP status of a REST response; undefined over Connect. */
  readonly status: number | undefined;
  /** The response message as JSON (REST: the body as sent). */
  readonly json: JsonObject | undefined;
  readonly headers: Headers;
  /** google.rpc.ErrorInfo of an error, if it has one. */
  readonly errorInfo: { reason: string; metadata: Record<string, string> } | undefined;
  /** The fields named by the google.rpc.BadRequest detail of an error. */
  readonly fieldViolations: readonly string[];
}

/** Call options: the bearer token, and extra request headers. */
export interface CallOptions {
  readonly token: string | null;
  readonly headers?: Record<string, string>;
}

function authHeaders(options: CallOptions): Record<string, string> {
  return {
    ...(options.token === null ? {} : { authorization: `Bearer ${options.token}` }),
    ...options.headers,
  };
}

/** A REST request with the call's token and headers (and `body` as JSON), as its outcome. */
export async function restCall(
  server: TestServer,
  method: string,
  path: string,
  options: CallOptions,
  body?: JsonValue,
) {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: {
      ...authHeaders(options),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as JsonObject;
  if (response.ok) {
    return {
      code: "ok",
      status: response.status,
      json,
      headers: response.headers,
      errorInfo: undefined,
      fieldViolations: [],
    };
  }
  const error = json.error as { code: string; details: { type: string; [k: string]: JsonValue }[] };
  const info = error.details.find((d) => d.type === "google.rpc.ErrorInfo");
  const badRequest = error.details.find((d) => d.type === "google.rpc.BadRequest");
  return {
    code: error.code,
    status: response.status,
    json,
    headers: response.headers,
    errorInfo: info
      ? { reason: info.reason as string, metadata: (info.metadata ?? {}) as Record<string, string> }
      : undefined,
    fieldViolations: ((badRequest?.fieldViolations ?? []) as { field: string }[]).map((v) => v.field),
  };
}

/** An RPC made by `call` (a client of any protocol) with the call's token and headers, as its outcome. */
export async function connectCall<T>(
  call: (init: { headers: Record<string, string>; onHeader: (h: Headers) => void }) => Promise<T>,
  toJsonObject: (value: T) => JsonObject,
  options: CallOptions,
): Promise<Outcome> {
  let headers = new Headers();
  try {
    const response = await call({
      headers: authHeaders(options),
      onHeader: (h) => {
        headers = h;
      },
    });
    return {
      code: "ok",
      status: undefined,
      json: toJsonObject(response),
      headers,
      errorInfo: undefined,
      fieldViolations: [],
    };
  } catch (thrown) {
    const error = ConnectError.from(thrown);
    const info = error.findDetails(ErrorInfoSchema)[0];
    const badRequest = error.findDetails(BadRequestSchema)[0];
    return {
      code: codeToString(error.code),
      status: undefined,
      json: undefined,
      headers: error.metadata,
      errorInfo: info ? { reason: info.reason, metadata: { ...info.metadata } } : undefined,
      fieldViolations: badRequest?.fieldViolations.map((v) => v.field) ?? [],
    };
  }
}

/** CreateFolder with a request given as its JSON (REST body / Connect message). */
export function createFolder(
  server: TestServer,
  via: Via,
  request: JsonObject,
  options: CallOptions,
): Promise<Outcome> {
  if (via === "rest") return restCall(server, "POST", "/api/v1/folders", options, request);
  const client = createClient(FolderService, server.transport("connect"));
  return connectCall(
    (init) => client.createFolder(fromJson(CreateFolderRequestSchema, request), init),
    (response) => toJson(CreateFolderResponseSchema, response, { alwaysEmitImplicit: true }) as JsonObject,
    options,
  );
}

/**
 * ListProjects with the request's fields as REST query parameters. Over REST the next page's
 * token is read from the Link header, so `nextPageToken` of the outcome's `json` is set alike.
 */
export async function listProjects(
  server: TestServer,
  via: Via,
  query: Record<string, string | number>,
  options: CallOptions,
): Promise<Outcome & { nextPageToken: string; link: string | null }> {
  if (via === "rest") {
    const params = new URLSearchParams(
      Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
    );
    const outcome = await restCall(server, "GET", `/api/v1/projects?${params}`, options);
    const link = outcome.headers.get("link");
    const target = link === null ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
    const nextPageToken =
      target === undefined ? "" : (new URL(target, server.baseUrl).searchParams.get("pageToken") ?? "");
    return { ...outcome, nextPageToken, link };
  }
  const client = createClient(ProjectService, server.transport("connect"));
  const outcome = await connectCall(
    (init) => client.listProjects(fromJson(ListProjectsRequestSchema, query), init),
    (response) => toJson(ListProjectsResponseSchema, response, { alwaysEmitImplicit: true }) as JsonObject,
    options,
  );
  return { ...outcome, nextPageToken: (outcome.json?.nextPageToken as string | undefined) ?? "", link: null };
}

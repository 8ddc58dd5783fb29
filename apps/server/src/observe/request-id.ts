import { randomUUID } from "node:crypto";
import { type ContextValues, createContextKey, createContextValues } from "@connectrpc/connect";
import { connectionKey, connectionOf } from "../transport/connection-key.js";
import type { NodeRequest } from "../transport/node-handler.js";

/** Header carrying the request id, on requests (optional) and on every response. */
export const REQUEST_ID_HEADER = "x-request-id";

/** A client's request id is kept when it is a plain token; anything else is replaced. */
const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request id of the current call, for handlers and interceptors. */
export const requestIdKey = createContextKey<string>("", { description: "request id" });

/** The id to use for a request: the caller's own when acceptable (to follow a call across services), else a new UUID. */
export function requestIdFor(incoming: string | string[] | undefined): string {
  return typeof incoming === "string" && ACCEPTABLE.test(incoming) ? incoming : randomUUID();
}

/** Context values of a request's call: its id, and the connection it came on when given the request. */
export function callContextValues(requestId: string, req?: NodeRequest): ContextValues {
  const values = createContextValues().set(requestIdKey, requestId);
  return req === undefined ? values : values.set(connectionKey, connectionOf(req));
}

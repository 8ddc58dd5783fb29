import { randomUUID } from "node:crypto";
import type { NodeRequest, NodeResponse } from "./node-types.js";
import { requestIdHeader } from "./rest-headers.js";
import type { HttpTranscoderOptions } from "./transcoder-options.js";

/** Gives the id of a request, for error responses and their `X-Request-Id`. @private */
export type RequestIdReader = (req: NodeRequest, res: NodeResponse) => string;

/**
 * The `requestId` option, or by default: the `X-Request-Id` response header if the server set one
 * already (a server that assigns ids), then the request header, then a random UUID.
 *
 * @private
 */
export function createRequestIdReader(requestId: HttpTranscoderOptions["requestId"]): RequestIdReader {
  return (req, res) => {
    const given = requestId?.(req, res);
    if (given !== undefined) return given;
    const fromResponse = res.getHeader(requestIdHeader);
    if (typeof fromResponse === "string") return fromResponse;
    const fromRequest = req.headers[requestIdHeader];
    return typeof fromRequest === "string" && fromRequest !== "" ? fromRequest : randomUUID();
  };
}

import type { Message } from "@bufbuild/protobuf";
import type { CompiledRoute } from "./compile-routes.js";
import type { NodeRequest, NodeResponse } from "./node-types.js";
import { appendNextPageLink } from "./page-links.js";
import { encodedBody, type ResponseBodyWriter } from "./response-body.js";
import { setResponseHeaders } from "./rest-headers.js";
import { type BodySending, sendBody } from "./send-body.js";

/** What a unary call answered: the response message, and the headers and trailers it set. @private */
export interface UnaryResult {
  readonly output: Message;
  readonly header: Headers | undefined;
  readonly trailer: Headers | undefined;
}

/**
 * Writes the answer of a unary call: the route's success status, the call's headers and trailers
 * as headers, the next page as a `Link` (with `pageLinks`), and the body (see {@link sendBody}):
 * the fields of `partial` only, for a `fields` parameter.
 *
 * @private
 */
export function writeRestAnswer(
  req: NodeRequest,
  res: NodeResponse,
  entry: CompiledRoute,
  answer: UnaryResult,
  sending: BodySending,
  partial?: ResponseBodyWriter,
): Promise<void> {
  const { body, contentType, nextPageToken } = (partial ?? entry.writeResponse)(answer.output);
  setResponseHeaders(res, answer.header);
  setResponseHeaders(res, answer.trailer);
  if (nextPageToken !== undefined) {
    appendNextPageLink(res, req.url, nextPageToken);
  }
  res.statusCode = entry.successStatus;
  res.setHeader("content-type", contentType);
  return sendBody(req, res, encodedBody(body), sending);
}

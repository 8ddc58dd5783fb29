import type { NodeResponse } from "./node-handler.js";

/** Sends a complete response with a body of one content type. */
export function respond(res: NodeResponse, status: number, contentType: string, body: string): void {
  res.statusCode = status;
  res.setHeader("content-type", contentType);
  res.end(body);
}

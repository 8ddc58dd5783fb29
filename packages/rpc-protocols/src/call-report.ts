import type { NodeRequest, NodeResponse } from "./node-types.js";

/**
 * Where the RPC handler reports what it learns of a request, to the layer that received it: the
 * RPC called, then, once, the Connect code of the answer (`ok`, `not_found`...). The request's id
 * keys the call's context values.
 */
export interface CallReport {
  readonly requestId: string;
  called(method: string): void;
  answered(code: string): void;
}

/** A request handler that reports to `report`. */
export type CallReportingHandler = (req: NodeRequest, res: NodeResponse, report: CallReport) => void;

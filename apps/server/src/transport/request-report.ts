import type { AnswerReport } from "@folio/http-transcoder";
import type { NodeRequest, NodeResponse } from "./node-handler.js";

/** How a request reached the server: the label values of the `protocol` metric label. */
export type Protocol = "rest" | "connect" | "grpc" | "grpc-web" | "http";

/**
 * Where the layers a request passes report what they learn of it, to the layer that received it
 * (which logs, counts and traces it). Each fact has one writer: dispatch the protocol (or the
 * name of the server's own route), the layer that finds the procedure the RPC, and the one layer
 * that answers the code the client gets. Every value is bounded (no ids but the request's own, no
 * raw paths), so metrics may use them as labels. The method called and the code of the answer are
 * the transcoder's and the RPC handler's one report of an answer ({@link AnswerReport}).
 */
export interface RequestReport extends AnswerReport {
  /** The request's id, given by the layer that received it. */
  readonly requestId: string;
  /** Dispatch: the protocol the request speaks, and for the server's own routes their name. */
  routed(protocol: Protocol, route?: string): void;
}

/** A request handler below the layer that received the request: it reports to `report`. */
export type ReportingHandler = (req: NodeRequest, res: NodeResponse, report: RequestReport) => void;

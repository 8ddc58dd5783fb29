import type { NodeRequest, NodeResponse } from "./node-handler.js";

/** How a request reached the server: the label values of the `protocol` metric label. */
export type Protocol = "rest" | "connect" | "grpc" | "grpc-web" | "http";

/**
 * Where the layers a request passes report what they learn of it, to the layer that received it
 * (which logs, counts and traces it). Each fact has one writer: dispatch the protocol (or the
 * name of the server's own route), the layer that finds the procedure the RPC, and the one layer
 * that answers the code the client gets. Every value is bounded (no ids but the request's own, no
 * raw paths), so metrics may use them as labels.
 */
export interface RequestReport {
  /** The request's id, given by the layer that received it. */
  readonly requestId: string;
  /** Dispatch: the protocol the request speaks, and for the server's own routes their name. */
  routed(protocol: Protocol, route?: string): void;
  /** The layer that finds the procedure: the RPC called (`folio.v1.FolderService/CreateFolder`). */
  called(method: string): void;
  /** The layer that answers: the Connect code of its answer (`ok`, `not_found`...). */
  answered(code: string): void;
}

/** A request handler below the layer that received the request: it reports to `report`. */
export type ReportingHandler = (req: NodeRequest, res: NodeResponse, report: RequestReport) => void;

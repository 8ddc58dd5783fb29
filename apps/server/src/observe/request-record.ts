import { reportedCodeFromHttpStatus } from "@folio/rpc-protocols";
import type { Protocol, RequestReport } from "../transport/request-report.js";

/**
 * What the server observed of one request, for the access log, the metrics and the trace, which
 * only read it. The layer that receives the request creates it and hands it down as the
 * request's {@link RequestReport}; each fact is reported by the one layer that knows it.
 */
export class RequestRecord implements RequestReport {
  #protocol: Protocol = "http";
  #method: string | undefined;
  #code: string | undefined;

  constructor(readonly requestId: string) {}

  /** The protocol; `http` for the server's own routes (and until dispatch knows). */
  get protocol(): Protocol {
    return this.#protocol;
  }

  /**
   * The RPC called (`folio.v1.FolderService/CreateFolder`) or the name of the server's own route
   * (`healthz`, `readyz`, `jwks`, `dev-token`, `docs`, `web`, `cors`); undefined when it matched neither.
   */
  get method(): string | undefined {
    return this.#method;
  }

  routed(protocol: Protocol, route?: string): void {
    this.#protocol = protocol;
    this.#method = route;
  }

  called(method: string): void {
    this.#method = method;
  }

  answered(code: string): void {
    this.#code = code;
  }

  /**
   * The code to report once the response is over: the one the answering layer reported; for a
   * response cut off before its end, `canceled`; for the server's own HTTP routes, which have no
   * code, that of their status (their status is their answer); `unknown` if no layer said (a defect).
   */
  outcome(status: number, finished: boolean): string {
    if (this.#code !== undefined) return this.#code;
    if (!finished) return "canceled";
    return this.#protocol === "http" ? reportedCodeFromHttpStatus(status) : "unknown";
  }
}

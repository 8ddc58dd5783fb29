/** What one measured run of a load generator against one contestant gave. */
export interface Sample {
  /** Responses received during the run. */
  readonly requests: number;
  /** Length of the run, as the load generator measured it. */
  readonly seconds: number;
  /** Responses that were not a success: HTTP status outside 2xx (gRPC: a status other than OK). */
  readonly failures: number;
  /** Connection errors and timeouts (no response at all). */
  readonly errors: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Bytes received over the run, headers included (wrk's count); undefined where not counted. */
  readonly bytes?: number;
}

/** Requests per second of a sample. */
export const throughput = (sample: Sample): number => sample.requests / sample.seconds;

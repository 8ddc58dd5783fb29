import type { DescMethod } from "@bufbuild/protobuf";
import { useConnection } from "./connection-context.js";
import { describeError, type ErrorReport } from "./errors.js";

/** A failed call of `method` told in plain words, with what the tab knows of its connection; undefined without an error. */
export function useErrorReport(error: unknown, method: DescMethod): ErrorReport | undefined {
  const { baseUrl, token } = useConnection();
  if (error === null || error === undefined) return undefined;
  return describeError(error, {
    method,
    apiUrl: baseUrl,
    pageOrigin: window.location.origin,
    tokenExpiresAt: token?.expiresAt,
  });
}

import { createHash } from "node:crypto";
import { Code } from "@connectrpc/connect";
import type { IdempotencyScope, Queries, RememberedRequest } from "@folio/db";
import { errorWithReason } from "./error-details.js";

/** How long a key is remembered after its first use. */
export const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 60 * 60;

/** A stable digest of a request, to tell a retry from a different request under the same key. */
export function fingerprint(request: unknown): string {
  return createHash("sha256").update(JSON.stringify(request)).digest("hex");
}

/** Told what became of requests with a key, for metrics. */
export interface IdempotencyEvents {
  /** The remembered response was sent again. */
  replayed(): void;
  /** The request was refused: its key was used with another request, or that request still runs. */
  conflicted(reason: "key_reused" | "in_progress"): void;
}

/** How a response is stored with its key and read back for a replay. */
export interface ResponseCodec<R> {
  encode(response: R): Uint8Array;
  decode(bytes: Uint8Array): R;
}

/**
 * Runs `work` at most once per key (draft-ietf-httpapi-idempotency-key-header, AIP-155), in the
 * transaction of `tx`: the same request again gets the remembered response; another request
 * with the key is refused; a request while the first one runs is told to retry (and only then: a
 * replay of a completed request is answered without its lock). Only a success
 * is remembered: when `work` throws, the transaction rolls back and the key stays free.
 */
export async function runOnce<R>(
  tx: Queries,
  scope: IdempotencyScope,
  requestHash: string,
  codec: ResponseCodec<R>,
  work: () => Promise<R>,
  events?: IdempotencyEvents,
): Promise<R> {
  // A replay of a completed request is a read: it never takes, waits for or reports the lock,
  // which another replay of the same key may hold only for as long as its own look.
  const remembered = await tx.idempotencyKeys.find(scope);
  if (remembered !== undefined) return replay(remembered, requestHash, codec, events);
  // The lock is the running request's: it ends with that request's transaction or connection,
  // so a retry after one second is the truth, even when the first request's server died.
  if (!(await tx.idempotencyKeys.lock(scope))) {
    // The holder may have committed since the look above (a first attempt finishing, or a
    // replay that found nothing yet): only a key with no remembered response is still running.
    const committed = await tx.idempotencyKeys.find(scope);
    if (committed !== undefined) return replay(committed, requestHash, codec, events);
    events?.conflicted("in_progress");
    const error = errorWithReason(
      Code.Aborted,
      "a request with this idempotency key is still running; retry it shortly",
      "REQUEST_IN_PROGRESS",
    );
    error.metadata.set("retry-after", "1");
    throw error;
  }
  // Looked at again under the lock: the first attempt may have committed before it was taken.
  const previous = await tx.idempotencyKeys.find(scope);
  if (previous !== undefined) return replay(previous, requestHash, codec, events);
  const response = await work();
  await tx.idempotencyKeys.remember(
    scope,
    { requestHash, response: codec.encode(response) },
    IDEMPOTENCY_KEY_TTL_SECONDS,
  );
  return response;
}

/** The remembered response for the same request again; a different request is refused. */
function replay<R>(
  previous: RememberedRequest,
  requestHash: string,
  codec: ResponseCodec<R>,
  events: IdempotencyEvents | undefined,
): R {
  if (previous.requestHash !== requestHash) {
    events?.conflicted("key_reused");
    throw errorWithReason(
      Code.AlreadyExists,
      "this idempotency key was used with a different request",
      "IDEMPOTENCY_KEY_REUSED",
    );
  }
  events?.replayed();
  return codec.decode(previous.response);
}

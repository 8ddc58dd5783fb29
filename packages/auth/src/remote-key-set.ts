import { createLocalJWKSet, createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from "jose";
import { createBackgroundTimer } from "./background-timer.js";
import { identify, identitiesOf } from "./key-identity.js";
import { KeySetLoadError, trackLoading } from "./key-set-loading.js";
import type { KeySetOptions, TrackedKeySet } from "./tracked-key-set.js";

/** Default max age of a fetched remote JWKS: jose's default, stated here because it bounds revocation. */
export const DEFAULT_JWKS_MAX_AGE_MS = 600_000;

/**
 * The key set of a JWKS URL, tracked across jose's refetches. Its first fetch is awaited, so that
 * a server knows at start whether it can verify tokens. While the URL fails and no usable set is
 * held, calls are refused at once (not each sent on to the issuer) and the fetch is retried in the
 * background every few seconds: an instance that is not ready gets no requests to retry for it.
 */
export async function openRemoteKeySet(url: URL, options: KeySetOptions): Promise<TrackedKeySet> {
  const cooldownMs = options.cooldownMs ?? 30_000;
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_JWKS_MAX_AGE_MS;
  // Refetch this long before the set goes stale, so that requests served from the cache never
  // find it stale (and so never wait for the fetch).
  const refreshAheadMs = Math.min(60_000, maxAgeMs / 10);
  /** Between two attempts, at most once per cooldown (and per second, whatever the cooldown). */
  const paceMs = Math.max(cooldownMs, 1_000);
  /** Between two attempts while no usable set is held: sooner than a long cooldown. */
  const retryMs = Math.min(paceMs, 5_000);
  /** Successful (200) responses so far: the set jose holds may have changed since the last count. */
  let fetches = 0;
  /** Whether the fetch in flight, if any, has answered: jose may not have applied its set yet. */
  let answered = false;
  /** When the last successful fetch answered: the set jose holds goes stale a max age later. */
  let answeredAt = Number.NEGATIVE_INFINITY;
  /** When the next background refetch is due; Infinity until the first fetch succeeds. */
  let refreshAt = Number.POSITIVE_INFINITY;
  let indexed: { fetches: number; duringFetch: boolean; identities: ReadonlySet<string> } | undefined;
  let indexing: Promise<ReadonlySet<string>> | undefined;
  const retries = createBackgroundTimer(options.signal);

  // jose refetches on its own (first use, an unknown kid, a stale set) without telling anyone;
  // wrapping its fetch is how we learn that the set may have changed, or could not be fetched.
  const keySet = createRemoteJWKSet(url, {
    cooldownDuration: cooldownMs,
    cacheMaxAge: maxAgeMs,
    [customFetch]: async (resource, init) => {
      answered = false;
      let response: Response;
      try {
        response = await fetchUsableJwks(resource, init);
      } catch (error) {
        loading.failed(error as KeySetLoadError);
        throw error;
      }
      fetches += 1;
      answered = true;
      answeredAt = Date.now();
      refreshAt = answeredAt + maxAgeMs - refreshAheadMs;
      loading.succeeded();
      return response;
    },
  });

  /** Whether tokens can be verified now: a set is held, and it is fresh or the issuer answers. */
  const usable = () => keySet.jwks() !== undefined && (!loading.failing || keySet.fresh);
  const loading = trackLoading(options.onEvent, usable);

  const refresh = async () => {
    refreshAt = Date.now() + paceMs;
    // A failure was reported by the fetch; the set held, if any, stays until it goes stale.
    await keySet.reload().catch(() => {});
    settle();
  };
  /** After an attempt or a verification: reports usability, and retries while the issuer fails. */
  const settle = () => {
    loading.evaluate();
    if (!loading.failing) return;
    // With a usable set in hand there is no hurry: retry at the cooldown's pace, and when the set
    // goes stale, so that its expiry is noticed without a request.
    const staleInMs = Math.max(0, answeredAt + maxAgeMs - Date.now());
    retries.schedule(usable() ? Math.min(paceMs, staleInMs + 100) : retryMs, () => void refresh());
  };

  const getKey: JWTVerifyGetKey = async (header, token) => {
    if (loading.failing && !usable()) {
      throw new KeySetLoadError("no usable JWKS: its fetch failed and is retried in the background", {
        cause: loading.lastError,
      });
    }
    try {
      return await keySet(header, token);
    } finally {
      settle();
    }
  };

  const index = async (): Promise<ReadonlySet<string>> => {
    const at = fetches;
    // jose applies a response only after parsing it: between the answer and the end of the
    // reload the set read now may be the one before it, so it is indexed again afterwards. (jose
    // runs one fetch at a time: a reload still waiting for its answer has applied the ones before.)
    const duringFetch = keySet.reloading && answered;
    const identities = await identitiesOf(keySet.jwks() ?? { keys: [] });
    indexed = { fetches: at, duringFetch, identities };
    return identities;
  };

  await refresh();
  return {
    getKey,
    current: async () => {
      // Past its max age jose would refetch before verifying anything; the cache must not serve
      // from a set that jose itself no longer trusts. This bounds how long a removed key's tokens
      // are still accepted to the max age, cached or not.
      if (!keySet.fresh) return undefined;
      if (indexed !== undefined && indexed.fetches === fetches && !indexed.duringFetch) {
        return indexed.identities;
      }
      indexing ??= index().finally(() => {
        indexing = undefined;
      });
      return indexing;
    },
    identify,
    maintain: () => {
      if (Date.now() < refreshAt || keySet.reloading) return;
      // At most one attempt per pace: an issuer that is down is not asked on every request. A
      // failed refetch keeps the current set until it goes stale; then calls are refused as
      // unavailable until a retry succeeds.
      void refresh();
    },
    retryAfterMs: retryMs,
  };
}

/**
 * Fetches the JWKS as jose would, and fails with a {@link KeySetLoadError} for anything jose could
 * not use: no answer, an answer other than 200 (jose would report that as a jose error, which
 * verification would take for a bad token), a body that is not a JWKS.
 */
async function fetchUsableJwks(resource: string, init: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(resource, init);
  } catch (error) {
    throw new KeySetLoadError(`fetching the JWKS failed: ${describe(error)}`, { cause: error });
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {});
    throw new KeySetLoadError(`fetching the JWKS failed: HTTP ${response.status}`);
  }
  let body: string;
  try {
    body = await response.text();
  } catch (error) {
    throw new KeySetLoadError(`fetching the JWKS failed: ${describe(error)}`, { cause: error });
  }
  try {
    createLocalJWKSet(JSON.parse(body));
  } catch (error) {
    throw new KeySetLoadError(`fetching the JWKS failed: not a JWKS (${describe(error)})`, { cause: error });
  }
  return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
}

/** An error's message with its cause's: fetch says only "fetch failed", its cause says why. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
}

import { randomUUID } from "node:crypto";
import type { Cluster, HaCluster } from "../src/index.ts";
import { ensureHaPrograms, ensurePrograms } from "../src/index.ts";

/**
 * Why the cluster tests cannot run here, or undefined when they can. They need a PostgreSQL server
 * (DATABASE_URL, as the suite's other real-database tests) and HAProxy, PgBouncer and Redis, which
 * are installed from Debian's packages when missing (as root). `.ci/run` sets FOLIO_REQUIRE_TOOLS=1:
 * there programs that are missing and cannot be installed throw (the test file fails) instead.
 */
export function clusterUnavailable(): string | undefined {
  if (!process.env.DATABASE_URL) {
    return "needs a PostgreSQL server: set DATABASE_URL (CI runs these tests in its PostgreSQL pass)";
  }
  return unavailableUnless(() => ensurePrograms({ install: true }));
}

/** Why `ensure` failed, or undefined when it did not; with FOLIO_REQUIRE_TOOLS=1, it throws instead. */
function unavailableUnless(ensure: () => unknown): string | undefined {
  try {
    ensure();
    return undefined;
  } catch (error) {
    if (process.env.FOLIO_REQUIRE_TOOLS === "1") {
      throw new Error(
        `${(error as Error).message}: this run requires them (FOLIO_REQUIRE_TOOLS=1, as in CI)`,
      );
    }
    return (error as Error).message;
  }
}

/** One HTTP response through HAProxy, with the instance that answered it. */
export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed body of a JSON response, else the text (HAProxy's own error pages are HTML). */
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of several shapes, read by the tests.
  readonly json: any;
  /** `folio1`, `folio2`, ...: HAProxy's X-Folio-Instance header. */
  readonly instance: string | null;
}

/** Sends one REST request through the cluster's HAProxy. */
export async function rest(
  cluster: Pick<Cluster | HaCluster, "url">,
  method: "GET" | "POST",
  path: string,
  token: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const response = await fetch(new URL(path, cluster.url), {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: response.headers.get("content-type")?.startsWith("application/json") ? JSON.parse(text) : text,
    instance: response.headers.get("x-folio-instance"),
  };
}

/** A token of a new organisation and user, every scope of the API, valid for the test's length. */
export function newToken(
  cluster: Pick<Cluster | HaCluster, "issuer">,
  claims: Record<string, unknown> = {},
): Promise<string> {
  return cluster.issuer.sign({ org_id: randomUUID(), sub: randomUUID(), ...claims }, {}, "30m");
}

/** The claims of a JWT (not verified: the test signed it). */
export function claimsOf(token: string): { org_id: string; sub: string } {
  return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8"));
}

/**
 * Why the highly available cluster's tests cannot run here, or undefined when they can: as
 * {@link clusterUnavailable} (run once, in the suite's PostgreSQL pass), plus Patroni, etcd and
 * PostgreSQL's binaries, installed from Debian when missing (as root).
 */
export function haClusterUnavailable(): string | undefined {
  return clusterUnavailable() ?? unavailableUnless(() => ensureHaPrograms({ install: true }));
}

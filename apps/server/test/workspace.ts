import { randomUUID } from "node:crypto";
import type { TestServer } from "./harness.js";

/**
 * A caller of an organisation of its own, so that a test starts from an empty workspace, with
 * every scope of the API (the test issuer's) unless `scope` names fewer.
 */
export async function newCaller(
  server: TestServer,
  scope?: string,
): Promise<{ orgId: string; userId: string; token: string }> {
  const orgId = randomUUID();
  const userId = randomUUID();
  const token = await server.issuer.sign({
    sub: userId,
    org_id: orgId,
    ...(scope === undefined ? {} : { scope }),
  });
  return { orgId, userId, token };
}

/** How many folders the organisation has, read straight from the database. */
export async function folderCount(server: TestServer, orgId: string): Promise<number> {
  const rows = await server.sql<{ n: string }>("select count(*) as n from folders where org_id = $1", [
    orgId,
  ]);
  return Number(rows[0]?.n);
}

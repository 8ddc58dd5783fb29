import { createTestDatabase, type TestDatabase } from "@folio/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkSessionTimeouts, sessionTimeouts } from "../src/index.js";

let database: TestDatabase | undefined;
beforeAll(async () => {
  if (process.env.DATABASE_URL) database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

// The embedded database's socket server ignores startup parameters altogether: PostgreSQL only.
describe.skipIf(!process.env.DATABASE_URL)("checkSessionTimeouts", () => {
  it("finds every asked-for timeout applied on a direct connection", async () => {
    const timeouts = sessionTimeouts({ statementTimeoutMs: 4321, lockTimeoutMs: 1234 });
    expect(timeouts).toEqual({
      statementTimeoutMs: 4321,
      lockTimeoutMs: 1234,
      idleInTransactionSessionTimeoutMs: 10_000,
    });
    expect(await checkSessionTimeouts((database as TestDatabase).url, timeouts)).toEqual([]);
  });
});

// ListFolders' page statement as PostgreSQL plans it: read in index order from the
// (org_id, parent_id, name, id) index, with no sort, for the top level and for a parent, on the
// first page and on a deep one, so that a deep page costs what the first does. The statements are
// the ones folders.ts runs, each EXPLAINed with its values bound. Real PostgreSQL only: the
// embedded PGlite's planner is PostgreSQL's too, but a plan is worth checking where it is served.
import { randomUUID } from "node:crypto";
import { createTestDatabase, type TestDatabase } from "@folio/test-support";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { folderQueries } from "../src/folders.js";
import { applyMigrations, createDb, type Db } from "../src/index.js";
import type { SqlRunner } from "../src/sql-runner.js";

/** A node of a JSON plan (EXPLAIN (FORMAT JSON)). */
interface PlanNode {
  readonly "Node Type": string;
  readonly "Index Name"?: string;
  readonly Plans?: readonly PlanNode[];
}

const INDEX = "folders_org_id_parent_id_name_id_idx";

/** Every node of a plan, depth first. */
function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

describe.runIf(process.env.DATABASE_URL)("a page of folders on PostgreSQL", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let db: Db;
  const orgId = randomUUID();
  const parentId = randomUUID();
  // Enough that a page, the default size's included, is a small part of a listing: with a listing
  // little longer than the page, the planner rightly prefers reading all of it and sorting that.
  const CHILDREN = 10_000;

  beforeAll(async () => {
    database = await createTestDatabase();
    await applyMigrations(database.url, { log: () => {} });
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    // The org's parent with its children and as many top-level folders, among other orgs' folders.
    await pool.query(
      `INSERT INTO folders (id, org_id, name, name_key, created_by_user_id)
         VALUES ($1, $2, 'Parent', 'parent', gen_random_uuid())`,
      [parentId, orgId],
    );
    await pool.query(
      `INSERT INTO folders (org_id, parent_id, name, name_key, created_by_user_id)
         SELECT $1, $2, 'Child ' || n, 'child ' || n, gen_random_uuid() FROM generate_series(1, $3::int) n`,
      [orgId, parentId, CHILDREN],
    );
    await pool.query(
      `INSERT INTO folders (org_id, name, name_key, created_by_user_id)
         SELECT org, 'Top ' || n, 'top ' || n, gen_random_uuid()
         FROM unnest(ARRAY[$1::uuid, gen_random_uuid(), gen_random_uuid(), gen_random_uuid()]) org,
           generate_series(1, $2::int) n`,
      [orgId, CHILDREN],
    );
    await pool.query("ANALYZE folders");
    db = createDb(database.url, { poolSize: 2 });
  });

  afterAll(async () => {
    await db?.close();
    await pool?.end();
    await database?.drop();
  });

  /** The plan of the first statement `page` runs for `query`. */
  async function planOf(query: Parameters<Db["folders"]["page"]>[0]): Promise<PlanNode> {
    const plans: PlanNode[] = [];
    const explaining: SqlRunner = {
      async rows(_operation, statement) {
        const { rows } = await pool.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
          `EXPLAIN (FORMAT JSON) ${statement.text}`,
          statement.values as unknown[],
        );
        plans.push((rows[0] as { "QUERY PLAN": [{ Plan: PlanNode }] })["QUERY PLAN"][0].Plan);
        return [];
      },
      count: () => Promise.reject(new Error("a page writes nothing")),
    };
    await folderQueries(explaining).page(query);
    return plans[0] as PlanNode;
  }

  /** The `(name, id)` of the folder at `offset` in the listing of `parent`. */
  async function keyAt(parent: string | null, offset: number) {
    const result = await db.folders.page({ orgId, parentId: parent, limit: offset + 1 });
    if (result.kind !== "page") throw new Error("no page");
    const folder = result.folders[offset];
    if (folder === undefined) throw new Error(`no folder at ${offset}`);
    return { name: folder.name, id: folder.id };
  }

  it.each([
    ["the top level", null],
    ["a parent", parentId],
  ] as const)(
    "reads %s in index order with no sort, on the first page and a deep one",
    async (_case, parent) => {
      const pages = [
        { orgId, parentId: parent, limit: 101 },
        { orgId, parentId: parent, limit: 1001 },
        { orgId, parentId: parent, after: await keyAt(parent, 5000), limit: 101 },
      ];
      for (const page of pages) {
        const nodes = nodesOf(await planOf(page));
        const types = nodes.map((node) => node["Node Type"]);
        expect(types, JSON.stringify(page)).not.toContain("Sort");
        expect(types, JSON.stringify(page)).not.toContain("Incremental Sort");
        expect(
          nodes.some((node) => node["Node Type"].startsWith("Index") && node["Index Name"] === INDEX),
          `${JSON.stringify(page)}: ${types.join(" > ")}`,
        ).toBe(true);
      }
    },
  );

  it("lists in (name, id) order, after the key, and tells a parent of another org from an empty one", async () => {
    const after = await keyAt(parentId, 9);
    const page = await db.folders.page({ orgId, parentId, after, limit: 5 });
    const ordered = await pool.query<{ id: string }>(
      `SELECT id FROM folders WHERE org_id = $1 AND parent_id = $2 AND (name, id) > ($3, $4::uuid)
         ORDER BY name, id LIMIT 5`,
      [orgId, parentId, after.name, after.id],
    );
    expect(page.kind === "page" && page.folders.map((folder) => folder.id)).toEqual(
      ordered.rows.map((row) => row.id),
    );
    expect(await db.folders.page({ orgId: randomUUID(), parentId, limit: 5 })).toEqual({
      kind: "parent-not-found",
    });
    const last = await keyAt(parentId, CHILDREN - 1);
    expect(await db.folders.page({ orgId, parentId, after: last, limit: 5 })).toEqual({
      kind: "page",
      folders: [],
    });
    expect(await db.folders.get(randomUUID(), parentId)).toBeUndefined();
    expect(await db.folders.get(orgId, parentId)).toMatchObject({ id: parentId, orgId, name: "Parent" });
  });
});

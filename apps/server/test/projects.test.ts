import { randomBytes, randomUUID } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listProjects, VIAS } from "./api.js";
import { startTestServer, type TestServer } from "./harness.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** An org with `count` projects named "P00001"..., loaded straight into the table as other systems do. */
async function orgWithProjects(count: number, extra = "") {
  const orgId = randomUUID();
  await server.sql(
    `insert into projects (org_id, name, city, country, postal_code)
       select $1, 'P' || lpad(n::text, 5, '0') || $3, 'City ' || (n % 3), 'Country ' || (n % 2), lpad((n % 5)::text, 4, '0')
       from generate_series(1, $2::int) as n`,
    [orgId, count, extra],
  );
  const token = await server.issuer.sign({ org_id: orgId, scope: "project:read" });
  return { orgId, token };
}

const namesOf = (json: JsonObject | undefined) =>
  ((json?.projects ?? []) as { name: string }[]).map((p) => p.name);
const idsOf = (json: JsonObject | undefined) => ((json?.projects ?? []) as { id: string }[]).map((p) => p.id);

describe.each(VIAS)("ListProjects paging over %s", (via) => {
  it("walks 2,500 projects in pages of 100 with no gap or repeat while rows are inserted", async () => {
    const { orgId, token } = await orgWithProjects(2500);
    const before = new Set(
      (await server.sql<{ id: string }>("select id from projects where org_id = $1", [orgId])).map(
        (r) => r.id,
      ),
    );
    const seen: string[] = [];
    let pageToken = "";
    let pages = 0;
    let inserted = 0;
    do {
      const page = await listProjects(
        server,
        via,
        { pageSize: 100, ...(pageToken ? { pageToken } : {}) },
        { token },
      );
      expect(page.code).toBe("ok");
      seen.push(...idsOf(page.json));
      pageToken = page.nextPageToken;
      pages++;
      // Between pages, other systems add projects before, among and after the ones listed.
      await server.sql(
        `insert into projects (org_id, name) values ($1, 'A' || $2), ($1, 'P0' || $2), ($1, 'Z' || $2)`,
        [orgId, String(pages)],
      );
      inserted += 3;
    } while (pageToken !== "" && pages < 100);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of before) expect(seen).toContain(id);
    // The order is by name, then id, as the database orders them.
    const ordered = await server.sql<{ id: string }>(
      "select id from projects where id = any($1) order by name, id",
      [seen],
    );
    expect(seen).toEqual(ordered.map((r) => r.id));
    expect(pages).toBeGreaterThanOrEqual(25);
    expect(inserted).toBeGreaterThan(0);
  });

  it("serves 1000 projects by default and at most 1000; a negative size is 400", async () => {
    const { token } = await orgWithProjects(1001);
    const first = await listProjects(server, via, {}, { token });
    expect(idsOf(first.json)).toHaveLength(1000);
    expect(first.nextPageToken).not.toBe("");
    const big = await listProjects(server, via, { pageSize: 5000 }, { token });
    expect(idsOf(big.json)).toHaveLength(1000);
    const last = await listProjects(server, via, { pageToken: first.nextPageToken }, { token });
    expect(namesOf(last.json)).toEqual(["P01001"]);
    expect(last.nextPageToken).toBe("");
    const negative = await listProjects(server, via, { pageSize: -1 }, { token });
    expect(negative.code).toBe("invalid_argument");
    expect(negative.fieldViolations).toEqual(["pageSize"]);
  });

  it("orders by name, then id, for projects of the same name", async () => {
    const orgId = randomUUID();
    const ids = [randomUUID(), randomUUID(), randomUUID()].sort();
    await server.sql(
      "insert into projects (id, org_id, name) values ($1, $4, 'Same'), ($3, $4, 'Same'), ($2, $4, 'Same'), ($5, $4, 'Other')",
      [ids[0], ids[1], ids[2], orgId, randomUUID()],
    );
    const token = await server.issuer.sign({ org_id: orgId });
    const walked: string[] = [];
    let pageToken = "";
    do {
      const page = await listProjects(
        server,
        via,
        { pageSize: 1, ...(pageToken ? { pageToken } : {}) },
        { token },
      );
      walked.push(...idsOf(page.json));
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    expect(walked.slice(1)).toEqual(ids);
  });

  it("refuses a page token that is altered, made up, or from another org or filter", async () => {
    const mine = await orgWithProjects(9);
    const theirs = await orgWithProjects(3);
    const page = await listProjects(server, via, { pageSize: 1, city: "City 1" }, { token: mine.token });
    const token = page.nextPageToken;
    expect(token).not.toBe("");
    const flipped = token.slice(0, -2) + (token.at(-2) === "A" ? "B" : "A") + token.at(-1);
    const attempts: [string, Record<string, string>, string][] = [
      ["altered", { city: "City 1", pageToken: flipped }, mine.token],
      ["made up", { city: "City 1", pageToken: `2.${randomBytes(60).toString("base64url")}` }, mine.token],
      [
        "of the earlier format",
        { city: "City 1", pageToken: "1.WyJQMDAwMDEiLCJ4Il0.c2lnbmF0dXJl" },
        mine.token,
      ],
      ["another org's", { city: "City 1", pageToken: token }, theirs.token],
      ["another filter's", { city: "City 2", pageToken: token }, mine.token],
      ["no filter's", { pageToken: token }, mine.token],
    ];
    for (const [what, query, bearer] of attempts) {
      const outcome = await listProjects(server, via, query, { token: bearer });
      expect(outcome.code, what).toBe("invalid_argument");
      if (via === "rest") expect(outcome.status, what).toBe(400);
      expect(outcome.fieldViolations, what).toEqual(["pageToken"]);
    }
    // The page size may change between pages.
    const next = await listProjects(
      server,
      via,
      { city: "City 1", pageSize: 50, pageToken: token },
      { token: mine.token },
    );
    expect(next.code).toBe("ok");
  });

  it("filters by city, country, postal code and name prefix, and pages within the filter", async () => {
    const { token } = await orgWithProjects(30);
    const city = await listProjects(server, via, { city: "City 0" }, { token });
    expect(namesOf(city.json)).toEqual([
      "P00003",
      "P00006",
      "P00009",
      "P00012",
      "P00015",
      "P00018",
      "P00021",
      "P00024",
      "P00027",
      "P00030",
    ]);
    const both = await listProjects(
      server,
      via,
      { city: "City 0", country: "Country 1", postalCode: "0003" },
      { token },
    );
    expect(namesOf(both.json)).toEqual(["P00003"]);
    const prefix = await listProjects(server, via, { namePrefix: "P0002" }, { token });
    expect(namesOf(prefix.json)).toEqual([
      "P00020",
      "P00021",
      "P00022",
      "P00023",
      "P00024",
      "P00025",
      "P00026",
      "P00027",
      "P00028",
      "P00029",
    ]);
    const paged = await listProjects(server, via, { namePrefix: "P0002", pageSize: 4 }, { token });
    const rest = await listProjects(
      server,
      via,
      { namePrefix: "P0002", pageSize: 10, pageToken: paged.nextPageToken },
      { token },
    );
    expect([...namesOf(paged.json), ...namesOf(rest.json)]).toEqual(namesOf(prefix.json));
  });

  it("takes a name prefix literally: % and _ are no wildcards", async () => {
    const orgId = randomUUID();
    await server.sql(
      "insert into projects (org_id, name) values ($1, '50% off'), ($1, '500 rooms'), ($1, 'a_b'), ($1, 'axb')",
      [orgId],
    );
    const token = await server.issuer.sign({ org_id: orgId });
    expect(namesOf((await listProjects(server, via, { namePrefix: "50%" }, { token })).json)).toEqual([
      "50% off",
    ]);
    expect(namesOf((await listProjects(server, via, { namePrefix: "a_" }, { token })).json)).toEqual(["a_b"]);
  });
});

describe("ListProjects over REST", () => {
  it("keeps the body's single key projects and links the next page with Link rel=next", async () => {
    const { token } = await orgWithProjects(3);
    const response = await fetch(`${server.baseUrl}/api/v1/projects?pageSize=2&city=City%200`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(Object.keys((await response.json()) as JsonObject)).toEqual(["projects"]);
    expect(response.headers.get("link")).toBeNull();
    const first = await fetch(`${server.baseUrl}/api/v1/projects?pageSize=2`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await first.json()) as JsonObject;
    expect(Object.keys(body)).toEqual(["projects"]);
    const link = first.headers.get("link") ?? "";
    expect(link).toMatch(/^<\/api\/v1\/projects\?pageSize=2&pageToken=[^>]+>; rel="next"$/);
    const next = await fetch(new URL(/<([^>]+)>/.exec(link)?.[1] ?? "", server.baseUrl), {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(namesOf((await next.json()) as JsonObject)).toEqual(["P00003"]);
    expect(next.headers.get("link")).toBeNull();
  });

  it("puts no project's name or id in the Link header, even base64url-decoded", async () => {
    const orgId = randomUUID();
    const id = randomUUID();
    await server.sql(
      "insert into projects (id, org_id, name) values ($2, $1, 'Harbour Office Refit'), ($3, $1, 'Zeppelin Hangar')",
      [orgId, id, randomUUID()],
    );
    const token = await server.issuer.sign({ org_id: orgId, scope: "project:read" });
    const page = await listProjects(server, "rest", { pageSize: 1 }, { token });
    expect(namesOf(page.json)).toEqual(["Harbour Office Refit"]);
    const link = page.link ?? "";
    const parts = page.nextPageToken.split(".");
    const shown = [link, ...parts.map((part) => Buffer.from(part, "base64url").toString("latin1"))];
    for (const text of shown) {
      for (const secret of ["Harbour", id, id.replaceAll("-", "")]) {
        expect(text).not.toContain(secret);
      }
    }
  });
});

describe("page tokens with PAGE_TOKEN_SECRET", () => {
  it("are read while the secret rotates: A's by B,A but not by B; B,A's by B,A and by B", async () => {
    const secretA = "secret-a-shared-by-every-instance-0123456789";
    const secretB = "secret-b-shared-by-every-instance-0123456789";
    const [a, ba, b] = await Promise.all([
      startTestServer({ PAGE_TOKEN_SECRET: secretA }),
      startTestServer({ PAGE_TOKEN_SECRET: `${secretB},${secretA}` }),
      startTestServer({ PAGE_TOKEN_SECRET: secretB }),
    ]);
    try {
      const orgId = randomUUID();
      // The same rows on each instance's database, as if they shared one.
      const ids = [randomUUID(), randomUUID()];
      for (const instance of [a, ba, b]) {
        await instance.sql(
          "insert into projects (id, org_id, name) values ($2, $1, 'One'), ($3, $1, 'Two')",
          [orgId, ...ids],
        );
      }
      const tokenOn = (instance: TestServer) => instance.issuer.sign({ org_id: orgId });
      /** The page `pageToken` points to, asked of `instance`. */
      const nextOn = async (instance: TestServer, pageToken: string) =>
        listProjects(instance, "rest", { pageToken }, { token: await tokenOn(instance) });

      const ofA = await listProjects(a, "rest", { pageSize: 1 }, { token: await tokenOn(a) });
      expect(namesOf(ofA.json)).toEqual(["One"]);
      expect(namesOf((await nextOn(ba, ofA.nextPageToken)).json)).toEqual(["Two"]);
      expect((await nextOn(b, ofA.nextPageToken)).code).toBe("invalid_argument");

      const ofBA = await listProjects(ba, "rest", { pageSize: 1 }, { token: await tokenOn(ba) });
      expect(namesOf((await nextOn(ba, ofBA.nextPageToken)).json)).toEqual(["Two"]);
      expect(namesOf((await nextOn(b, ofBA.nextPageToken)).json)).toEqual(["Two"]);
    } finally {
      await Promise.all([a.close(), ba.close(), b.close()]);
    }
  });
});

import { randomUUID } from "node:crypto";
import { createTestDatabase, type TestDatabase } from "@folio/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, createDb, type Db } from "../src/index.js";

let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  await applyMigrations(database.url, { log: () => {} });
  db = createDb(database.url);
});

afterAll(async () => {
  await db?.close();
  await database?.drop();
});

describe("createDb", () => {
  it("creates a folder with the database's defaults", async () => {
    const orgId = randomUUID();
    const userId = randomUUID();
    const folder = await db.prisma.folder.create({
      data: { orgId, name: "Plans", nameKey: "plans", createdByUserId: userId },
    });

    expect(folder).toMatchObject({
      orgId,
      name: "Plans",
      parentId: null,
      color: null,
      visibility: "private",
    });
    expect(folder.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(folder.createdAt).toBeInstanceOf(Date);

    const child = await db.prisma.folder.create({
      data: {
        orgId,
        name: "Ground floor",
        nameKey: "ground floor",
        parentId: folder.id,
        createdByUserId: userId,
      },
    });
    const children = await db.prisma.folder.findMany({ where: { orgId, parentId: folder.id } });
    expect(children.map((found) => found.id)).toEqual([child.id]);
  });

  it("finds projects ordered by name, then id", async () => {
    const orgId = randomUUID();
    const ids = [randomUUID(), randomUUID()].sort();
    await db.prisma.project.createMany({
      data: [
        { orgId, name: "Harbour" },
        { id: ids[1], orgId, name: "Bridge", city: "Basel" },
        { id: ids[0], orgId, name: "Bridge" },
        { orgId: randomUUID(), name: "Another org's" },
      ],
    });

    const projects = await db.prisma.project.findMany({
      where: { orgId },
      orderBy: [{ name: "asc" }, { id: "asc" }],
    });
    expect(projects.map((project) => [project.name, project.id])).toEqual([
      ["Bridge", ids[0]],
      ["Bridge", ids[1]],
      ["Harbour", expect.any(String)],
    ]);
    expect(projects[0]).toMatchObject({
      street: null,
      houseNumber: null,
      postalCode: null,
      city: null,
      country: null,
    });
  });

  it("rejects a parent folder of another org (composite foreign key)", async () => {
    const userId = randomUUID();
    const parent = await db.prisma.folder.create({
      data: { orgId: randomUUID(), name: "Theirs", nameKey: "theirs", createdByUserId: userId },
    });

    await expect(
      db.prisma.folder.create({
        data: {
          orgId: randomUUID(),
          name: "Mine",
          nameKey: "mine",
          parentId: parent.id,
          createdByUserId: userId,
        },
      }),
    ).rejects.toThrow(/foreign key/i);
  });

  it("refuses to delete a folder that still has children", async () => {
    const orgId = randomUUID();
    const userId = randomUUID();
    const parent = await db.prisma.folder.create({
      data: { orgId, name: "Parent", nameKey: "parent", createdByUserId: userId },
    });
    await db.prisma.folder.create({
      data: { orgId, name: "Child", nameKey: "child", parentId: parent.id, createdByUserId: userId },
    });

    await expect(db.prisma.folder.delete({ where: { id: parent.id } })).rejects.toThrow(/foreign key/i);
  });
});

describe("folder name uniqueness", () => {
  it("refuses a second folder with the same name key under one parent, top level included", async () => {
    const orgId = randomUUID();
    const createdByUserId = randomUUID();
    const folder = (name: string, parentId: string | null = null, org = orgId) =>
      db.prisma.folder.create({
        data: { orgId: org, name, nameKey: name.toLowerCase(), parentId, createdByUserId },
      });
    const top = await folder("Plans");
    await expect(folder("PLANS")).rejects.toMatchObject({ code: "P2002" });
    const child = await folder("Plans", top.id);
    await expect(folder("plans", top.id)).rejects.toMatchObject({ code: "P2002" });
    // The same name elsewhere is fine: under another parent, or in another org.
    await folder("Plans", child.id);
    await folder("Plans", null, randomUUID());
    expect(await db.prisma.folder.count({ where: { orgId, nameKey: "plans" } })).toBe(3);
  });
});

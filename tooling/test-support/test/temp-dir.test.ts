import { existsSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { removeTempDir } from "../src/temp-dir.js";

describe("removeTempDir", () => {
  it("removes a directory that a writer keeps filling for a while (a plain rm fails with ENOTEMPTY)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "folio-temp-dir-"));
    for (let i = 0; i < 200; i += 1) await writeFile(join(dir, `seed-${i}`), "x");
    // A process that is finishing (a server child, PGlite flushing): it writes for half a second
    // more, racing the removal, then stops. It stops by the clock, so a slow machine does not
    // make it write for longer.
    const stopAt = Date.now() + 500;
    let written = 0;
    const writer = (async () => {
      while (Date.now() < stopAt) {
        try {
          await writeFile(join(dir, `late-${written}`), "x");
          written += 1;
        } catch {
          return; // The directory is gone.
        }
      }
    })();
    await removeTempDir(dir);
    await writer;
    expect(written).toBeGreaterThan(0);
    expect(existsSync(dir)).toBe(false);
  });

  it("is done when the directory does not exist", async () => {
    await expect(removeTempDir(join(tmpdir(), "folio-temp-dir-never-made"))).resolves.toBeUndefined();
  });
});

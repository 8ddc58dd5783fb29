// Generates the Prisma client into src/gen/prisma, offline.
// The Prisma CLI insists on a schema-engine binary before any command, `generate` included, and
// downloads one when none is installed (install scripts are off, see pnpm-workspace.yaml). Only
// `prisma migrate`/`db` run that engine; `generate` merely checks that the file exists. So any
// existing file will do: this script. Migrations are applied by applyMigrations() instead.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const prismaPackage = require.resolve("prisma/package.json");
const prismaCli = join(dirname(prismaPackage), JSON.parse(readFileSync(prismaPackage, "utf8")).bin.prisma);

// Output of an earlier schema (a removed model) must not linger.
rmSync(join(packageRoot, "src", "gen", "prisma"), { recursive: true, force: true });

const result = spawnSync(process.execPath, [prismaCli, "generate"], {
  cwd: packageRoot,
  stdio: "inherit",
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? fileURLToPath(import.meta.url),
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
  },
});
if (result.error) throw result.error;
process.exit(result.status ?? 1);

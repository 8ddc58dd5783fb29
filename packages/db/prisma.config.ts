// Configuration of the Prisma CLI. `prisma generate` needs no database, so DATABASE_URL may be unset;
// migrations are applied by applyMigrations() (src/migrate.ts), not by `prisma migrate`.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL },
});

/**
 * The Folio database: the Prisma client over the `pg` driver (real PostgreSQL and the embedded
 * PGlite alike), the SQL migrations and the runner that applies them. Apps import this package,
 * never Prisma itself.
 */
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./gen/prisma/client.js";

export type { Folder, IdempotencyKey, Project } from "./gen/prisma/client.js";
/** Prisma's namespace: `Prisma.sql` and `Prisma.join` build parameterised raw queries. */
export { Prisma } from "./gen/prisma/client.js";
export {
  type ApplyMigrationsOptions,
  type ApplyMigrationsResult,
  applyMigrations,
  migrationsDir,
} from "./migrate.js";
export type { PrismaClient };

/** Options of {@link createDb}. */
export interface CreateDbOptions {
  /** Size of the connection pool (default 10, pg's default). */
  maxConnections?: number;
}

/** A connected Prisma client and the way to release its connections. */
export interface Db {
  prisma: PrismaClient;
  /** Closes every connection of the pool. */
  close(): Promise<void>;
}

/** Connects Prisma to the database at `url` through a `pg` pool. Apply migrations first. */
export function createDb(url: string, options: CreateDbOptions = {}): Db {
  const adapter = new PrismaPg({ connectionString: url, max: options.maxConnections ?? 10 });
  const prisma = new PrismaClient({ adapter });
  return {
    prisma,
    close: () => prisma.$disconnect(),
  };
}

/**
 * The Folio database, its one door: queries named for what they do (folders, projects,
 * idempotency keys), transactions, database failures mapped to errors a caller can act on, and
 * the SQL migrations with their runner. Apps import this package, never Prisma or SQL.
 */
export {
  type CreateDbOptions,
  createDb,
  type Db,
  type DbCloseReport,
  type DbControls,
  type PoolStats,
  type Queries,
  type ReplicaOptions,
} from "./create-db.js";
export type { OnQueryFailure, QueryFailureReason } from "./database-edge.js";
export { DatabaseUnavailableError } from "./database-errors.js";
export type {
  CreateFolderResult,
  FolderPageQuery,
  FolderPageResult,
  FolderQueries,
  NewFolder,
} from "./folders.js";
export type { Folder, Project } from "./gen/prisma/client.js";
export type {
  IdempotencyKeyQueries,
  IdempotencyScope,
  RememberedRequest,
} from "./idempotency-keys.js";
export {
  type ApplyMigrationsOptions,
  type ApplyMigrationsResult,
  applyMigrations,
  migrationsDir,
  pendingMigrations,
} from "./migrate.js";
export type {
  NewProject,
  ProjectFilters,
  ProjectPageQuery,
  ProjectQueries,
  ProjectRecord,
} from "./projects.js";
export type { ReadRoute } from "./replica-reads.js";
export {
  checkSessionTimeouts,
  type SessionTimeouts,
  sessionTimeouts,
  type TimeoutMismatch,
} from "./session-settings.js";
export { traceQueries } from "./tracing.js";

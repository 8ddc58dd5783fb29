/**
 * Temporary directories of tests. Removing one can race with a process that is still writing into
 * it (a server child that has not quite exited, PGlite flushing its files, a tool's cache): the
 * directory is listed, emptied, and meanwhile a new file appears, so `rmdir` fails with ENOTEMPTY
 * (or EBUSY/EPERM on some file systems). On a loaded machine that is no rare event; these retry.
 */
import { rm } from "node:fs/promises";

/**
 * Retries of a removal: Node waits `retryDelay` ms times the attempt number between tries (200,
 * 400, ... 1,000 ms: 3 s in all), long enough for a writer that is finishing to finish.
 */
export const REMOVE_RETRIES = { maxRetries: 5, retryDelay: 200 } as const;

/** Removes `dir` and everything in it (nothing when it is gone), retrying as {@link REMOVE_RETRIES} says. */
export function removeTempDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true, ...REMOVE_RETRIES });
}

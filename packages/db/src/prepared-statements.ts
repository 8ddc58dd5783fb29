import { createHash } from "node:crypto";

/**
 * SQLSTATEs of a server that does not keep what a connection prepared: 26000 (no such statement)
 * and 42P05 (it already exists), as a pooler in transaction mode (PgBouncer before 1.21) answers
 * when a connection's statements land on another server connection. Either fails before the
 * statement runs, so running it again unnamed is safe.
 */
const NOT_KEPT = new Set(["26000", "42P05"]);

/** How many statement texts get a name; past it a text runs unnamed (the texts are the code's, so few). */
const MAX_NAMES = 500;

/** Which statements run as named prepared statements, and the fallback when the server cannot keep them. */
export interface PreparedStatements {
  /** The name to prepare `text` under, or undefined to run it unnamed. */
  nameOf(text: string): string | undefined;
  /**
   * True when `error` says the server does not keep prepared statements: from then on every
   * statement runs unnamed, and the caller runs this one again unnamed.
   */
  notKept(error: unknown): boolean;
}

/**
 * Names statements so that PostgreSQL parses and plans each once per connection rather than on
 * every call: unprepared, a create cost PostgreSQL 0.63 ms of CPU, more than Folio's server spent
 * on it, and 0.39 ms prepared (docs/benchmarks.md, "Creates at the peers' rate"). A name is a digest of the text, so
 * one name is one text in every process and version (behind a pooler, a statement another
 * instance prepared is the same statement). `onNotKept` is told once when the server turns out
 * not to keep them.
 */
export function preparedStatements(
  enabled: boolean,
  onNotKept: () => void = () => undefined,
): PreparedStatements {
  let on = enabled;
  const names = new Map<string, string>();
  return {
    nameOf(text) {
      if (!on) return undefined;
      let name = names.get(text);
      if (name === undefined && names.size < MAX_NAMES) {
        name = `folio_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
        names.set(text, name);
      }
      return name;
    },
    notKept(error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (typeof code !== "string" || !NOT_KEPT.has(code)) return false;
      if (on) {
        on = false;
        onNotKept();
      }
      return true;
    },
  };
}

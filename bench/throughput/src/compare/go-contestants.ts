import { buildGoPeer, goPeerUnavailable } from "../go-peer/build.ts";
import { type Contestant, GO_CONTESTANTS } from "./contestants.ts";

/**
 * The contestants that can run here: the Go ones only where Go and Debian's packages of the Go stack
 * are installed; otherwise they are left out and reported unavailable, with the command that
 * installs what is missing.
 */
export function availableContestants(contestants: readonly Contestant[]): {
  contestants: Contestant[];
  notes: string[];
} {
  const go = contestants.filter((contestant) => GO_CONTESTANTS.includes(contestant));
  const unavailable = go.length > 0 ? goPeerUnavailable() : undefined;
  if (unavailable === undefined) return { contestants: [...contestants], notes: [] };
  return {
    contestants: contestants.filter((contestant) => !go.includes(contestant)),
    notes: [`${go.join(", ")}: unavailable, not run (${unavailable})`],
  };
}

/** Builds the Go peer when a Go contestant runs (seconds on a warm build cache); what to print. */
export function prepareGoPeer(contestants: readonly Contestant[]): string[] {
  if (!contestants.some((contestant) => GO_CONTESTANTS.includes(contestant))) return [];
  const started = performance.now();
  const binary = buildGoPeer();
  return [
    `Go peer: built from Debian's packages in ${((performance.now() - started) / 1000).toFixed(1)} s (${binary}), GOMAXPROCS unset (every CPU)`,
  ];
}

import { type ServerKind, type ServerSetup, startServer } from "./servers.ts";
import { median } from "./stats.ts";

/**
 * Cold start: from spawning the process to the first successful authenticated ListProjects (polled
 * every 5 ms), `times` times per server, taking turns; the medians in milliseconds. Folio's
 * includes what it does before serving (configuration, the migration check, the router); the
 * baselines' includes Node stripping the types of their sources.
 */
export async function measureColdStarts(
  kinds: readonly ServerKind[],
  setup: ServerSetup,
  times: number,
): Promise<Map<ServerKind, { median: number; all: number[] }>> {
  const all = new Map<ServerKind, number[]>(kinds.map((kind) => [kind, []]));
  for (let i = 0; i < times; i++) {
    for (let k = 0; k < kinds.length; k++) {
      const kind = kinds[(i + k) % kinds.length] as ServerKind;
      const server = await startServer(kind, setup, { name: `cold-start-${kind}`, pollMs: 5 });
      all.get(kind)?.push(server.startMs);
      await server.stop();
    }
  }
  return new Map([...all].map(([kind, ms]) => [kind, { median: median(ms), all: ms }]));
}

import { cpuMs } from "./proc-stats.ts";
import { type ServerKind, type ServerSetup, startServer } from "./servers.ts";
import { median } from "./stats.ts";

/**
 * Cold start: from spawning the process to the first successful authenticated ListProjects (polled
 * every 5 ms), `times` times per server, taking turns; the medians in milliseconds. Folio's
 * includes what it does before serving (configuration, the migration check, the router); the
 * baselines' includes Node stripping the types of their sources. Also the CPU time (user and system,
 * 10 ms ticks) each process used until that answer: steadier than the wall time on a shared machine,
 * where a start waits for the CPU as much as it uses it.
 */
export async function measureColdStarts(
  kinds: readonly ServerKind[],
  setup: ServerSetup,
  times: number,
): Promise<Map<ServerKind, { median: number; all: number[]; cpuMedian: number; cpuAll: number[] }>> {
  const all = new Map<ServerKind, number[]>(kinds.map((kind) => [kind, []]));
  const cpu = new Map<ServerKind, number[]>(kinds.map((kind) => [kind, []]));
  for (let i = 0; i < times; i++) {
    for (let k = 0; k < kinds.length; k++) {
      const kind = kinds[(i + k) % kinds.length] as ServerKind;
      const server = await startServer(kind, setup, { name: `cold-start-${kind}`, pollMs: 5 });
      all.get(kind)?.push(server.startMs);
      cpu.get(kind)?.push(cpuMs(server.pid));
      await server.stop();
    }
  }
  return new Map(
    [...all].map(([kind, ms]) => {
      const cpuAll = cpu.get(kind) ?? [];
      return [kind, { median: median(ms), all: ms, cpuMedian: median(cpuAll), cpuAll }];
    }),
  );
}

/** Prints the wall and CPU times of {@link measureColdStarts}, each server's medians and Folio / Fastify. */
export function printColdStarts(cold: Awaited<ReturnType<typeof measureColdStarts>>, times: number): void {
  console.log(
    `\n## Cold start: spawn to the first successful authenticated ListProjects (median of ${times})\n`,
  );
  for (const [kind, { median, all }] of cold) {
    console.log(`${kind.padEnd(8)} ${median.toFixed(0)} ms   (${all.map((ms) => ms.toFixed(0)).join(", ")})`);
  }
  const folio = cold.get("folio")?.median;
  const fastify = cold.get("fastify")?.median;
  if (folio !== undefined && fastify !== undefined)
    console.log(`folio / fastify: ${(folio / fastify).toFixed(2)}`);
  console.log("\nCPU time (user + system) to that answer, median:");
  for (const [kind, { cpuMedian, cpuAll }] of cold) {
    console.log(
      `${kind.padEnd(8)} ${cpuMedian.toFixed(0)} ms   (${cpuAll.map((ms) => ms.toFixed(0)).join(", ")})`,
    );
  }
  const folioCpu = cold.get("folio")?.cpuMedian;
  const fastifyCpu = cold.get("fastify")?.cpuMedian;
  if (folioCpu !== undefined && fastifyCpu !== undefined)
    console.log(`folio / fastify: ${(folioCpu / fastifyCpu).toFixed(2)}`);
}

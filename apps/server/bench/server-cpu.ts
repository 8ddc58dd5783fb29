// The CPU time of the server's process, read from its own Prometheus metrics: prom-client's
// process_cpu_seconds_total (user and system time of every thread, from process.cpuUsage), so
// that a request's cost is the server's alone, not the client's in this process.

/** Reads the server's CPU time, and what a reading costs the server itself. */
export interface ServerCpu {
  /** The server process's CPU time so far, in microseconds. */
  read(): Promise<number>;
  /** The CPU a reading costs the server (serving /metrics), in microseconds: the least of `samples` back-to-back pairs. */
  readingCost(samples?: number): Promise<number>;
}

/** The server's CPU time from the metrics listener at `metricsUrl` (`http://host:port/metrics`). */
export function serverCpu(metricsUrl: string): ServerCpu {
  const read = async () => {
    const response = await fetch(metricsUrl);
    const text = await response.text();
    const match = /^process_cpu_seconds_total(?:\{[^}]*\})? (\S+)$/m.exec(text);
    if (!response.ok || match === null) {
      throw new Error(`${metricsUrl} has no process_cpu_seconds_total (HTTP ${response.status})`);
    }
    return Number(match[1]) * 1e6;
  };
  return {
    read,
    async readingCost(samples = 10) {
      let least = Number.POSITIVE_INFINITY;
      for (let i = 0; i < samples; i++) {
        const before = await read();
        least = Math.min(least, (await read()) - before);
      }
      return least;
    },
  };
}

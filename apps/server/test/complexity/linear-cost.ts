// Whether a step's cost is linear in its input: CPU time at size N and at 2N, compared. Doubling
// the input of a linear step doubles its time; a quadratic one quadruples it. The bound, 3, sits
// between the two.
//
// CPU time (process.cpuUsage), not wall time: other processes on a busy machine delay a run, but
// do not add to its CPU time. Vitest's default pool runs each test file in a process of its own,
// so the process's CPU time is this file's; in a worker thread, the thread's is used instead.
// The fastest of several runs counts: interruptions (another process evicting the caches, a
// garbage collection) only ever add time. A run at N lasts at least 20 ms of CPU, the step
// repeated within it as often as needed, so that the clock's resolution does not matter.
//
// Choose N as half the largest input the server accepts (the body limit, the headers' limit), so
// that 2N is that input: the step is measured over the range a client can reach. Sizes matter on a
// busy machine: a linear step whose input at N fits under a line (a core's cache, 512 KiB here; an
// allocator's threshold, 128 KiB for V8's large objects and glibc's mmap) and whose 2N does not
// measured 3 to 4, the line and not the step. Where a step's data outgrows a cache inside that
// range, N and 2N are both taken below the line, and the test says so (json-decoding.test.ts, the
// bearer token's spelling in headers.test.ts).
//
// Set LINEAR_COST_REPORT=1 to print every measurement.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { isMainThread } from "node:worker_threads";
import { expect } from "vitest";

// A full collection before a step's runs begin, outside the measurement, so that its runs do not
// pay for the garbage the test's earlier steps left. Not before each run: the collector's threads
// sweep on after it, into the run, and a short run would pay more of that than a long one.
// Exposing `gc` this way needs no flag on the command line.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** A step's CPU time at N and at 2N. */
export interface Growth {
  /** N, the smaller input's size. */
  readonly size: number;
  /** Calls of the step in one run (the same at both sizes). */
  readonly calls: number;
  /** The fastest run at N, in ms of CPU. */
  readonly smallMs: number;
  /** The fastest run at 2N, in ms of CPU. */
  readonly largeMs: number;
  /** largeMs / smallMs: 2 for a linear step, 4 for a quadratic one. */
  readonly ratio: number;
}

/** What {@link measureGrowth} measures. */
export interface GrowthOptions<I> {
  /** Builds the input of a size (awaited when it returns a promise); not measured. */
  readonly input: (size: number) => I | PromiseLike<I>;
  /** The step: called with the input, awaited when it returns a promise. It must not change its input. */
  readonly step: (input: I) => unknown;
  /** N: the step is measured at N and at 2N. */
  readonly size: number;
  /** Runs at each size, after those that warm up; the fastest counts (default 7). */
  readonly runs?: number;
  /** The CPU time a run at N must take, in ms; the step is repeated in a run until it does (default 20). */
  readonly minRunMs?: number;
}

/** Calls in one run at most: a step that costs nothing measurable is not worth more. */
const MAX_CALLS = 1 << 20;

/** A ratio no noise reaches: past it for three pairs of runs, the rest are not run. */
const FAR_BEYOND = 8;

/** Measures how a step's CPU time grows from an input of size N to one of 2N. */
export async function measureGrowth<I>(options: GrowthOptions<I>): Promise<Growth> {
  const { input, step, size } = options;
  const runs = options.runs ?? 7;
  const minRunMs = options.minRunMs ?? 20;
  const small = await input(size);
  const large = await input(2 * size);
  collectGarbage();
  let calls = 1;
  // The first run warms up (compiles the step, flattens the input's strings); then the calls a run
  // makes double until a run at N takes long enough to measure. Then a run at each size more, so
  // that the compiler threads, whose time the process's CPU time includes, are done with the step.
  await cpuMs(step, small, calls);
  while ((await cpuMs(step, small, calls)) < minRunMs && calls < MAX_CALLS) calls *= 2;
  await cpuMs(step, large, calls);
  await cpuMs(step, small, calls);
  await cpuMs(step, large, calls);
  for (;;) {
    let smallMs = Number.POSITIVE_INFINITY;
    let largeMs = Number.POSITIVE_INFINITY;
    // Alternating sizes: a stretch of heavy load falls on both alike. A ratio far beyond any noise
    // ends the runs early: a step that is that superlinear would take minutes to measure in full.
    for (let run = 0; run < runs && (run < 3 || largeMs < FAR_BEYOND * smallMs); run++) {
      smallMs = Math.min(smallMs, await cpuMs(step, small, calls));
      largeMs = Math.min(largeMs, await cpuMs(step, large, calls));
    }
    // Warm runs can be faster than the ones that set the calls: then again with more.
    if (smallMs >= minRunMs || calls >= MAX_CALLS)
      return { size, calls, smallMs, largeMs, ratio: largeMs / smallMs };
    calls *= 2;
  }
}

/** What {@link expectLinearCost} checks: a step, named for the failure message. */
export interface LinearCostOptions<I> extends GrowthOptions<I> {
  /** What is measured, for the messages: `createFolderRules, a name of white space`. */
  readonly label: string;
  /** The largest ratio of the time at 2N to the time at N that passes (default 3). */
  readonly maxRatio?: number;
}

/**
 * Measurements of a step whose ratio is above the bound, before it fails: beside other work, a
 * step run on a thread pool (zlib's) was slowed at one size through three measurements in a row.
 */
const ATTEMPTS = 5;

/**
 * Fails the test unless doubling the step's input at most triples its CPU time. A ratio above the
 * bound is measured again with inputs built anew, up to five times in all, and
 * the runs of all are pooled: the fastest run at N of any measurement against the fastest at 2N of
 * any. A stretch of load, or a state of one measurement (its inputs' place in memory, compiler
 * threads at work), can slow every run of one size in it; pooled, the sizes' fastest runs are
 * those it did not slow, and the ratio is the step's again, below the bound for a linear step and
 * above it for a quadratic one. (The better of the measurements' ratios would let a quadratic step
 * pass on one slowed measurement.)
 */
export async function expectLinearCost<I>(options: LinearCostOptions<I>): Promise<Growth> {
  const maxRatio = options.maxRatio ?? 3;
  let growth = await measureGrowth(options);
  report(options.label, growth);
  for (let attempt = 1; attempt < ATTEMPTS && growth.ratio > maxRatio; attempt++) {
    const again = await measureGrowth(options);
    report(options.label, again);
    growth = pooled(growth, again);
  }
  expect(growth.ratio, `${options.label}: superlinear, ${describeGrowth(growth)}`).toBeLessThanOrEqual(
    maxRatio,
  );
  return growth;
}

/** Two measurements as one: the fastest run at each size of either, per call (their calls may differ). */
function pooled(a: Growth, b: Growth): Growth {
  const calls = Math.max(a.calls, b.calls);
  const smallMs = Math.min(a.smallMs / a.calls, b.smallMs / b.calls) * calls;
  const largeMs = Math.min(a.largeMs / a.calls, b.largeMs / b.calls) * calls;
  return { size: a.size, calls, smallMs, largeMs, ratio: largeMs / smallMs };
}

/** A measurement in words: `N=1048576, 4 calls a run: 21.3 ms, 2N: 43.0 ms, ratio 2.02`. */
export function describeGrowth(growth: Growth): string {
  const { size, calls, smallMs, largeMs, ratio } = growth;
  return `N=${size}, ${calls} call${calls === 1 ? "" : "s"} a run: ${smallMs.toFixed(1)} ms, 2N: ${largeMs.toFixed(1)} ms, ratio ${ratio.toFixed(2)}`;
}

function report(label: string, growth: Growth): void {
  if (process.env.LINEAR_COST_REPORT) console.log(`${label}: ${describeGrowth(growth)}`);
}

/** The CPU time of `calls` calls of the step, in ms. */
async function cpuMs<I>(step: (input: I) => unknown, input: I, calls: number): Promise<number> {
  const before = cpuMicros();
  for (let i = 0; i < calls; i++) {
    const result = step(input);
    if (isThenable(result)) await result;
  }
  return (cpuMicros() - before) / 1000;
}

function cpuMicros(): number {
  const usage = isMainThread ? process.cpuUsage() : process.threadCpuUsage();
  return usage.user + usage.system;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === "function";
}

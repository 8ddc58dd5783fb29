// The linearity check itself: it passes a linear step, and reports quadratic ones as superlinear,
// so that a passing complexity test means something.
import { describe, expect, it } from "vitest";
import { expectLinearCost, measureGrowth } from "./linear-cost.js";

/** Sorts a copy of `values` by insertion: quadratic on a descending input. */
function insertionSort(values: readonly number[]): number[] {
  const sorted = [...values];
  for (let i = 1; i < sorted.length; i++) {
    const value = sorted[i] as number;
    let j = i - 1;
    while (j >= 0 && (sorted[j] as number) > value) {
      sorted[j + 1] = sorted[j] as number;
      j--;
    }
    sorted[j + 1] = value;
  }
  return sorted;
}

const descending = (size: number) => Array.from({ length: size }, (_, i) => size - i);

/** The name that froze the server: NFC reorders each U+0316 before every U+0301. */
const unboundedMarks = (size: number) => `a${"\u0301".repeat(size >> 1)}${"\u0316".repeat(size >> 1)}`;

describe("the linearity check", () => {
  it("measures a linear step at about twice the time for twice the input", async () => {
    const growth = await expectLinearCost({
      label: "summing the code units of a string",
      size: 1 << 20,
      input: (size) => "ab".repeat(size >> 1),
      step: (text) => {
        let sum = 0;
        for (let i = 0; i < text.length; i++) sum += text.charCodeAt(i);
        return sum;
      },
    });
    // Not 1: the step's cost is measured, not swamped by the measuring.
    expect(growth.ratio).toBeGreaterThan(1.5);
  });

  it("reports an insertion sort as superlinear", async () => {
    const options = {
      label: "insertion sort of a descending array",
      size: 8000,
      input: descending,
      step: insertionSort,
    };
    await expect(expectLinearCost(options)).rejects.toThrow(/superlinear/);
  });

  it("reports NFC of an unbounded run of unordered combining marks as superlinear", async () => {
    const options = {
      label: "NFC of a run of unordered combining marks",
      size: 8000,
      input: unboundedMarks,
      step: (name: string) => name.normalize("NFC"),
    };
    await expect(expectLinearCost(options)).rejects.toThrow(/superlinear/);
  });

  it("counts the CPU time of an asynchronous step to its end", async () => {
    const growth = await measureGrowth({
      size: 2000,
      input: descending,
      step: async (values) => {
        await Promise.resolve();
        return insertionSort(values);
      },
    });
    // About 4, as for the step called synchronously; about 1 if the sort after the await went unmeasured.
    expect(growth.ratio).toBeGreaterThan(2.5);
  });
});

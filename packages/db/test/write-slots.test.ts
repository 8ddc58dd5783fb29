import { describe, expect, it } from "vitest";
import { DatabaseUnavailableError } from "../src/database-errors.js";
import { writeSlots } from "../src/write-slots.js";

/** A piece of work that runs until it is told to finish. */
function held() {
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return { work: () => done, finish };
}

describe("writeSlots", () => {
  it("runs at most `count` pieces of work at once, the waiting ones first come, first served", async () => {
    const slots = writeSlots(2, 10_000);
    const started: number[] = [];
    const pieces = [0, 1, 2, 3].map(() => held());
    const runs = pieces.map((piece, i) =>
      slots(async () => {
        started.push(i);
        await piece.work();
        return i;
      }),
    );
    await expect.poll(() => started).toEqual([0, 1]);
    pieces[1]?.finish();
    await expect.poll(() => started).toEqual([0, 1, 2]);
    pieces[0]?.finish();
    await expect.poll(() => started).toEqual([0, 1, 2, 3]);
    pieces[2]?.finish();
    pieces[3]?.finish();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
  });

  it("gives a slot back when the work fails", async () => {
    const slots = writeSlots(1, 10_000);
    await expect(slots(() => Promise.reject(new Error("failed")))).rejects.toThrow("failed");
    expect(await slots(() => Promise.resolve("next"))).toBe("next");
  });

  it("refuses work that found no slot in time as pool-timeout, and runs none of it", async () => {
    const slots = writeSlots(1, 50);
    const first = held();
    const running = slots(first.work);
    let ran = false;
    const refused = slots(async () => {
      ran = true;
    });
    await expect(refused).rejects.toBeInstanceOf(DatabaseUnavailableError);
    await expect(refused).rejects.toMatchObject({ reason: "pool-timeout" });
    first.finish();
    await running;
    // The refused work's place is gone: the slot is free for the next one.
    expect(await slots(() => Promise.resolve("after"))).toBe("after");
    expect(ran).toBe(false);
  });
});

/** The cap that refused a stream: the one of its connection, or the one of the whole process. */
export type StreamCap = "connection" | "process";

/**
 * Counts open streams, per connection and in all, each within its cap. A connection's count is
 * kept by the connection object itself (weakly): a connection that goes away takes it along.
 */
export class StreamSlots {
  readonly #byConnection = new WeakMap<object, number>();
  #open = 0;

  constructor(
    readonly perConnection: number,
    readonly perProcess: number,
  ) {}

  /** Streams open now, in all. */
  get open(): number {
    return this.#open;
  }

  /**
   * Takes a slot for a stream on `connection` (undefined: counted in all only): returns the
   * function that gives it back (once, however often it is called), or the cap that is full.
   */
  take(connection: object | undefined): (() => void) | StreamCap {
    const onConnection = connection === undefined ? 0 : (this.#byConnection.get(connection) ?? 0);
    if (onConnection >= this.perConnection) return "connection";
    if (this.#open >= this.perProcess) return "process";
    this.#open += 1;
    if (connection !== undefined) this.#byConnection.set(connection, onConnection + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#open -= 1;
      if (connection === undefined) return;
      const left = (this.#byConnection.get(connection) ?? 1) - 1;
      if (left === 0) this.#byConnection.delete(connection);
      else this.#byConnection.set(connection, left);
    };
  }
}

import type { IncomingHttpHeaders } from "node:http";

/**
 * The request headers a call sees, as a Fetch `Headers`, read from Node's parsed headers when
 * asked. Interceptors and services mostly `get()` one or two headers; building a `Headers` of
 * every header for each call (undici validates each name and value) cost more than the rest of a
 * small request's transcoding. Anything but `get` and `has` copies them into a real `Headers`
 * first, so the object behaves as one.
 */
export class RequestHeaders implements Headers {
  #copy: Headers | undefined;

  /** `isForwarded(name)`: whether the call sees a header (the lower-case name) at all. */
  constructor(
    private readonly incoming: IncomingHttpHeaders,
    private readonly isForwarded: (name: string) => boolean,
  ) {}

  get(name: string): string | null {
    if (this.#copy !== undefined) return this.#copy.get(name);
    const key = name.toLowerCase();
    if (!this.isForwarded(key)) return null;
    const value = this.incoming[key];
    if (value === undefined) return null;
    // As Headers does for a repeated header (RFC 9110, section 5.3).
    return typeof value === "string" ? value : value.join(", ");
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  getSetCookie(): string[] {
    return this.materialized().getSetCookie();
  }

  append(name: string, value: string): void {
    this.materialized().append(name, value);
  }

  set(name: string, value: string): void {
    this.materialized().set(name, value);
  }

  delete(name: string): void {
    this.materialized().delete(name);
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    this.materialized().forEach((value, key) => {
      callback.call(thisArg, value, key, this);
    });
  }

  entries(): ReturnType<Headers["entries"]> {
    return this.materialized().entries();
  }

  keys(): ReturnType<Headers["keys"]> {
    return this.materialized().keys();
  }

  values(): ReturnType<Headers["values"]> {
    return this.materialized().values();
  }

  [Symbol.iterator](): ReturnType<Headers["entries"]> {
    return this.materialized()[Symbol.iterator]();
  }

  get [Symbol.toStringTag](): string {
    return "Headers";
  }

  private materialized(): Headers {
    if (this.#copy === undefined) {
      const copy = new Headers();
      for (const name in this.incoming) {
        if (!this.isForwarded(name)) continue;
        const value = this.incoming[name];
        if (typeof value === "string") copy.append(name, value);
        else if (Array.isArray(value)) for (const item of value) copy.append(name, item);
      }
      this.#copy = copy;
    }
    return this.#copy;
  }
}

import { useMemo, useRef } from "react";

/** Idempotency keys of a form's creates: the same values sent again keep the key they were sent with. */
export interface RequestIds {
  /** The key of `request`: the last one when the values are unchanged, else a new one. */
  keyFor(request: object): string;
  /** The last request succeeded: the next one, even with the same values, is a new request. */
  forget(): void;
}

/**
 * One idempotency key per distinct request: a double submit or a retry of the same values
 * creates one folder; changed values are a new request with a new key.
 */
export function useRequestIds(): RequestIds {
  const last = useRef<{ request: string; id: string } | undefined>(undefined);
  return useMemo(
    () => ({
      keyFor(request) {
        const fingerprint = JSON.stringify(request);
        if (last.current?.request !== fingerprint) last.current = { request: fingerprint, id: randomId() };
        return last.current.id;
      },
      forget() {
        last.current = undefined;
      },
    }),
    [],
  );
}

/** A random UUID (v4); crypto.randomUUID exists only on secure origins, getRandomValues everywhere. */
export function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

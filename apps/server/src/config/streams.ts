import { DEFAULT_STREAM_LIMITS, type StreamLimits } from "../transport/public-stream-limits.js";
import { type Env, integer, integerSetting, type SettingGroup } from "./variables.js";

/** The defaults live with the limits (why each is what it is). */
const DEFAULT = DEFAULT_STREAM_LIMITS;

export const PUBLIC_STREAMS_PER_CONNECTION = integerSetting({
  name: "PUBLIC_STREAMS_PER_CONNECTION",
  fallback: DEFAULT.perConnection,
  min: 1,
  max: 10_000,
  meaning:
    "gRPC health `Watch` and server reflection streams one connection may have open at once; one " +
    "more is refused with `resource_exhausted` (a message naming the per-connection cap).",
});

export const PUBLIC_STREAMS_PER_PROCESS = integerSetting({
  name: "PUBLIC_STREAMS_PER_PROCESS",
  fallback: DEFAULT.perProcess,
  min: 1,
  max: 1_000_000,
  meaning:
    "gRPC health `Watch` and server reflection streams open at once in the process, over every " +
    "connection; one more is refused with `resource_exhausted` (a message naming the per-process cap).",
});

export const PUBLIC_STREAM_MAX_AGE_MS = integerSetting({
  name: "PUBLIC_STREAM_MAX_AGE_MS",
  fallback: DEFAULT.maxAgeMs,
  min: 100,
  max: 86_400_000,
  meaning:
    "A gRPC health `Watch` or server reflection stream open this long ends with OK status; clients " +
    "open another (gRPC's health checking clients do).",
});

/** The streams anyone may open, bounded in number and in age. */
export const publicStreamSettings: SettingGroup = {
  title: "Public streams",
  settings: [PUBLIC_STREAMS_PER_CONNECTION, PUBLIC_STREAMS_PER_PROCESS, PUBLIC_STREAM_MAX_AGE_MS],
};

/** Reads the PUBLIC_STREAM* bounds of gRPC health Watch and server reflection streams. */
export function loadPublicStreamLimits(env: Env): StreamLimits {
  return {
    perConnection: integer(env, PUBLIC_STREAMS_PER_CONNECTION),
    perProcess: integer(env, PUBLIC_STREAMS_PER_PROCESS),
    maxAgeMs: integer(env, PUBLIC_STREAM_MAX_AGE_MS),
  };
}

import { readFile } from "node:fs/promises";
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import { createBackgroundTimer } from "./background-timer.js";
import { identify, identitiesOf } from "./key-identity.js";
import { asError, KeySetLoadError, trackLoading } from "./key-set-loading.js";
import type { KeySetOptions, TrackedKeySet } from "./tracked-key-set.js";

/** How often a JWKS file is read again by default, in ms. */
export const DEFAULT_JWKS_FILE_POLL_MS = 5_000;

/** The keys of one reading of the file. */
interface Loaded {
  readonly getKey: JWTVerifyGetKey;
  readonly identities: ReadonlySet<string>;
  readonly keys: number;
}

/**
 * The key set of a JWKS file, read at start (a file that cannot be read or parsed stops the start)
 * and read again every `pollMs`, so that keys rotated in the file are used without a restart: a
 * new key verifies tokens, a removed one no longer does. A change that cannot be used (unreadable,
 * not a JWKS, no key) keeps the keys in use and is reported (`outage`), once per change, when two
 * polls in a row read it.
 *
 * Polling, not watching: a Kubernetes Secret or ConfigMap volume is updated by swapping its
 * `..data` symlink, which a watch on the file never sees (it watches the old inode), a watch on
 * the directory sees only where inotify works (not on every network or overlay filesystem), and
 * editors that write in place or rename trip both in their own ways. Reading a small file every
 * few seconds sees every one of them, through the symlinks, for next to nothing.
 */
export async function openFileKeySet(path: string, options: KeySetOptions): Promise<TrackedKeySet> {
  const pollMs = options.pollMs ?? DEFAULT_JWKS_FILE_POLL_MS;
  const text = await readFile(path, "utf8");
  let loaded = await load(JSON.parse(text) as JSONWebKeySet);
  /** What was last acted on (the file's text, or its error's code): only a change is acted on. */
  let seen = text;
  /** A reading that could not be used, seen at one poll: reported if the next one reads it too. */
  let suspect: string | undefined;
  // A file's keys are always usable: a bad change keeps the last good ones.
  const loading = trackLoading(options.onEvent, () => true);

  /** The file's keys, or why they cannot be used. */
  const read = async (): Promise<{ readonly reading: string } & ({ next: Loaded } | { error: unknown })> => {
    let reading: string;
    try {
      reading = await readFile(path, "utf8");
    } catch (error) {
      return { reading: `error ${(error as NodeJS.ErrnoException).code ?? asError(error).message}`, error };
    }
    if (reading === seen) return { reading, next: loaded };
    try {
      const next = await load(JSON.parse(reading) as JSONWebKeySet);
      // A set without a key would refuse every token: more likely a bad write than a decision.
      if (next.identities.size === 0) throw new Error("it holds no key");
      return { reading, next };
    } catch (error) {
      return { reading, error };
    }
  };

  const poll = async () => {
    const result = await read();
    if (result.reading === seen) {
      suspect = undefined;
      return;
    }
    if ("error" in result) {
      // A file written in place (not swapped) can be read half-written: only a reading that
      // stays the same from one poll to the next is a bad file.
      if (suspect !== result.reading) {
        suspect = result.reading;
        return;
      }
      seen = result.reading;
      loading.failed(unusable(path, loaded, result.error));
      return;
    }
    seen = result.reading;
    suspect = undefined;
    loaded = result.next;
    loading.succeeded();
    loading.emit({ type: "reloaded", keys: loaded.keys });
  };

  const timer = createBackgroundTimer(options.signal);
  const schedule = () => timer.schedule(pollMs, () => void poll().finally(schedule));
  schedule();

  return {
    getKey: (header, token) => loaded.getKey(header, token),
    current: async () => loaded.identities,
    identify,
    maintain: () => {},
    retryAfterMs: pollMs,
  };
}

/** The keys of a JWKS, checked as jose checks them (throws when it is not a JWKS). */
async function load(jwks: JSONWebKeySet): Promise<Loaded> {
  const getKey = createLocalJWKSet(jwks);
  // The copy jose made: what it verifies with is what is indexed.
  const copy = getKey.jwks();
  return { getKey, identities: await identitiesOf(copy), keys: copy.keys.length };
}

function unusable(path: string, kept: Loaded, error: unknown): KeySetLoadError {
  return new KeySetLoadError(
    `the JWKS file ${path} changed but cannot be used (${asError(error).message}); the ${kept.keys} keys read before stay in use`,
    { cause: error },
  );
}

import { randomUUID } from "node:crypto";
import type { HaCluster } from "../src/index.ts";
import { type Reply, rest } from "./support.ts";

/** One answer the load got. */
export interface Sample {
  readonly kind: "create" | "list";
  /** performance.now() when sent and when answered. */
  readonly sentAt: number;
  readonly doneAt: number;
  readonly status: number;
  readonly code: string | undefined;
  readonly retryAfter: string | null;
}

/** One folder a client wants created, with its Idempotency-Key, retried until acknowledged. */
export interface Create {
  readonly name: string;
  readonly key: string;
  readonly token: string;
  /** The id of each 201 it got (one, unless a retry answered again). */
  readonly ids: string[];
  /** True when one of its attempts was answered 503. */
  refused: boolean;
}

/** A mixed load running against a cluster. */
export interface MixedLoad {
  readonly samples: Sample[];
  readonly creates: Create[];
  /** Ends the load once every create in flight is acknowledged (or out of attempts). */
  stop(): Promise<void>;
}

const asSample = (kind: Sample["kind"], sentAt: number, reply: Reply): Sample => ({
  kind,
  sentAt,
  doneAt: performance.now(),
  status: reply.status,
  code: typeof reply.json === "object" ? reply.json?.error?.code : undefined,
  retryAfter: reply.headers.get("retry-after"),
});

/**
 * Starts `creators` clients creating folders one after another (each with an Idempotency-Key,
 * retried with the same key and body after a 503, as the API tells clients to) and `listers`
 * clients listing projects, each with a token of `tokens`.
 */
export function startMixedLoad(
  cluster: Pick<HaCluster, "url">,
  tokens: readonly string[],
  options: { creators: number; listers: number },
): MixedLoad {
  const samples: Sample[] = [];
  const creates: Create[] = [];
  let stopping = false;
  const send = async (
    method: "GET" | "POST",
    path: string,
    token: string,
    init: Parameters<typeof rest>[4],
  ) =>
    rest(cluster, method, path, token, init).catch(
      (error: Error): Reply => ({ status: 0, headers: new Headers(), json: error.message, instance: null }),
    );
  const creator = async (i: number) => {
    const token = tokens[i % tokens.length] as string;
    for (let n = 0; !stopping; n++) {
      const create: Create = {
        name: `c${i}-${n}-${randomUUID().slice(0, 8)}`,
        key: randomUUID(),
        token,
        ids: [],
        refused: false,
      };
      creates.push(create);
      for (let attempt = 0; attempt < 200 && create.ids.length === 0; attempt++) {
        const sentAt = performance.now();
        const reply = await send("POST", "/api/v1/folders", token, {
          body: { name: create.name },
          headers: { "idempotency-key": create.key },
        });
        samples.push(asSample("create", sentAt, reply));
        if (reply.status === 201) create.ids.push(reply.json.folder.id);
        else {
          if (reply.status === 503) create.refused = true;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    }
  };
  const lister = async (i: number) => {
    const token = tokens[i % tokens.length] as string;
    while (!stopping) {
      const sentAt = performance.now();
      samples.push(asSample("list", sentAt, await send("GET", "/api/v1/projects?pageSize=10", token, {})));
      // A client pauses between pages; the machine has two cores for all of it.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const running = Promise.all([
    ...Array.from({ length: options.creators }, (_, i) => creator(i)),
    ...Array.from({ length: options.listers }, (_, i) => lister(i)),
  ]);
  return {
    samples,
    creates,
    async stop() {
      stopping = true;
      await running;
    },
  };
}

/** The samples of `kind` sent between `from` and `to` (performance.now()). */
export function sentBetween(
  samples: readonly Sample[],
  kind: Sample["kind"],
  from: number,
  to: number,
): Sample[] {
  return samples.filter((sample) => sample.kind === kind && sample.sentAt >= from && sample.sentAt <= to);
}

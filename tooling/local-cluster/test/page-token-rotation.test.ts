// Rotating PAGE_TOKEN_SECRET on a running cluster, as docs/operations.md (Rotating
// `PAGE_TOKEN_SECRET`) tells an operator to: clients walk ListProjects page by page through
// HAProxy, over REST (the Link header) and Connect (next_page_token), while the instances are
// restarted one at a time with the new setting. Round-robin sends consecutive pages of a walk to
// different instances, so a token sealed by an updated instance is read by one that is not yet.
import { randomBytes } from "node:crypto";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ProjectService } from "@folio/proto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Cluster, startCluster, waitFor } from "../src/index.ts";
import { claimsOf, clusterUnavailable, newToken } from "./support.ts";

const unavailable = clusterUnavailable();

// Hex: never one of the placeholder words the server refuses.
const OLD = randomBytes(24).toString("hex");
const NEW = randomBytes(24).toString("hex");
/** The settings of the rotation, by the name the runbook gives them. */
const SETTINGS = {
  old: OLD,
  "old,new": `${OLD},${NEW}`,
  "new,old": `${NEW},${OLD}`,
  new: NEW,
} as const;
type Setting = keyof typeof SETTINGS;

const PROJECTS = 40;
/** 20 pages a walk. */
const PAGE_SIZE = 2;
/** One page request may take this long, on a busy machine, before the walk counts as failed. */
const REQUEST_TIMEOUT_MS = 30_000;

type Via = "rest" | "connect";

/** One page request of a walk. */
interface Page {
  readonly sentAt: number;
  /** HAProxy's X-Folio-Instance: which instance answered. */
  readonly instance: string | null;
  /** The page whose token this request sent (undefined for the first page). */
  readonly after: Page | undefined;
  /** Undefined when the page came back, else what the client got. */
  readonly failure?: string;
  /** For a failure: whether it is the refusal of the page token (400 invalid_argument on pageToken). */
  readonly tokenRefused?: boolean;
}

interface Walk {
  readonly via: Via;
  readonly startedAt: number;
  endedAt?: number;
  readonly names: string[];
  readonly pages: Page[];
}

/** What a page request returned: its projects and the next token, or why it failed. */
type PageReply =
  | { instance: string | null; names: string[]; next: string }
  | { instance: string | null; failure: string; tokenRefused: boolean };

/** Which setting each instance ran when: the times its previous process exited (a restart). */
class Timeline {
  private readonly changes = new Map<string, { from: number; setting: Setting }[]>();

  constructor(names: readonly string[], initial: Setting) {
    for (const name of names) this.changes.set(name, [{ from: Number.NEGATIVE_INFINITY, setting: initial }]);
  }

  /**
   * The instance's process exited at `at`; the next one runs `setting`. Exact for requests: HAProxy
   * sends none to the instance from taking it out (before the exit) until the next one is UP.
   */
  changed(name: string, at: number, setting: Setting): void {
    this.changes.get(name)?.push({ from: at, setting });
  }

  /** The setting of the instance that answered a request sent at `at` ("none" when none did). */
  settingAt(name: string | null, at: number): Setting | "none" {
    if (name === null) return "none";
    const changes = this.changes.get(name);
    if (changes === undefined) throw new Error(`a page answered by ${name}, not an instance of the cluster`);
    return (changes.findLast((change) => change.from <= at) ?? changes[0])?.setting as Setting;
  }
}

describe.skipIf(unavailable !== undefined)(
  `rotating PAGE_TOKEN_SECRET on three instances behind HAProxy${unavailable ? ` (skipped: ${unavailable})` : ""}`,
  () => {
    let cluster: Cluster;
    let token: string;
    let expected: string[];
    beforeEach(async () => {
      cluster = await startCluster({
        instances: 3,
        env: {
          PAGE_TOKEN_SECRET: SETTINGS.old,
          // The walks make more calls with one token than the default limits allow.
          RATE_LIMIT_TOKEN_REQUESTS: "100000000",
          RATE_LIMIT_ORG_REQUESTS: "100000000",
        },
      });
      token = await newToken(cluster);
      expected = Array.from({ length: PROJECTS }, (_, i) => `Project ${String(i + 1).padStart(3, "0")}`);
      await cluster.sql("INSERT INTO projects (org_id, name) SELECT $1, unnest($2::text[])", [
        claimsOf(token).org_id,
        expected,
      ]);
    });
    afterEach(async () => {
      await cluster?.stop();
    });

    /**
     * A page through HAProxy: the first when `next` is empty, else the one `next` points to, the
     * previous page's Link target over REST or its next_page_token over Connect.
     */
    async function page(via: Via, next: string): Promise<PageReply> {
      return via === "rest"
        ? await restPage(next || `/api/v1/projects?pageSize=${PAGE_SIZE}`)
        : await connectPage(next);
    }

    async function restPage(target: string): Promise<PageReply> {
      const response = await fetch(new URL(target, cluster.url), {
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      }).catch((error: Error) => error);
      if (response instanceof Error) {
        const failure = `${response.message}: ${(response.cause as Error)?.message}`;
        return { instance: null, failure, tokenRefused: false };
      }
      const instance = response.headers.get("x-folio-instance");
      const text = await response.text();
      if (response.status !== 200) {
        // HAProxy's own error pages are HTML.
        const error = response.headers.get("content-type")?.startsWith("application/json")
          ? JSON.parse(text).error
          : undefined;
        const tokenRefused =
          response.status === 400 &&
          error?.code === "invalid_argument" &&
          error?.details?.[0]?.fieldViolations?.[0]?.field === "pageToken";
        return { instance, failure: `${response.status} ${text}`, tokenRefused };
      }
      const link = response.headers.get("link");
      const next = link === null ? "" : /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
      if (next === undefined)
        return { instance, failure: `a Link header not understood: ${link}`, tokenRefused: false };
      return { instance, names: JSON.parse(text).projects.map((p: { name: string }) => p.name), next };
    }

    async function connectPage(pageToken: string): Promise<PageReply> {
      let instance: string | null = null;
      try {
        const reply = await projects.listProjects(
          { pageSize: PAGE_SIZE, pageToken },
          {
            headers: { authorization: `Bearer ${token}` },
            onHeader: (headers) => {
              instance = headers.get("x-folio-instance");
            },
            timeoutMs: REQUEST_TIMEOUT_MS,
          },
        );
        return { instance, names: reply.projects.map((p) => p.name), next: reply.nextPageToken };
      } catch (error) {
        const connectError = ConnectError.from(error);
        return {
          instance: connectError.metadata.get("x-folio-instance") ?? instance,
          failure: `${Code[connectError.code]}: ${connectError.rawMessage}`,
          tokenRefused:
            connectError.code === Code.InvalidArgument && /pageToken/.test(connectError.rawMessage),
        };
      }
    }

    let projects: ReturnType<typeof createClient<typeof ProjectService>>;
    beforeEach(() => {
      projects = createClient(
        ProjectService,
        createConnectTransport({ baseUrl: cluster.url, httpVersion: "1.1" }),
      );
    });

    /**
     * Walks the list to its end, or to its first failure (a client would then start again from the
     * first page). `held` is awaited before the second page: a client that keeps its token a while.
     */
    async function walk(via: Via, held?: () => Promise<unknown>): Promise<Walk> {
      const walk: Walk = { via, startedAt: performance.now(), names: [], pages: [] };
      inFlight.add(walk);
      let next = "";
      let after: Page | undefined;
      do {
        if (walk.pages.length === 1) await held?.();
        const sentAt = performance.now();
        const reply = await page(via, next);
        const current: Page =
          "failure" in reply
            ? {
                sentAt,
                instance: reply.instance,
                after,
                failure: reply.failure,
                tokenRefused: reply.tokenRefused,
              }
            : { sentAt, instance: reply.instance, after };
        walk.pages.push(current);
        if ("failure" in reply) break;
        walk.names.push(...reply.names);
        next = reply.next;
        after = current;
      } while (next !== "");
      walk.endedAt = performance.now();
      inFlight.delete(walk);
      return walk;
    }
    /** The walks begun and not yet ended. */
    const inFlight = new Set<Walk>();

    /** A restart of one instance: when it began (SIGTERM) and when HAProxy had the new process UP. */
    interface Restart {
      readonly name: string;
      readonly setting: Setting;
      readonly startedAt: number;
      readonly endedAt: number;
    }

    /** A rolling update: every instance restarted, one at a time, with `setting`. */
    interface Update {
      readonly setting: Setting;
      /** Begun once every walk begun before has ended: the runbook's wait for the longest walk. */
      readonly afterWalksInFlight?: boolean;
    }

    /**
     * Rolling updates, one after another, while clients walk the list: per protocol, two clients
     * walking it again and again without pause, and one that takes its first page before the first
     * restart and holds its token until the updates are done (or one waits for the walks in
     * flight to end).
     */
    async function rotateUnderWalks(updates: readonly Update[]) {
      const began = performance.now();
      const seconds = (at: number) => `${((at - began) / 1000).toFixed(2)} s`;
      const timeline = new Timeline(
        cluster.instances.map((instance) => instance.name),
        "old",
      );
      const restarts: Restart[] = [];
      const walks: Walk[] = [];
      let rolling = true;
      let holding = true;
      const busy = async (via: Via) => {
        while (rolling) walks.push(await walk(via));
      };
      const held = async (via: Via) => {
        walks.push(
          await walk(via, () =>
            waitFor("the updates it holds its token through", () => (holding ? undefined : true), {
              timeoutMs: 300_000,
            }),
          ),
        );
      };
      const clients = Promise.all([
        busy("rest"),
        busy("rest"),
        busy("connect"),
        busy("connect"),
        held("rest"),
        held("connect"),
      ]);
      try {
        // Walks in flight, on every instance, before the first restart.
        await waitFor("walks on every instance", () =>
          cluster.instances.every((instance) =>
            walks.some((w) => w.pages.some((p) => p.instance === instance.name)),
          )
            ? true
            : undefined,
        );
        for (const { setting, afterWalksInFlight } of updates) {
          if (afterWalksInFlight) {
            holding = false;
            const begun = performance.now();
            await waitFor(
              "the walks in flight ending",
              () => ([...inFlight].every((w) => w.startedAt > begun) ? true : undefined),
              { timeoutMs: 120_000 },
            );
          }
          for (const { name } of [...cluster.instances]) {
            const old = cluster.instances.find((instance) => instance.name === name);
            void old?.process.exited.then(() => timeline.changed(name, performance.now(), setting));
            const startedAt = performance.now();
            await cluster.restartInstance(name, { PAGE_TOKEN_SECRET: SETTINGS[setting] });
            restarts.push({ name, setting, startedAt, endedAt: performance.now() });
          }
        }
      } finally {
        holding = false;
        rolling = false;
        await clients;
      }
      // Each page that sent a token, with the setting of the instance that sealed it and of the one
      // that read it.
      const handOvers = walks.flatMap((w) =>
        w.pages.flatMap((p) =>
          p.after === undefined
            ? []
            : [
                {
                  via: w.via,
                  sealedBy: timeline.settingAt(p.after.instance, p.after.sentAt),
                  readBy: timeline.settingAt(p.instance, p.sentAt),
                  page: p,
                },
              ],
        ),
      );
      const counts: Record<string, number> = {};
      for (const h of handOvers) {
        const key = `${h.via} ${h.sealedBy} -> ${h.readBy}${h.page.failure === undefined ? "" : " failed"}`;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      console.info(
        `${walks.length} walks, ${handOvers.length} tokens handed over; restarts: ${restarts
          .map((r) => `${r.name} to ${r.setting} from ${seconds(r.startedAt)} to ${seconds(r.endedAt)}`)
          .join(", ")}; ${JSON.stringify(counts)}`,
      );
      /** A walk as a failure message shows it: each page's instance, its setting then, and when. */
      const described = (w: Walk) => ({
        via: w.via,
        listed: w.names.length,
        failure: w.pages.at(-1)?.failure,
        pages: w.pages.map(
          (p) => `${p.instance} (${timeline.settingAt(p.instance, p.sentAt)}) at ${seconds(p.sentAt)}`,
        ),
      });
      return { walks, restarts, handOvers, described };
    }

    it("the runbook's rotation (old,new, then new,old, then new once the walks in flight have ended) fails no walk, and every walk lists every project once", async () => {
      const { walks, restarts, handOvers, described } = await rotateUnderWalks([
        { setting: "old,new" },
        { setting: "new,old" },
        { setting: "new", afterWalksInFlight: true },
      ]);

      expect(walks.filter((w) => w.pages.some((p) => p.failure !== undefined)).map(described)).toEqual([]);
      for (const w of walks) expect(w.names, `a ${w.via} walk`).toEqual(expected);

      // The walks spanned the restarts: busy ones of each protocol in flight during every
      // restart, and the held ones from before the first to after the two updates.
      for (const restart of restarts) {
        for (const via of ["rest", "connect"] as const) {
          expect(
            walks.some(
              (w) =>
                w.via === via &&
                w.pages.some((p) => p.sentAt >= restart.startedAt && p.sentAt <= restart.endedAt),
            ),
            `${via} pages during ${restart.name}'s restart to ${restart.setting}`,
          ).toBe(true);
        }
      }
      const [first, last] = [restarts[0], restarts.findLast((r) => r.setting === "new,old")];
      const spanning = walks.filter(
        (w) => w.startedAt < (first?.startedAt ?? 0) && (w.endedAt ?? 0) > (last?.endedAt ?? 0),
      );
      expect(spanning.map((w) => w.via).sort()).toEqual(["connect", "rest"]);
      // What makes a rotation unsafe happened, and was safe: tokens sealed with the new secret
      // read by instances that had only learnt it (the first update), tokens sealed with the old
      // secret read by instances sealing with the new one, among them tokens held from before
      // the rotation to after it, and tokens sealed during the second update read once the old
      // secret was dropped.
      const seen = new Set(handOvers.map((h) => `${h.via} ${h.sealedBy} -> ${h.readBy}`));
      for (const via of ["rest", "connect"]) {
        expect(seen).toContain(`${via} new,old -> old,new`);
        expect(seen).toContain(`${via} old,new -> new,old`);
        expect(seen).toContain(`${via} old -> new,old`);
        expect(seen).toContain(`${via} new,old -> new`);
      }
    }, 360_000);

    it("one rolling update straight from old to new,old fails the walks that move from an updated instance to one not yet updated", async () => {
      const { walks, handOvers, described } = await rotateUnderWalks([{ setting: "new,old" }]);

      // Every page whose token an updated instance sealed (with the new secret) and an instance
      // still on the old secret alone was asked for was refused: 400 invalid_argument for the
      // page token, the walk lost. Every other page came back.
      const refused = handOvers.filter((h) => h.page.failure !== undefined);
      for (const via of ["rest", "connect"]) expect(refused.some((h) => h.via === via)).toBe(true);
      for (const h of handOvers) {
        const crossing = h.sealedBy === "new,old" && h.readBy === "old";
        expect(
          {
            via: h.via,
            sealedBy: h.sealedBy,
            readBy: h.readBy,
            failure: h.page.failure,
            refused: h.page.tokenRefused,
          },
          "a page whose token moved between these settings",
        ).toEqual({
          via: h.via,
          sealedBy: h.sealedBy,
          readBy: h.readBy,
          failure: crossing ? expect.any(String) : undefined,
          refused: crossing ? true : undefined,
        });
      }
      // First pages never fail; the walks that failed are exactly those with such a page.
      const firstPagesFailed = walks.filter((w) => w.pages[0]?.failure !== undefined);
      expect(firstPagesFailed.map(described)).toEqual([]);
      for (const w of walks) {
        if (w.pages.some((p) => p.failure !== undefined)) expect(w.names.length).toBeLessThan(PROJECTS);
        else expect(w.names, `a ${w.via} walk`).toEqual(expected);
      }
    }, 240_000);
  },
);

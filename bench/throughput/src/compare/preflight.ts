import http2 from "node:http2";
import { type Contestant, PAGE_SIZE, SERVER_OF, type Workload } from "./contestants.ts";
import { createFolderRequest, grpcFrame, listProjectsRequest } from "./protobuf.ts";
import type { ServerKind } from "./servers.ts";

/** What the preflight learnt: the size of a successful gRPC list response per page size. */
export interface Preflight {
  readonly grpcListDataBytes: Map<number, number>;
  /** Lines to print: what was checked. */
  readonly notes: string[];
}

/**
 * One request of every contestant and workload before anything is measured, checked for what the
 * load generators cannot see: a list page of the asked size (JSON), the same bytes over Connect
 * binary and gRPC, a created folder, and the REST bodies of the three servers byte for byte equal
 * (same rows, same page-token key: the same JSON and the same Link). Throws on the first mismatch.
 */
export async function preflight(
  urls: ReadonlyMap<ServerKind, string>,
  contestants: readonly Contestant[],
  workloads: readonly Workload[],
  token: string,
  prefix: string,
): Promise<Preflight> {
  const grpcListDataBytes = new Map<number, number>();
  const notes: string[] = [];
  const auth = { authorization: `Bearer ${token}` };
  for (const workload of workloads) {
    const restBodies = new Map<Contestant, string>();
    for (const contestant of contestants) {
      const url = urls.get(SERVER_OF[contestant]) as string;
      const what = `${contestant}, ${workload}`;
      if (workload === "create") {
        const name = `${prefix}-preflight-${contestant}`;
        if (contestant === "folio-grpc") {
          const reply = await grpcUnary(
            url,
            "/folio.v1.FolderService/CreateFolder",
            auth,
            createFolderRequest(name),
          );
          expect(reply.grpcStatus === "0", `${what}: grpc-status ${reply.grpcStatus}`);
          continue;
        }
        const proto = contestant === "folio-connect-proto";
        const response = await fetch(
          `${url}${contestant.startsWith("folio-connect") ? "/folio.v1.FolderService/CreateFolder" : "/api/v1/folders"}`,
          {
            method: "POST",
            headers: { ...auth, "content-type": proto ? "application/proto" : "application/json" },
            body: proto ? createFolderRequest(name) : JSON.stringify({ name }),
          },
        );
        expect(response.ok, `${what}: HTTP ${response.status} ${await response.text()}`);
        continue;
      }
      const pageSize = PAGE_SIZE[workload];
      switch (contestant) {
        case "fastify":
        case "node-http":
        case "folio-rest": {
          const response = await fetch(`${url}/api/v1/projects?pageSize=${pageSize}`, { headers: auth });
          const body = await response.text();
          expect(response.status === 200, `${what}: HTTP ${response.status} ${body.slice(0, 300)}`);
          const projects = (JSON.parse(body) as { projects: unknown[] }).projects;
          expect(projects.length === pageSize, `${what}: ${projects.length} projects, not ${pageSize}`);
          expect(response.headers.get("link") !== null, `${what}: no Link header`);
          restBodies.set(contestant, `${response.headers.get("link")}\n${body}`);
          break;
        }
        case "folio-connect-json": {
          const response = await fetch(`${url}/folio.v1.ProjectService/ListProjects`, {
            method: "POST",
            headers: { ...auth, "content-type": "application/json" },
            body: JSON.stringify({ pageSize }),
          });
          const body = (await response.json()) as { projects?: unknown[]; nextPageToken?: string };
          expect(response.status === 200, `${what}: HTTP ${response.status}`);
          expect(body.projects?.length === pageSize, `${what}: ${body.projects?.length} projects`);
          break;
        }
        case "folio-connect-proto": {
          const response = await fetch(`${url}/folio.v1.ProjectService/ListProjects`, {
            method: "POST",
            headers: { ...auth, "content-type": "application/proto" },
            body: listProjectsRequest(pageSize),
          });
          const bytes = new Uint8Array(await response.arrayBuffer());
          expect(response.status === 200, `${what}: HTTP ${response.status}`);
          const grpc = grpcListDataBytes.get(pageSize);
          expect(grpc === undefined || grpc === bytes.byteLength + 5, `${what}: not the bytes gRPC sends`);
          grpcListDataBytes.set(pageSize, bytes.byteLength + 5);
          break;
        }
        case "folio-grpc": {
          const reply = await grpcUnary(
            url,
            "/folio.v1.ProjectService/ListProjects",
            auth,
            listProjectsRequest(pageSize),
          );
          expect(reply.grpcStatus === "0", `${what}: grpc-status ${reply.grpcStatus}`);
          const proto = grpcListDataBytes.get(pageSize);
          expect(
            proto === undefined || proto === reply.dataBytes,
            `${what}: not the bytes Connect binary sends`,
          );
          grpcListDataBytes.set(pageSize, reply.dataBytes);
          break;
        }
      }
    }
    const bodies = [...restBodies];
    if (bodies.length > 1) {
      const [first, ...others] = bodies;
      for (const [contestant, body] of others) {
        expect(
          body === first?.[1],
          `${workload}: the REST response of ${contestant} differs from ${first?.[0]}'s`,
        );
      }
      notes.push(
        `${workload}: REST bodies and Link headers of ${bodies.map(([c]) => c).join(", ")} are byte for byte equal`,
      );
    }
  }
  return { grpcListDataBytes, notes };
}

/** One gRPC call: its grpc-status and the bytes of DATA of the response. */
async function grpcUnary(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  message: Uint8Array,
): Promise<{ grpcStatus: string | undefined; dataBytes: number }> {
  const session = http2.connect(baseUrl);
  try {
    return await new Promise((resolve, reject) => {
      let grpcStatus: string | undefined;
      let dataBytes = 0;
      const stream = session.request({
        ":method": "POST",
        ":path": path,
        "content-type": "application/grpc",
        te: "trailers",
        ...headers,
      });
      stream.on("response", (h) => {
        if (typeof h["grpc-status"] === "string") grpcStatus = h["grpc-status"];
      });
      stream.on("trailers", (t) => {
        if (typeof t["grpc-status"] === "string") grpcStatus = t["grpc-status"];
      });
      stream.on("data", (chunk: Buffer) => {
        dataBytes += chunk.byteLength;
      });
      stream.on("error", reject);
      stream.on("close", () => resolve({ grpcStatus, dataBytes }));
      stream.end(grpcFrame(message));
    });
  } finally {
    session.close();
  }
}

function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`preflight: ${message}`);
}

import { ProjectSchema } from "@folio/proto";
import type { Contestant } from "./contestants.ts";

/**
 * A REST page as the Node peers and Folio write it, for comparison: every project field, in the
 * proto's order, null when absent. grpc-gateway writes the response message as it is: an absent
 * field left out, and the next page's (emptied) `nextPageToken` in the body beside the Link header.
 */
export function comparableRestBody(contestant: Contestant, body: string): string {
  if (contestant !== "go-gateway") return body;
  const page = JSON.parse(body) as { projects: Record<string, unknown>[]; nextPageToken?: string };
  expect(
    Object.keys(page).join() === "projects,nextPageToken" && page.nextPageToken === "",
    `go-gateway: a page of ${Object.keys(page).join(", ")}`,
  );
  const fields = ProjectSchema.fields.map((field) => field.jsonName);
  return JSON.stringify({
    projects: page.projects.map((project) => {
      const keys = Object.keys(project);
      expect(
        keys.join() === fields.filter((name) => keys.includes(name)).join(),
        `go-gateway: a project of ${keys.join(", ")}`,
      );
      return Object.fromEntries(fields.map((name) => [name, project[name] ?? null]));
    }),
  });
}

function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`preflight: ${message}`);
}

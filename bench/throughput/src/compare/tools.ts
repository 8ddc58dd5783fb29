import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** The load generators, with the Debian package of each. */
const TOOLS = { wrk: "wrk", h2load: "nghttp2-client" } as const;

/** The load generators of `needed` that are not on PATH, with the command that installs them. */
export function missingTools(needed: readonly (keyof typeof TOOLS)[]): {
  missing: string[];
  install: string;
} {
  const missing = needed.filter((tool) => !onPath(tool));
  return {
    missing,
    install: `apt-get install -y ${[...new Set(missing.map((tool) => TOOLS[tool]))].join(" ")}`,
  };
}

/** Whether an executable `binary` is on PATH. */
export function onPath(binary: string): boolean {
  for (const directory of (process.env.PATH ?? "").split(delimiter)) {
    if (directory === "") continue;
    try {
      accessSync(join(directory, binary), constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}

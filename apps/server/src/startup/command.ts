/** What the process was asked to do: serve (no arguments), or apply or check the migrations. */
export type Command = { readonly name: "serve" } | { readonly name: "migrate"; readonly check: boolean };

/** The command line the process understands. */
export const USAGE = "usage: node dist/main.js [migrate [--check]]";

/** Reads the process's arguments (after the script); throws, naming {@link USAGE}, on anything else. */
export function parseCommand(args: readonly string[]): Command {
  const [name, ...rest] = args;
  if (name === undefined) return { name: "serve" };
  if (name === "migrate" && rest.length === 0) return { name: "migrate", check: false };
  if (name === "migrate" && rest.length === 1 && rest[0] === "--check")
    return { name: "migrate", check: true };
  throw new Error(`unknown arguments "${args.join(" ")}" (${USAGE})`);
}

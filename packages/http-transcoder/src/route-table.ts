import type { HttpRoute } from "./http-route.js";

/**
 * The result of looking up a request in a {@link RouteTable}.
 *
 * @private
 */
export type RouteLookup<T> =
  /** A route matches. `segments` are the request path's raw segments, the verb cut off. */
  | { readonly kind: "found"; readonly entry: T; readonly segments: readonly string[] }
  /** Routes match the path, but none for the request's HTTP method. */
  | { readonly kind: "method-not-allowed"; readonly allowed: readonly string[] }
  /** No route matches the path. */
  | { readonly kind: "not-found" };

/**
 * The routes of a transcoder, compiled into a tree of path segments so that a request is matched
 * without trying each route in turn.
 *
 * @private
 */
export interface RouteTable<T> {
  lookup(httpMethod: string, path: string): RouteLookup<T>;
}

interface RouteNode<T> {
  readonly literals: Map<string, RouteNode<T>>;
  wildcard: RouteNode<T> | undefined;
  deepWildcard: RouteNode<T> | undefined;
  readonly entries: Map<string, T>;
}

/**
 * Compiles routes into a {@link RouteTable}.
 *
 * Precedence: where routes differ, a literal segment wins over `*`, and `*` over `**`, from left to
 * right; a request that matches no route under the preferred branch falls back to the next. Two
 * routes that match exactly the same requests (same HTTP method, same segments, same verb, e.g.
 * `/v1/{name=shelves/*}` and `/v1/shelves/{id}`) are ambiguous: compiling throws.
 *
 * @private
 */
export function createRouteTable<T extends { readonly route: HttpRoute }>(
  entries: readonly T[],
): RouteTable<T> {
  // One tree per custom verb; "" for none.
  const roots = new Map<string, RouteNode<T>>();
  // Without a `**`, no route matches a path of more segments than the longest template has.
  let maxSegments = 0;
  let deepWildcards = false;
  for (const entry of entries) {
    const { route } = entry;
    const verb = route.template.verb ?? "";
    maxSegments = Math.max(maxSegments, route.template.segments.length);
    deepWildcards ||= route.template.segments.some((segment) => segment.kind === "deep-wildcard");
    let node: RouteNode<T> | undefined = roots.get(verb);
    if (node === undefined) {
      node = newNode<T>();
      roots.set(verb, node);
    }
    for (const segment of route.template.segments) {
      switch (segment.kind) {
        case "literal": {
          let next: RouteNode<T> | undefined = node.literals.get(segment.value);
          if (next === undefined) {
            next = newNode<T>();
            node.literals.set(segment.value, next);
          }
          node = next;
          break;
        }
        case "wildcard":
          node.wildcard ??= newNode();
          node = node.wildcard;
          break;
        case "deep-wildcard":
          node.deepWildcard ??= newNode();
          node = node.deepWildcard;
          break;
      }
    }
    const existing = node.entries.get(route.httpMethod);
    if (existing !== undefined) {
      throw new Error(
        `ambiguous google.api.http rules: ${route.httpMethod} ${existing.route.pattern} (${methodName(existing.route)}) and ${route.httpMethod} ${route.pattern} (${methodName(route)}) match the same requests`,
      );
    }
    node.entries.set(route.httpMethod, entry);
  }

  return {
    lookup(httpMethod, path) {
      // A path longer than every route is refused before it is split: the segments of a hostile
      // path of thousands (each a new string, all live at once) cost the collector more than
      // linear time.
      if (!deepWildcards && path.length > 1 && hasMoreSegments(path, maxSegments)) {
        return notFound;
      }
      const segments = splitPath(path);
      if (segments === undefined) {
        return notFound;
      }
      const last = segments[segments.length - 1] ?? "";
      if (last.endsWith(":")) {
        // http.proto: Verb = ":" LITERAL. A ":" with nothing after it is no verb, and no route
        // has it as the end of a segment either.
        return notFound;
      }
      const colon = last.lastIndexOf(":");
      let withoutVerb: string[] | undefined;
      let verbRoot: RouteNode<T> | undefined;
      if (colon >= 0) {
        verbRoot = roots.get(last.slice(colon + 1));
        if (verbRoot !== undefined) {
          withoutVerb = segments.slice(0, -1);
          withoutVerb.push(last.slice(0, colon));
          const entry = find(verbRoot, keysOf(withoutVerb), 0, httpMethod);
          if (entry !== undefined) {
            return { kind: "found", entry, segments: withoutVerb };
          }
        }
      }
      // A ":" that is no verb of any route is part of the last segment (e.g. a resource id).
      const plainRoot = roots.get("");
      const keys = keysOf(segments);
      if (plainRoot !== undefined) {
        const entry = find(plainRoot, keys, 0, httpMethod);
        if (entry !== undefined) {
          return { kind: "found", entry, segments };
        }
      }
      const allowed = new Set<string>();
      if (verbRoot !== undefined && withoutVerb !== undefined) {
        collectMethods(verbRoot, keysOf(withoutVerb), 0, allowed);
      }
      if (plainRoot !== undefined) {
        collectMethods(plainRoot, keys, 0, allowed);
      }
      return allowed.size > 0 ? { kind: "method-not-allowed", allowed: [...allowed].sort() } : notFound;
    },
  };
}

const notFound = { kind: "not-found" } as const;

function newNode<T>(): RouteNode<T> {
  return { literals: new Map(), wildcard: undefined, deepWildcard: undefined, entries: new Map() };
}

function methodName(route: HttpRoute): string {
  return `${route.method.parent.typeName}.${route.method.name}`;
}

/**
 * Splits "/a/b" into ["a", "b"], and "/" into no segments at all (which `**` matches); undefined
 * for a path that does not start with "/".
 */
function splitPath(path: string): string[] | undefined {
  if (path.charCodeAt(0) !== 47 /* "/" */) {
    return undefined;
  }
  return path.length === 1 ? [] : path.slice(1).split("/");
}

/** Whether `path` has more than `max` segments, read only as far as that takes. */
function hasMoreSegments(path: string, max: number): boolean {
  let slash = -1;
  for (let count = 0; count <= max; count++) {
    slash = path.indexOf("/", slash + 1);
    if (slash < 0) return false;
  }
  return true;
}

/** The segments as compared with literals: percent-decoded (http.proto matches decoded paths). */
function keysOf(segments: readonly string[]): readonly string[] {
  let keys: string[] | undefined;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as string;
    if (segment.includes("%")) {
      keys ??= segments.slice();
      try {
        keys[i] = decodeURIComponent(segment);
      } catch {
        // Malformed percent-encoding matches no literal; a variable capturing it reports it.
      }
    }
  }
  return keys ?? segments;
}

function find<T>(
  node: RouteNode<T>,
  keys: readonly string[],
  index: number,
  httpMethod: string,
): T | undefined {
  if (index === keys.length) {
    // `**` matches zero segments too.
    return node.entries.get(httpMethod) ?? node.deepWildcard?.entries.get(httpMethod);
  }
  const key = keys[index] as string;
  const literal = node.literals.get(key);
  if (literal !== undefined) {
    const entry = find(literal, keys, index + 1, httpMethod);
    if (entry !== undefined) {
      return entry;
    }
  }
  if (key === "") {
    // An empty segment ("//", a trailing "/") matches nothing but a literal.
    return undefined;
  }
  if (node.wildcard !== undefined) {
    const entry = find(node.wildcard, keys, index + 1, httpMethod);
    if (entry !== undefined) {
      return entry;
    }
  }
  if (node.deepWildcard !== undefined && !hasEmpty(keys, index)) {
    return node.deepWildcard.entries.get(httpMethod);
  }
  return undefined;
}

function collectMethods<T>(
  node: RouteNode<T>,
  keys: readonly string[],
  index: number,
  into: Set<string>,
): void {
  if (index === keys.length) {
    for (const method of node.entries.keys()) into.add(method);
    for (const method of node.deepWildcard?.entries.keys() ?? []) into.add(method);
    return;
  }
  const key = keys[index] as string;
  const literal = node.literals.get(key);
  if (literal !== undefined) {
    collectMethods(literal, keys, index + 1, into);
  }
  if (key === "") {
    return;
  }
  if (node.wildcard !== undefined) {
    collectMethods(node.wildcard, keys, index + 1, into);
  }
  if (node.deepWildcard !== undefined && !hasEmpty(keys, index)) {
    for (const method of node.deepWildcard.entries.keys()) into.add(method);
  }
}

function hasEmpty(keys: readonly string[], from: number): boolean {
  for (let i = from; i < keys.length; i++) {
    if (keys[i] === "") return true;
  }
  return false;
}

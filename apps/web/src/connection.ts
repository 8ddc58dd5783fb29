/** The wire protocol the app speaks to the API. */
export type Protocol = "connect" | "grpc-web";

/** Where the API is, how to talk to it, and the bearer token to send. */
export interface Connection {
  /** Base URL of the API; empty: this page's origin. */
  readonly apiUrl: string;
  readonly protocol: Protocol;
  readonly token: string;
}

/** Key of the connection in sessionStorage: it lives as long as the browser tab. */
export const STORAGE_KEY = "folio.connection";

const EMPTY: Connection = { apiUrl: "", protocol: "connect", token: "" };

/** The connection kept in `storage`, or an empty one. */
export function loadConnection(storage: Pick<Storage, "getItem">): Connection {
  try {
    const stored: unknown = JSON.parse(storage.getItem(STORAGE_KEY) ?? "null");
    if (stored === null || typeof stored !== "object") return EMPTY;
    const { apiUrl, protocol, token } = stored as Record<string, unknown>;
    return {
      apiUrl: typeof apiUrl === "string" ? apiUrl : "",
      protocol: protocol === "grpc-web" ? "grpc-web" : "connect",
      token: typeof token === "string" ? token : "",
    };
  } catch {
    return EMPTY;
  }
}

/** Keeps the connection in `storage`. */
export function saveConnection(storage: Pick<Storage, "setItem">, connection: Connection): void {
  storage.setItem(STORAGE_KEY, JSON.stringify(connection));
}

/**
 * Moves a token given in the address's fragment (`#token=...`) into `storage` and removes the
 * fragment from the address bar, so it is neither bookmarked nor shared. The fragment never
 * reaches a server. A link must not swap the tab's token unnoticed (it could sign the tab in to
 * someone else's organisation), so when another token is stored, `mayReplace` decides. Returns
 * whether the stored token changed.
 */
export function takeTokenFromFragment(
  location: Pick<Location, "hash" | "pathname" | "search">,
  history: Pick<History, "replaceState">,
  storage: Pick<Storage, "getItem" | "setItem">,
  mayReplace: (stored: string, offered: string) => boolean,
): boolean {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const token = params.get("token")?.trim();
  if (token === undefined) return false;
  history.replaceState(null, "", `${location.pathname}${location.search}`);
  const stored = loadConnection(storage);
  if (token === "" || token === stored.token) return false;
  if (stored.token !== "" && !mayReplace(stored.token, token)) return false;
  saveConnection(storage, { ...stored, token });
  return true;
}

/** The API's base URL: the one configured, else the page's own origin. */
export function apiBaseUrl(connection: Connection, pageOrigin: string): string {
  return (connection.apiUrl.trim() || pageOrigin).replace(/\/+$/, "");
}

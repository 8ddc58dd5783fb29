import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { apiBaseUrl, type Connection, loadConnection, saveConnection } from "./connection.js";
import { summariseToken, type TokenSummary } from "./token.js";
import { takeLinkedToken } from "./token-link.js";

interface ConnectionState {
  readonly connection: Connection;
  /** The API's base URL in effect (the page's origin when none is set). */
  readonly baseUrl: string;
  readonly token: TokenSummary | undefined;
  update(connection: Connection): void;
}

const ConnectionContext = createContext<ConnectionState | undefined>(undefined);

/** Holds the connection settings of this tab (kept in sessionStorage) for the whole app. */
export function ConnectionProvider({ children }: { children: ReactNode }) {
  const [connection, setConnection] = useState(() => loadConnection(window.sessionStorage));
  const update = useCallback((next: Connection) => {
    saveConnection(window.sessionStorage, next);
    setConnection(next);
  }, []);
  // A #token= link opened in a tab already showing the app changes only the fragment: no new page
  // load, so main.tsx does not see it.
  useEffect(() => {
    const onHashChange = () => {
      if (takeLinkedToken()) setConnection(loadConnection(window.sessionStorage));
    };
    window.addEventListener("hashchange", onHashChange);
    return () => window.removeEventListener("hashchange", onHashChange);
  }, []);
  const value = useMemo(
    () => ({
      connection,
      baseUrl: apiBaseUrl(connection, window.location.origin),
      token: connection.token === "" ? undefined : summariseToken(connection.token),
      update,
    }),
    [connection, update],
  );
  return <ConnectionContext.Provider value={value}>{children}</ConnectionContext.Provider>;
}

/** The connection settings and a way to change them. */
export function useConnection(): ConnectionState {
  const state = useContext(ConnectionContext);
  if (state === undefined) throw new Error("useConnection outside ConnectionProvider");
  return state;
}

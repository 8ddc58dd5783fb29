import { TransportProvider } from "@connectrpc/connect-query";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useEffect, useMemo, useRef } from "react";
import { ConnectionProvider, useConnection } from "./connection-context.js";
import { isTransient } from "./errors.js";
import { Link, usePathname } from "./router.js";
import { ROUTES, type RouteName, routeOf } from "./routes.js";
import { createTransport } from "./transport.js";
import { ConnectionView } from "./views/connection.js";
import { FoldersView } from "./views/folders/folders-view.js";
import { NewFolderView } from "./views/new-folder.js";
import { ProjectsView } from "./views/projects.js";

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (401, 403, 400, 429) is shown at once; only a network hiccup is tried again.
      retry: (failures, error) => failures < 1 && isTransient(error),
      refetchOnWindowFocus: false,
      staleTime: 30_000,
    },
  },
});

const VIEWS: Record<RouteName, { title: string; render: () => ReactNode }> = {
  projects: { title: "Projects", render: () => <ProjectsView /> },
  folders: { title: "Folders", render: () => <FoldersView /> },
  newFolder: { title: "New folder", render: () => <NewFolderView /> },
  connection: { title: "Connection", render: () => <ConnectionView /> },
};

/** The Folio web app. */
export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <ConnectionProvider>
        <ConnectedApp />
      </ConnectionProvider>
    </QueryClientProvider>
  );
}

function ConnectedApp() {
  const { connection, baseUrl } = useConnection();
  // A new transport (new token, protocol or address) is a new query key: lists are fetched again.
  const transport = useMemo(
    () => createTransport(connection.protocol, baseUrl, connection.token),
    [connection.protocol, baseUrl, connection.token],
  );
  return (
    <TransportProvider transport={transport}>
      <Layout />
    </TransportProvider>
  );
}

function Layout() {
  const path = usePathname();
  const route = routeOf(path);
  const main = useRef<HTMLElement>(null);
  const firstRender = useRef(true);

  useEffect(() => {
    document.title = route ? `${VIEWS[route].title} · Folio` : "Not found · Folio";
    // After a navigation (to another view, or to another folder of the same one), the focus goes
    // to the new page's heading, as a page load would put it.
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    main.current?.querySelector<HTMLElement>("h1")?.focus();
  }, [route, path]);

  return (
    <>
      {/* The browser focuses #main itself: it is focusable (tabIndex -1). */}
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar__inner">
          <Link href={ROUTES.projects} className="brand">
            <img src="/favicon.svg" alt="" width="28" height="28" />
            <span>Folio</span>
          </Link>
          <nav aria-label="Main">
            <ul className="nav">
              <NavLink route="projects" current={route}>
                Projects
              </NavLink>
              <NavLink route="folders" current={route}>
                Folders
              </NavLink>
              <NavLink route="newFolder" current={route}>
                New folder
              </NavLink>
              <NavLink route="connection" current={route}>
                Connection
              </NavLink>
            </ul>
          </nav>
          <ConnectionBadge />
        </div>
      </header>
      <main id="main" ref={main} tabIndex={-1} className="main">
        {route ? (
          VIEWS[route].render()
        ) : (
          <section className="view-header">
            <h1 tabIndex={-1}>Page not found</h1>
            <p className="lede">
              There is nothing at {path}. Go to the <Link href={ROUTES.projects}>projects</Link>.
            </p>
          </section>
        )}
      </main>
    </>
  );
}

function NavLink({
  route,
  current,
  children,
}: {
  route: RouteName;
  current: RouteName | undefined;
  children: ReactNode;
}) {
  return (
    <li>
      <Link href={ROUTES[route]} className="nav__link" aria-current={route === current ? "page" : undefined}>
        {children}
      </Link>
    </li>
  );
}

/**
 * Which protocol and organisation the tab uses, at a glance: a link can put another
 * organisation's token into the tab, and this is where the user sees whose data they are looking at.
 */
function ConnectionBadge() {
  const { connection, token } = useConnection();
  if (connection.token === "") {
    return (
      <Link href={ROUTES.connection} className="badge badge--warning">
        Not connected
      </Link>
    );
  }
  const expired = token?.expiresAt !== undefined && token.expiresAt.getTime() <= Date.now();
  const org = token?.orgId ? `org ${token.orgId.slice(0, 8)}…${token.orgId.slice(-4)}` : "token set";
  return (
    <Link
      href={ROUTES.connection}
      className={`badge${expired ? " badge--warning" : ""}`}
      title={token?.orgId ? `Signed in to organisation ${token.orgId}` : undefined}
    >
      <span className="badge__protocol">{connection.protocol === "grpc-web" ? "gRPC-Web" : "Connect"}</span>
      <span>{expired ? "token expired" : org}</span>
    </Link>
  );
}

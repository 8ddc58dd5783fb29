import { useInfiniteQuery } from "@connectrpc/connect-query";
import { ListProjectsRequestSchema, type Project, ProjectService } from "@folio/proto";
import { useEffect, useState } from "react";
import { ErrorSummary, TextField } from "../components.js";
import { useConnection } from "../connection-context.js";
import { describeError } from "../errors.js";
import { checkRequest } from "../form-checks.js";
import { Link } from "../router.js";
import { ROUTES } from "../routes.js";

const PAGE_SIZES = [10, 25, 50, 100] as const;

interface Filters {
  readonly namePrefix: string;
  readonly city: string;
  readonly country: string;
  readonly postalCode: string;
}

const NO_FILTERS: Filters = { namePrefix: "", city: "", country: "", postalCode: "" };

/** The control of each request field, for the error summary's links. */
const FIELD_IDS = {
  namePrefix: "filter-name",
  city: "filter-city",
  country: "filter-country",
  postalCode: "filter-postal-code",
  pageSize: "page-size",
};

/** The list's filters and page size, kept while the other views are open (not across reloads). */
let remembered: { filters: Filters; pageSize: number } = { filters: NO_FILTERS, pageSize: 25 };

/** The organisation's projects in name order, filtered, a page at a time ("Load more"). */
export function ProjectsView() {
  const { connection, baseUrl, token } = useConnection();
  const [filters, setFilters] = useState<Filters>(remembered.filters);
  const [pageSize, setPageSize] = useState<number>(remembered.pageSize);
  useEffect(() => {
    remembered = { filters, pageSize };
  }, [filters, pageSize]);
  // Typing refines the list once the typist pauses, not on every key.
  const applied = useDebounced(filters, 300);
  const connected = connection.token !== "";
  // Filters the rules refuse are not sent: the list says why instead.
  const checked = checkRequest(ListProjectsRequestSchema, { ...trimmed(applied), pageSize });

  const query = useInfiniteQuery(
    ProjectService.method.listProjects,
    { ...trimmed(applied), pageSize, pageToken: "" },
    {
      pageParamKey: "pageToken",
      getNextPageParam: (page) => page.nextPageToken || undefined,
      enabled: connected && checked === undefined,
    },
  );
  const projects = query.data?.pages.flatMap((page) => page.projects) ?? [];
  const report =
    checked ??
    (query.error
      ? describeError(query.error, {
          method: ProjectService.method.listProjects,
          apiUrl: baseUrl,
          pageOrigin: window.location.origin,
          tokenExpiresAt: token?.expiresAt,
        })
      : undefined);
  const filtered = Object.values(trimmed(applied)).some((v) => v !== undefined);
  const setFilter = (key: keyof Filters) => (event: { target: { value: string } }) =>
    setFilters((current) => ({ ...current, [key]: event.target.value }));

  return (
    <>
      <header className="view-header">
        <h1 tabIndex={-1}>Projects</h1>
        <p className="lede">Your organisation's projects, in name order.</p>
      </header>

      {!connected ? (
        <section className="card empty-state" aria-labelledby="connect-first">
          <h2 id="connect-first">Connect to see your projects</h2>
          <p>
            Paste an access token on the <Link href={ROUTES.connection}>Connection</Link> page, or open this
            app from the link the server prints in development mode.
          </p>
        </section>
      ) : (
        <>
          <search className="card filters" aria-label="Filter projects">
            <form onSubmit={(event) => event.preventDefault()} className="filters__form">
              <TextField
                id={FIELD_IDS.namePrefix}
                label="Name starts with"
                value={filters.namePrefix}
                onChange={setFilter("namePrefix")}
                error={report?.fields.namePrefix}
                autoComplete="off"
              />
              <TextField
                id={FIELD_IDS.city}
                label="City"
                value={filters.city}
                onChange={setFilter("city")}
                error={report?.fields.city}
                autoComplete="off"
              />
              <TextField
                id={FIELD_IDS.country}
                label="Country"
                value={filters.country}
                onChange={setFilter("country")}
                error={report?.fields.country}
                placeholder="e.g. DE"
                autoComplete="off"
                className="field--narrow"
              />
              <TextField
                id={FIELD_IDS.postalCode}
                label="Postal code"
                value={filters.postalCode}
                onChange={setFilter("postalCode")}
                error={report?.fields.postalCode}
                autoComplete="off"
                className="field--narrow"
              />
              <div className="field field--narrow">
                <label htmlFor={FIELD_IDS.pageSize}>Per page</label>
                <select
                  id={FIELD_IDS.pageSize}
                  value={pageSize}
                  onChange={(event) => setPageSize(Number(event.target.value))}
                >
                  {PAGE_SIZES.map((size) => (
                    <option key={size} value={size}>
                      {size}
                    </option>
                  ))}
                </select>
              </div>
              <button
                type="button"
                className="button button--quiet filters__clear"
                onClick={() => setFilters(NO_FILTERS)}
                disabled={Object.values(filters).every((v) => v === "")}
              >
                Clear filters
              </button>
            </form>
          </search>

          {report && <ErrorSummary report={report} fieldIds={FIELD_IDS} />}

          <section
            className="card table-card"
            aria-labelledby="projects-caption"
            aria-busy={query.isFetching}
          >
            <table className="projects">
              <caption id="projects-caption" className="visually-hidden">
                Projects{filtered ? " matching the filters" : ""}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Address</th>
                  <th scope="col">City</th>
                  <th scope="col">Country</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {projects.map((project) => (
                  <ProjectRow key={project.id} project={project} />
                ))}
              </tbody>
            </table>
            {query.isPending && !query.isError && <p className="table-note">Loading projects…</p>}
            {query.isSuccess && projects.length === 0 && (
              <p className="table-note">
                {filtered ? "No project matches these filters." : "Your organisation has no projects yet."}
              </p>
            )}
            <div className="table-footer">
              <p role="status" className="count">
                {query.isSuccess &&
                  `${projects.length} ${projects.length === 1 ? "project" : "projects"}${query.hasNextPage ? ", more to load" : ""}`}
              </p>
              {query.hasNextPage && (
                <button
                  type="button"
                  className="button"
                  onClick={() => void query.fetchNextPage()}
                  disabled={query.isFetchingNextPage}
                >
                  {query.isFetchingNextPage ? "Loading…" : "Load more"}
                </button>
              )}
            </div>
          </section>
        </>
      )}
    </>
  );
}

function ProjectRow({ project }: { project: Project }) {
  const street = [project.street, project.houseNumber].filter(Boolean).join(" ");
  const city = [project.postalCode, project.city].filter(Boolean).join(" ");
  const created = project.createdAt
    ? new Date(Number(project.createdAt.seconds) * 1000 + project.createdAt.nanos / 1e6)
    : undefined;
  return (
    <tr>
      <th scope="row">{project.name}</th>
      <td>{street || <span className="muted">—</span>}</td>
      <td>{city || <span className="muted">—</span>}</td>
      <td>{project.country || <span className="muted">—</span>}</td>
      <td>
        {created ? (
          <time dateTime={created.toISOString()}>
            {created.toLocaleDateString(undefined, { dateStyle: "medium" })}
          </time>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
    </tr>
  );
}

/** The filters with blanks trimmed, and empty ones left out of the request. */
function trimmed(filters: Filters): Partial<Filters> {
  return Object.fromEntries(
    Object.entries(filters)
      .map(([key, value]) => [key, value.trim()])
      .filter(([, value]) => value !== ""),
  );
}

/** `value`, once it has stopped changing for `delayMs`. */
function useDebounced<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), delayMs);
    return () => window.clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

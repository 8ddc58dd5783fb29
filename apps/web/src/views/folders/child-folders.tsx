import { useInfiniteQuery } from "@connectrpc/connect-query";
import { FolderService } from "@folio/proto";
import { ErrorSummary } from "../../components.js";
import { FolderIcon } from "../../folder-icon.js";
import { Link } from "../../router.js";
import { folderPath } from "../../routes.js";
import { useErrorReport } from "../../use-error-report.js";

/** Folders per page: a screenful; "Load more" asks for the next. */
export const FOLDER_PAGE_SIZE = 25;

/** The folders in a folder (or the top-level ones), in name order, a page at a time. */
export function ChildFolders({ parentId, title }: { parentId: string | undefined; title: string }) {
  const query = useInfiniteQuery(
    FolderService.method.listFolders,
    { ...(parentId === undefined ? {} : { parentId }), pageSize: FOLDER_PAGE_SIZE, pageToken: "" },
    { pageParamKey: "pageToken", getNextPageParam: (page) => page.nextPageToken || undefined },
  );
  const report = useErrorReport(query.error, FolderService.method.listFolders);
  const folders = query.data?.pages.flatMap((page) => page.folders) ?? [];

  return (
    <section
      className="card child-folders"
      aria-labelledby="child-folders-title"
      aria-busy={query.isFetching}
    >
      <h2 id="child-folders-title">{title}</h2>
      {report && <ErrorSummary report={report} />}
      {folders.length > 0 && (
        <ul className="folder-list" aria-labelledby="child-folders-title">
          {folders.map((folder) => (
            <li key={folder.id} className="folder-list__item">
              <FolderIcon color={folder.color} />
              <Link href={folderPath(folder.id)} className="folder-list__name">
                {folder.name}
              </Link>
            </li>
          ))}
        </ul>
      )}
      {query.isPending && !query.isError && <p className="muted">Loading folders…</p>}
      {query.isSuccess && folders.length === 0 && (
        <p className="muted">
          {parentId === undefined ? "Your organisation has no folders yet." : "This folder holds no folders."}
        </p>
      )}
      <div className="list-footer">
        <p role="status" className="count">
          {query.isSuccess &&
            `${folders.length} ${folders.length === 1 ? "folder" : "folders"}${query.hasNextPage ? ", more to load" : ""}`}
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
  );
}

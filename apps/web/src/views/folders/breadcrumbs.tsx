import { useQuery } from "@connectrpc/connect-query";
import { FolderService } from "@folio/proto";
import { Link } from "../../router.js";
import { folderPath, ROUTES } from "../../routes.js";

/**
 * Deeper than any real tree: the server refuses cycles, but a path that never reached the top
 * must not make the page ask forever.
 */
const MAX_DEPTH = 100;

/**
 * The way from the top level down to the open folder. Built from GetFolder's `parentId` of each
 * folder in turn, so a shared link or a reload shows the whole path; a folder reached by
 * browsing is already in the query cache, and costs no call.
 */
export function Breadcrumbs({ folderId }: { folderId: string | undefined }) {
  return (
    <nav aria-label="Breadcrumb" className="breadcrumbs">
      <ol>
        <li>
          {folderId === undefined ? (
            <span aria-current="page">Folders</span>
          ) : (
            <Link href={ROUTES.folders}>Folders</Link>
          )}
        </li>
        {folderId !== undefined && <Crumb id={folderId} current depth={0} />}
      </ol>
    </nav>
  );
}

/** One folder of the path, after the crumbs of its ancestors. */
function Crumb({ id, current, depth }: { id: string; current: boolean; depth: number }) {
  const { data, isError } = useQuery(FolderService.method.getFolder, { id });
  const folder = data?.folder;
  const parentId = folder?.parentId;
  return (
    <>
      {parentId !== undefined && depth < MAX_DEPTH && (
        <Crumb id={parentId} current={false} depth={depth + 1} />
      )}
      <li>
        {folder === undefined ? (
          <span className="muted" aria-current={current ? "page" : undefined}>
            {isError ? "Unknown folder" : "…"}
          </span>
        ) : current ? (
          <span aria-current="page">{folder.name}</span>
        ) : (
          <Link href={folderPath(folder.id)}>{folder.name}</Link>
        )}
      </li>
    </>
  );
}

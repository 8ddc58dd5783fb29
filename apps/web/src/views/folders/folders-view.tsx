import { useQuery } from "@connectrpc/connect-query";
import { FolderService } from "@folio/proto";
import { ErrorSummary } from "../../components.js";
import { useConnection } from "../../connection-context.js";
import { Link, usePathname } from "../../router.js";
import { folderIdOf, ROUTES } from "../../routes.js";
import { useErrorReport } from "../../use-error-report.js";
import { Breadcrumbs } from "./breadcrumbs.js";
import { ChildFolders } from "./child-folders.js";
import { CreateFolderForm } from "./create-folder-form.js";
import { FolderDetails } from "./folder-details.js";

/** The folders of the organisation: the top level at `/folders`, one folder at `/folders/<id>`. */
export function FoldersView() {
  const { connection } = useConnection();
  const folderId = folderIdOf(usePathname());
  if (connection.token === "") return <NotConnected />;
  // Keyed: another folder starts with an empty form.
  return folderId === undefined ? <TopLevel /> : <OpenFolder key={folderId} id={folderId} />;
}

function TopLevel() {
  return (
    <>
      <header className="view-header">
        <Breadcrumbs folderId={undefined} />
        <h1 tabIndex={-1}>Folders</h1>
        <p className="lede">Your organisation's top-level folders, in name order.</p>
      </header>
      <div className="columns">
        <ChildFolders parentId={undefined} title="Top-level folders" />
        <CreateFolderForm parentId={undefined} where="at the top level" />
      </div>
    </>
  );
}

/** One folder: its place, its details, its folders, and a form to create one in it. */
function OpenFolder({ id }: { id: string }) {
  const query = useQuery(FolderService.method.getFolder, { id });
  const folder = query.data?.folder;
  const report = useErrorReport(query.error, FolderService.method.getFolder);
  return (
    <>
      <header className="view-header">
        <Breadcrumbs folderId={id} />
        <h1 tabIndex={-1}>{folder?.name ?? "Folder"}</h1>
      </header>
      {report ? (
        <>
          <ErrorSummary report={report} />
          <p>
            Go back to the <Link href={ROUTES.folders}>top-level folders</Link>.
          </p>
        </>
      ) : (
        <div className="columns">
          <ChildFolders parentId={id} title="Folders in this folder" />
          <div className="stack">
            {folder && <FolderDetails folder={folder} />}
            <CreateFolderForm parentId={id} where={folder ? `in “${folder.name}”` : "in this folder"} />
          </div>
        </div>
      )}
    </>
  );
}

function NotConnected() {
  return (
    <>
      <header className="view-header">
        <h1 tabIndex={-1}>Folders</h1>
      </header>
      <section className="card empty-state" aria-labelledby="connect-first">
        <h2 id="connect-first">Connect to see your folders</h2>
        <p>
          Paste an access token on the <Link href={ROUTES.connection}>Connection</Link> page, or open this app
          from the link the server prints in development mode.
        </p>
      </section>
    </>
  );
}

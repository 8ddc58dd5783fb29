import type { Folder } from "@folio/proto";
import { FolderIcon } from "../../folder-icon.js";

/** What GetFolder tells of a folder besides its name (the heading) and its place (the breadcrumbs). */
export function FolderDetails({ folder }: { folder: Folder }) {
  const created = folder.createdAt
    ? new Date(Number(folder.createdAt.seconds) * 1000 + folder.createdAt.nanos / 1e6)
    : undefined;
  return (
    <section className="card folder-details" aria-labelledby="folder-details-title">
      <h2 id="folder-details-title">Details</h2>
      <dl className="details">
        <dt>Id</dt>
        <dd>
          <code>{folder.id}</code>
        </dd>
        <dt>Colour</dt>
        <dd>
          {folder.color === undefined ? (
            <span className="muted">none</span>
          ) : (
            <span className="colour-value">
              <FolderIcon color={folder.color} />
              <code>{folder.color}</code>
            </span>
          )}
        </dd>
        <dt>Visibility</dt>
        <dd>{folder.visibility === "private" ? "Private to your organisation" : folder.visibility}</dd>
        <dt>Created</dt>
        <dd>
          {created ? (
            <time dateTime={created.toISOString()}>
              {created.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })}
            </time>
          ) : (
            <span className="muted">—</span>
          )}
        </dd>
        <dt>Created by</dt>
        <dd>
          <code>{folder.createdByUserId}</code>
        </dd>
      </dl>
    </section>
  );
}

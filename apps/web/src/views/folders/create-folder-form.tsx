import { createConnectQueryKey, useMutation } from "@connectrpc/connect-query";
import { CreateFolderRequestSchema, FolderService } from "@folio/proto";
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ErrorSummary, TextField } from "../../components.js";
import { checkRequest } from "../../form-checks.js";
import { useRequestIds } from "../../request-id.js";
import { Link } from "../../router.js";
import { folderPath } from "../../routes.js";
import { useErrorReport } from "../../use-error-report.js";

/** The control of each request field, for the error summary's links. */
const FIELD_IDS = { name: "child-folder-name" };

/**
 * Creates a folder in the open one (at the top level when none is open). The listing is asked
 * for again once it is created, so the new folder appears in it.
 */
export function CreateFolderForm({ parentId, where }: { parentId: string | undefined; where: string }) {
  const queryClient = useQueryClient();
  const requestIds = useRequestIds();
  const [name, setName] = useState("");
  const [submitCount, setSubmitCount] = useState(0);
  // What the browser's check of the rules found on the last submit; nothing was sent then.
  const [checked, setChecked] = useState<ReturnType<typeof checkRequest>>(undefined);
  const mutation = useMutation(FolderService.method.createFolder, {
    onSuccess: async () => {
      requestIds.forget();
      setName("");
      // Every listing of folders: only those on screen are fetched again, the others are marked
      // stale, and no key of this parent's listing has to be rebuilt to match.
      await queryClient.invalidateQueries({
        queryKey: createConnectQueryKey({ schema: FolderService.method.listFolders, cardinality: undefined }),
      });
    },
  });
  const serverReport = useErrorReport(mutation.error, FolderService.method.createFolder);
  const report = checked ?? serverReport;
  const created = mutation.isSuccess ? mutation.data.folder : undefined;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const request = { name, ...(parentId === undefined ? {} : { parentId }) };
    const requestId = requestIds.keyFor(request);
    setSubmitCount((n) => n + 1);
    const refused = checkRequest(CreateFolderRequestSchema, { ...request, requestId });
    setChecked(refused);
    if (refused !== undefined) {
      mutation.reset();
      return;
    }
    mutation.mutate({ ...request, requestId });
  };

  return (
    <form className="card form" onSubmit={submit} noValidate aria-labelledby="create-folder-title">
      <h2 id="create-folder-title">New folder {where}</h2>
      {report && <ErrorSummary key={submitCount} report={report} fieldIds={FIELD_IDS} focus />}
      {created && (
        <p className="success" role="status">
          Folder “<Link href={folderPath(created.id)}>{created.name}</Link>” created.
        </p>
      )}
      <TextField
        id={FIELD_IDS.name}
        label="Folder name"
        value={name}
        onChange={(event) => setName(event.target.value)}
        error={report?.fields.name}
        autoComplete="off"
        maxLength={300}
      />
      <div className="form__actions">
        <button type="submit" className="button button--primary" disabled={mutation.isPending}>
          {mutation.isPending ? "Creating…" : "Create folder"}
        </button>
      </div>
    </form>
  );
}

import { useMutation } from "@connectrpc/connect-query";
import { CreateFolderRequestSchema, type Folder, FolderService } from "@folio/proto";
import { type FormEvent, useState } from "react";
import { describedBy, ErrorSummary, FieldError, TextField, useSecondsLeft } from "../components.js";
import { useConnection } from "../connection-context.js";
import { describeError, type ErrorReport } from "../errors.js";
import { FolderIcon } from "../folder-icon.js";
import { checkRequest } from "../form-checks.js";
import { useRequestIds } from "../request-id.js";
import { Link } from "../router.js";
import { ROUTES } from "../routes.js";

/** Colours offered with one click; any other `#rrggbb` can be typed or picked. */
export const PRESET_COLOURS = [
  { name: "Blue", value: "#1e6fd9" },
  { name: "Teal", value: "#0f8b8d" },
  { name: "Green", value: "#2f8f46" },
  { name: "Amber", value: "#c98a06" },
  { name: "Orange", value: "#d9621e" },
  { name: "Red", value: "#d0353f" },
  { name: "Purple", value: "#7b4fd6" },
  { name: "Slate", value: "#5a6b7d" },
] as const;

/** The control of each request field, for the error summary's links and the field messages. */
const FIELD_IDS = {
  name: "folder-name",
  color: "folder-colour-custom",
  parentId: "folder-parent",
};

type ColourChoice = { kind: "none" } | { kind: "preset"; value: string } | { kind: "custom"; value: string };

/** Creates a folder: a name, a colour, an optional parent; explains every refusal next to its field. */
export function NewFolderView() {
  const { connection, baseUrl, token } = useConnection();
  const [name, setName] = useState("");
  const [colour, setColour] = useState<ColourChoice>({ kind: "none" });
  const [parentId, setParentId] = useState("");
  const [created, setCreated] = useState<Folder[]>([]);
  const [submitCount, setSubmitCount] = useState(0);
  // What the browser's check of the rules found on the last submit; nothing was sent then.
  const [checked, setChecked] = useState<ErrorReport | undefined>(undefined);
  const requestIds = useRequestIds();

  const [retryAt, setRetryAt] = useState<number | undefined>(undefined);
  const errorContext = {
    method: FolderService.method.createFolder,
    apiUrl: baseUrl,
    pageOrigin: window.location.origin,
    tokenExpiresAt: token?.expiresAt,
  };

  const mutation = useMutation(FolderService.method.createFolder, {
    onSuccess: (response) => {
      if (response.folder) setCreated((list) => [response.folder as Folder, ...list]);
      requestIds.forget();
      setName("");
    },
    onError: (error) => {
      const wait = describeError(error, errorContext).retryAfterSeconds;
      setRetryAt(wait === undefined ? undefined : Date.now() + wait * 1000);
    },
  });
  const report = checked ?? (mutation.error ? describeError(mutation.error, errorContext) : undefined);
  const secondsLeft = useSecondsLeft(retryAt);

  const color = colour.kind === "none" ? undefined : colour.value.trim();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const request = {
      name,
      ...(color === undefined ? {} : { color }),
      ...(parentId.trim() === "" ? {} : { parentId: parentId.trim() }),
    };
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
  const justCreated = mutation.isSuccess ? mutation.data.folder : undefined;

  return (
    <>
      <header className="view-header">
        <h1 tabIndex={-1}>New folder</h1>
        <p className="lede">Folders hold your organisation's documents; nest them by naming a parent.</p>
      </header>

      {connection.token === "" && (
        <p className="notice">
          You are not connected yet: paste an access token on the{" "}
          <Link href={ROUTES.connection}>Connection</Link> page first.
        </p>
      )}

      <div className="columns">
        <form className="card form" onSubmit={submit} noValidate aria-labelledby="new-folder-title">
          <h2 id="new-folder-title" className="visually-hidden">
            Folder details
          </h2>
          {report && <ErrorSummary key={submitCount} report={report} fieldIds={FIELD_IDS} focus />}
          {justCreated && (
            <p className="success" role="status">
              Folder “{justCreated.name}” created.
            </p>
          )}

          <TextField
            id={FIELD_IDS.name}
            label="Name"
            value={name}
            onChange={(event) => setName(event.target.value)}
            error={report?.fields.name}
            autoComplete="off"
            maxLength={300}
          />

          <ColourPicker value={colour} onChange={setColour} error={report?.fields.color} />

          <TextField
            id={FIELD_IDS.parentId}
            label="Parent folder id (optional)"
            hint="Leave empty for a top-level folder."
            value={parentId}
            onChange={(event) => setParentId(event.target.value)}
            error={report?.fields.parentId}
            autoComplete="off"
            spellCheck={false}
            className="field--mono"
            placeholder="00000000-0000-0000-0000-000000000000"
          />

          <div className="form__actions">
            <button
              type="submit"
              className="button button--primary"
              disabled={mutation.isPending || secondsLeft > 0}
            >
              {mutation.isPending
                ? "Creating…"
                : secondsLeft > 0
                  ? `Try again in ${secondsLeft} s`
                  : "Create folder"}
            </button>
          </div>
        </form>

        <section className="card created" aria-labelledby="created-title">
          <h2 id="created-title">Created in this tab</h2>
          {created.length === 0 ? (
            <p className="muted">Folders you create appear here, with their ids to use as parents.</p>
          ) : (
            <ul className="folder-list">
              {created.map((folder) => (
                <li key={folder.id} className="folder-list__item">
                  <FolderIcon color={folder.color} />
                  <div className="folder-list__text">
                    <span className="folder-list__name">{folder.name}</span>
                    <code className="folder-list__id">{folder.id}</code>
                  </div>
                  <button
                    type="button"
                    className="button button--small button--quiet"
                    onClick={() => {
                      setParentId(folder.id);
                      document.getElementById(FIELD_IDS.name)?.focus();
                    }}
                  >
                    Use as parent<span className="visually-hidden">: {folder.name}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </>
  );
}

/** Colour choice: none, one of the presets, or any colour typed as hex or picked. */
function ColourPicker({
  value,
  onChange,
  error,
}: {
  value: ColourChoice;
  onChange: (choice: ColourChoice) => void;
  error: string | undefined;
}) {
  const customValue = value.kind === "custom" ? value.value : "";
  const pickerValue = /^#[0-9a-f]{6}$/i.test(customValue) ? customValue : "#1e6fd9";
  return (
    <fieldset
      className={`field colour-picker${error ? " field--invalid" : ""}`}
      aria-describedby={error ? "folder-colour-error" : undefined}
    >
      <legend>Colour</legend>
      <div className="swatches">
        <label className="swatch swatch--none">
          <input
            type="radio"
            name="colour"
            checked={value.kind === "none"}
            onChange={() => onChange({ kind: "none" })}
          />
          <span className="swatch__chip" aria-hidden="true" />
          <span className="visually-hidden">No colour</span>
        </label>
        {PRESET_COLOURS.map((preset) => (
          <label key={preset.value} className="swatch" title={preset.name}>
            <input
              type="radio"
              name="colour"
              value={preset.value}
              checked={value.kind === "preset" && value.value === preset.value}
              onChange={() => onChange({ kind: "preset", value: preset.value })}
            />
            <span className="swatch__chip" style={{ backgroundColor: preset.value }} aria-hidden="true" />
            <span className="visually-hidden">{preset.name}</span>
          </label>
        ))}
        <label className="swatch swatch--custom">
          <input
            type="radio"
            name="colour"
            checked={value.kind === "custom"}
            onChange={() => onChange({ kind: "custom", value: customValue || pickerValue })}
          />
          <span className="swatch__label">Custom</span>
        </label>
      </div>
      {value.kind === "custom" && (
        <div className="custom-colour">
          <label htmlFor="folder-colour-custom">Hex code</label>
          <input
            id="folder-colour-custom"
            className="custom-colour__hex"
            value={customValue}
            onChange={(event) => onChange({ kind: "custom", value: event.target.value })}
            aria-invalid={error ? true : undefined}
            aria-describedby={describedBy("folder-colour", false, Boolean(error))}
            spellCheck={false}
            autoComplete="off"
            placeholder="#rrggbb"
          />
          <label htmlFor="folder-colour-pick" className="visually-hidden">
            Pick a colour
          </label>
          <input
            id="folder-colour-pick"
            type="color"
            value={pickerValue}
            onChange={(event) => onChange({ kind: "custom", value: event.target.value })}
          />
        </div>
      )}
      <FieldError id="folder-colour" message={error} />
    </fieldset>
  );
}

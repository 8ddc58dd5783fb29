import { type FormEvent, useState } from "react";
import { describedBy, TextField } from "../components.js";
import type { Protocol } from "../connection.js";
import { useConnection } from "../connection-context.js";
import { navigate } from "../router.js";
import { ROUTES } from "../routes.js";
import { API_SCOPES } from "../scopes.js";
import { summariseToken } from "../token.js";

const PROTOCOLS: readonly { value: Protocol; label: string; hint: string }[] = [
  { value: "connect", label: "Connect", hint: "JSON over HTTP: reads as cacheable GETs" },
  { value: "grpc-web", label: "gRPC-Web", hint: "binary protobuf, gRPC status in headers" },
];

/** Where the API is, which protocol to speak, and the access token to send. */
export function ConnectionView() {
  const { connection, update } = useConnection();
  const [apiUrl, setApiUrl] = useState(connection.apiUrl);
  const [protocol, setProtocol] = useState<Protocol>(connection.protocol);
  const [token, setToken] = useState(connection.token);
  const [apiUrlError, setApiUrlError] = useState<string | undefined>(undefined);
  // A #token= link can change the connection while this form is open: the form then shows the new one.
  const [shown, setShown] = useState(connection);
  if (shown !== connection) {
    setShown(connection);
    setApiUrl(connection.apiUrl);
    setProtocol(connection.protocol);
    setToken(connection.token);
  }
  const summary = token.trim() === "" ? undefined : summariseToken(token);

  const save = (event: FormEvent) => {
    event.preventDefault();
    const url = apiUrl.trim();
    if (url !== "" && !/^https?:\/\/[^/]/.test(url)) {
      setApiUrlError("API address must start with http:// or https://, e.g. http://127.0.0.1:8080.");
      document.getElementById("api-url")?.focus();
      return;
    }
    setApiUrlError(undefined);
    update({ apiUrl: url, protocol, token: token.trim() });
    navigate(ROUTES.projects);
  };

  return (
    <>
      <header className="view-header">
        <h1 tabIndex={-1}>Connection</h1>
        <p className="lede">The token and protocol this tab uses to call the Folio API.</p>
      </header>
      <div className="columns">
        <form className="card form" onSubmit={save} noValidate aria-label="Connection settings">
          <div className={`field${summary === undefined && token.trim() !== "" ? " field--invalid" : ""}`}>
            <label htmlFor="token">Access token</label>
            <p className="hint" id="token-hint">
              A bearer token (JWT) with the scopes of the calls you make; the API's are <ScopeList />. It
              stays in this browser tab (session storage). Opening the app at <code>…/#token=…</code> fills it
              in.
            </p>
            <textarea
              id="token"
              className="token-input"
              value={token}
              onChange={(event) => setToken(event.target.value)}
              rows={5}
              spellCheck={false}
              autoComplete="off"
              aria-describedby={describedBy("token", true, false)}
            />
          </div>

          <fieldset className="field">
            <legend>Protocol</legend>
            <div className="segmented">
              {PROTOCOLS.map((option) => (
                <label key={option.value} className="segmented__option">
                  <input
                    type="radio"
                    name="protocol"
                    value={option.value}
                    checked={protocol === option.value}
                    onChange={() => setProtocol(option.value)}
                  />
                  <span className="segmented__label">{option.label}</span>
                  <span className="segmented__hint">{option.hint}</span>
                </label>
              ))}
            </div>
          </fieldset>

          <TextField
            id="api-url"
            label="API address"
            hint={`Leave empty to use this page's origin (${window.location.origin}).`}
            type="url"
            inputMode="url"
            value={apiUrl}
            onChange={(event) => setApiUrl(event.target.value)}
            error={apiUrlError}
            placeholder={window.location.origin}
            spellCheck={false}
            autoComplete="off"
          />

          <div className="form__actions">
            <button type="submit" className="button button--primary">
              Save and show projects
            </button>
            {connection.token !== "" && (
              <button
                type="button"
                className="button button--quiet"
                onClick={() => {
                  setToken("");
                  update({ ...connection, token: "" });
                }}
              >
                Forget token
              </button>
            )}
          </div>
        </form>

        <section className="card token-details" aria-labelledby="token-details-title">
          <h2 id="token-details-title">Token</h2>
          {token.trim() === "" ? (
            <p className="muted">No token yet.</p>
          ) : summary === undefined ? (
            <p className="field-error">
              This does not look like a JWT: it should be three parts separated by dots.
            </p>
          ) : (
            <>
              <dl className="details">
                <dt>Organisation</dt>
                <dd>
                  <code>{summary.orgId ?? "—"}</code>
                </dd>
                <dt>User</dt>
                <dd>
                  <code>{summary.userId ?? "—"}</code>
                </dd>
                <dt>Scopes</dt>
                <dd>
                  {summary.scopes.length === 0 ? (
                    <span className="muted">none</span>
                  ) : (
                    <ul className="chips">
                      {summary.scopes.map((scope) => (
                        <li key={scope} className="chip">
                          {scope}
                        </li>
                      ))}
                    </ul>
                  )}
                </dd>
                <dt>Expires</dt>
                <dd>
                  {summary.expiresAt === undefined ? "—" : <ExpiryText expiresAt={summary.expiresAt} />}
                </dd>
              </dl>
              <p className="hint">Read from the token here; only the server checks its signature.</p>
            </>
          )}
        </section>
      </div>
    </>
  );
}

/** The API's scopes in a sentence, each with what it allows (its description, made a clause). */
function ScopeList() {
  return API_SCOPES.map((scope, i) => (
    <span key={scope.name}>
      {i === 0 ? "" : i === API_SCOPES.length - 1 ? " and " : ", "}
      <code>{scope.name}</code> ({clause(scope.description)})
    </span>
  ));
}

/** "Create folders." as "create folders", to sit inside a sentence. */
function clause(description: string): string {
  const text = description.trim().replace(/\.$/, "");
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function ExpiryText({ expiresAt }: { expiresAt: Date }) {
  const expired = expiresAt.getTime() <= Date.now();
  const text = expiresAt.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  return expired ? (
    <span className="field-error">Expired {text}</span>
  ) : (
    <time dateTime={expiresAt.toISOString()}>{text}</time>
  );
}

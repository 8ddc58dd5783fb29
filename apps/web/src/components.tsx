import { type InputHTMLAttributes, type ReactNode, useEffect, useId, useRef, useState } from "react";
import type { ErrorReport } from "./errors.js";
import { Link } from "./router.js";
import { ROUTES } from "./routes.js";

/** `aria-describedby` of a control: its hint and its error message, when present. */
export function describedBy(id: string, hint: boolean, error: boolean): string | undefined {
  const ids = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean);
  return ids.length > 0 ? ids.join(" ") : undefined;
}

/** A message under a control that says what is wrong with its value. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (message === undefined) return null;
  return (
    <p className="field-error" id={`${id}-error`}>
      <span className="visually-hidden">Error: </span>
      {message}
    </p>
  );
}

interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "id"> {
  readonly id: string;
  readonly label: string;
  readonly hint?: ReactNode;
  readonly error?: string | undefined;
}

/** A labelled text input with an optional hint and the server's message about its value. */
export function TextField({ id, label, hint, error, className, ...input }: TextFieldProps) {
  return (
    <div className={`field${error ? " field--invalid" : ""}${className ? ` ${className}` : ""}`}>
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <input
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, Boolean(hint), Boolean(error))}
        {...input}
      />
      <FieldError id={id} message={error} />
    </div>
  );
}

/**
 * The explanation of a failed call, above the form or list it concerns: announced when it
 * appears, with links that move the focus to each field at fault.
 */
export function ErrorSummary({
  report,
  fieldIds = {},
  focus = false,
}: {
  report: ErrorReport;
  /** The control of each request field, by the field's JSON name. */
  fieldIds?: Readonly<Record<string, string>>;
  /** Move the focus here when shown (after a submit). */
  focus?: boolean;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();
  useEffect(() => {
    if (focus) ref.current?.focus();
  }, [focus]);
  const fieldMessages = Object.entries(report.fields);
  return (
    <div className="error-summary" role="alert" tabIndex={-1} ref={ref} aria-labelledby={titleId}>
      <h2 id={titleId} className="error-summary__title">
        {report.summary}
      </h2>
      {fieldMessages.length > 0 && (
        <ul>
          {fieldMessages.map(([field, message]) => {
            const target = fieldIds[field];
            return (
              <li key={field}>
                {target ? (
                  <a
                    href={`#${target}`}
                    onClick={(event) => {
                      event.preventDefault();
                      document.getElementById(target)?.focus();
                    }}
                  >
                    {message}
                  </a>
                ) : (
                  message
                )}
              </li>
            );
          })}
        </ul>
      )}
      {report.fixConnection && (
        <p>
          <Link href={ROUTES.connection}>Change the token</Link>
        </p>
      )}
      {report.requestId && <p className="error-summary__id">Request id {report.requestId}</p>}
    </div>
  );
}

/** Seconds left until `until`, counting down once a second; 0 when past. */
export function useSecondsLeft(until: number | undefined): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until === undefined || until <= Date.now()) return;
    setNow(Date.now());
    const timer = window.setInterval(() => {
      setNow(Date.now());
      if (Date.now() >= until) window.clearInterval(timer);
    }, 1000);
    return () => window.clearInterval(timer);
  }, [until]);
  return until === undefined ? 0 : Math.max(0, Math.ceil((until - now) / 1000));
}

import { ApiFailure } from '../api/client.js';

/**
 * A refused write: the API's message and, for 400 VALIDATION_FAILED, each field it names
 * (`details.fields[]`: `{path, message}`, docs/api/conventions.md), linked to the form by `id`.
 */
export function Refusal({ id, error }: { id: string; error: unknown }) {
  if (!error) return null;
  const message = error instanceof ApiFailure ? error.message : String((error as Error).message ?? error);
  const fields = error instanceof ApiFailure ? (error.details?.fields as Array<{ path: string; message: string }> | undefined) ?? [] : [];
  return (
    <div id={id} class="form-error" role="alert">
      <p>{message}</p>
      {fields.length > 0 && <ul>{fields.map((f) => <li key={f.path}><code>{f.path}</code>: {f.message}</li>)}</ul>}
    </div>
  );
}

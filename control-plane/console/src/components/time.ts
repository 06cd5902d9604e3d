/** `date` as the value of an `<input type="datetime-local">` (local wall-clock time, minutes). */
export function toLocalInput(date: Date): string {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/** The instant of a `datetime-local` value (read in the browser's time zone) as ISO 8601 UTC, as the API takes it. */
export function fromLocalInput(value: string): string {
  return new Date(value).toISOString();
}

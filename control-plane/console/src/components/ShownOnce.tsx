import { CopyButton } from './CopyButton.js';

/** A secret the API returns once (an API key, an install command with its token): the value, why it matters, and a copy button. */
export function ShownOnce({ intro, value, copyLabel, testId }: { intro: string; value: string; copyLabel: string; testId: string }) {
  return (
    <div class="secret" role="status">
      <p>{intro}</p>
      <code data-testid={testId}>{value}</code>
      <CopyButton value={value} label={copyLabel} />
    </div>
  );
}

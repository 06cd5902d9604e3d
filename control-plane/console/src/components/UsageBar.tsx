/**
 * How much of a limit is used, drawn as a `<meter>` with the figures beside it as text: an
 * agent-obs monitor's cost this month against its budget, a plan quota's use against its limit.
 * `limit` null: no limit (only the figure is shown). `label` names the meter for screen readers.
 */
export function UsageBar({ used, limit, label, text }: { used: number; limit: number | null; label: string; text: string }) {
  return (
    <span class="usage">
      {limit !== null && limit > 0 && <meter min={0} max={limit} value={Math.min(used, limit)} high={limit * 0.8} optimum={0} aria-label={label} />}
      <span>{text}</span>
    </span>
  );
}

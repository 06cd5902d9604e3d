import { useEffect, useState } from 'preact/hooks';
import type { OncallOverride } from '@vantage/shared-protocol';
import { ErrorState, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { rosterAhead, type Stretch } from './handoffs.js';

/** The roster shown: the coming 14 days. */
const HORIZON_MS = 14 * 86_400_000;

/**
 * Who is on call now and the handoffs of the coming 14 days (handoffs.ts, from the API's on-call
 * lookups); `nameOf` names a user id (a team member), `version` changes when the schedule or its
 * overrides do, so the roster is read again.
 */
export function OnCallTimeline({ schedule_id, overrides, nameOf, version }: { schedule_id: string; overrides: OncallOverride[]; nameOf: (id: string) => string; version: string }) {
  const [roster, setRoster] = useState<{ stretches: Stretch[]; truncated: boolean } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setRoster(null); setError(null);
    rosterAhead(schedule_id, overrides, new Date(), HORIZON_MS).then((r) => { if (live) setRoster(r); }, (e: unknown) => { if (live) setError(e); });
    return () => { live = false; };
  }, [schedule_id, version, tick]);
  if (error) return <ErrorState error={error} retry={() => setTick((n) => n + 1)} />;
  if (!roster) return <Loading />;
  const [now, ...next] = roster.stretches;
  const who = (s: Stretch) => (s.user_id ? nameOf(s.user_id) : t('oncall.nobody'));
  return (
    <>
      <p class="oncall-now" data-testid="oncall-now">
        <strong>{t('oncall.now')}</strong> {who(now!)}
        {now!.source === 'override' && ` (${t('oncall.source.override')})`}
        {now!.until && ` · ${t('oncall.until', { time: formatTime(now!.until) })}`}
      </p>
      <h3>{t('oncall.next')}</h3>
      {next.length === 0 ? <p class="hint">{t('oncall.no_handoffs')}</p> : (
        <table>
          <thead><tr><th scope="col">{t('oncall.from')}</th><th scope="col">{t('oncall.until_col')}</th><th scope="col">{t('oncall.who')}</th><th scope="col">{t('oncall.source')}</th></tr></thead>
          <tbody>{next.map((s) => (
            <tr key={s.from}>
              <td>{formatTime(s.from)}</td><td>{s.until ? formatTime(s.until) : '—'}</td><td>{who(s)}</td>
              <td>{s.source ? t(`oncall.source.${s.source}`) : ''}</td>
            </tr>
          ))}</tbody>
        </table>
      )}
      {roster.truncated && <p class="hint">{t('oncall.truncated')}</p>}
      <p class="hint">{t('oncall.local_times')}</p>
    </>
  );
}

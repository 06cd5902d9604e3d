import { useEffect, useState } from 'preact/hooks';
import type { CheckItem } from '@vantage/shared-protocol';
import { Empty, ErrorState, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { harRequests, sameOrigin, type HarRequest } from './har.js';

type ArtifactOutput = { har_url?: string; screenshot_url?: string };

/** The request waterfall of a HAR: one row per request, a bar from its start for its duration (SVG, no inline styles). */
function Waterfall({ rows }: { rows: HarRequest[] }) {
  const end = Math.max(1, ...rows.map((r) => r.start_ms + r.duration_ms));
  return (
    <table class="waterfall" data-testid="waterfall">
      <thead><tr><th scope="col">{t('artifacts.request')}</th><th scope="col">{t('artifacts.status')}</th><th scope="col">{t('detail.response_ms')}</th><th scope="col">{t('artifacts.timeline')}</th></tr></thead>
      <tbody>{rows.map((r, i) => (
        <tr key={i}>
          <td class="url">{r.method} {r.url}</td><td>{r.status || ''}</td><td>{Math.round(r.duration_ms)}</td>
          <td><svg viewBox="0 0 100 8" preserveAspectRatio="none" class="bar" role="img" aria-label={t('artifacts.bar', { start: Math.round(r.start_ms), ms: Math.round(r.duration_ms) })}>
            <rect x={(r.start_ms / end) * 100} y="1" width={Math.max(0.5, (r.duration_ms / end) * 100)} height="6" fill="currentColor" />
          </svg></td>
        </tr>
      ))}</tbody>
    </table>
  );
}

/**
 * A browser check's artifacts (docs/api/artifacts.md): of the latest check that kept any, the
 * screenshot, the request waterfall read from its HAR, and the HAR as a download. The signed URLs
 * of the check read are used on the console's own origin.
 */
export function ArtifactsPanel({ checks }: { checks: CheckItem[] }) {
  const latest = checks.find((c) => { const o = c.output as ArtifactOutput | null; return !!(o?.har_url || o?.screenshot_url); });
  const output = (latest?.output ?? {}) as ArtifactOutput;
  const har = output.har_url ? sameOrigin(output.har_url) : null;
  const [rows, setRows] = useState<HarRequest[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!har) return;
    let live = true;
    setRows(null); setError(null);
    fetch(har).then(async (res) => {
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const archive: unknown = await res.json();
      if (live) setRows(harRequests(archive));
    }).catch((e: unknown) => { if (live) setError(e); });
    return () => { live = false; };
  }, [har, tick]);
  if (!latest) return <><h2>{t('artifacts.title')}</h2><Empty>{t('artifacts.empty')}</Empty></>;
  return (
    <>
      <h2>{t('artifacts.title')}</h2>
      <p class="muted">{t('artifacts.of_check', { time: formatTime(latest.finished_at), node: latest.node_id ?? '' })}</p>
      {output.screenshot_url
        ? <img class="screenshot" src={sameOrigin(output.screenshot_url)} alt={t('artifacts.screenshot_alt', { time: formatTime(latest.finished_at) })} data-testid="screenshot" />
        : <p>{t('artifacts.no_screenshot')}</p>}
      {har && (
        <>
          <p><a href={har} download={`check-${latest.scheduled_at}.har`} class="button">{t('artifacts.download_har')}</a></p>
          <h3>{t('artifacts.waterfall')}</h3>
          {error ? <ErrorState error={error} retry={() => setTick((n) => n + 1)} /> : !rows ? <Loading /> : rows.length === 0 ? <Empty>{t('artifacts.no_requests')}</Empty> : <Waterfall rows={rows} />}
        </>
      )}
    </>
  );
}

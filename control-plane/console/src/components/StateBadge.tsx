import type { MonitorState } from '@vantage/shared-protocol';
import { t } from '../i18n/i18n.js';

/** A monitor state as a coloured badge with its translated name (colour is never the only signal). */
export function StateBadge({ state }: { state: MonitorState }) {
  return <span class={`badge state-${state}`}>{t(`state.${state}`)}</span>;
}

import { Link } from './Link.js';
import { t, type MessageKey } from '../i18n/i18n.js';

/** The alerting pages, one tab each (docs/api/alerting.md). */
const TABS: Array<{ href: string; label: MessageKey }> = [
  { href: '/alerts', label: 'alerting.tab.events' },
  { href: '/alerts/channels', label: 'alerting.tab.channels' },
  { href: '/alerts/policies', label: 'alerting.tab.policies' },
  { href: '/alerts/silences', label: 'alerting.tab.silences' },
  { href: '/alerts/groups', label: 'alerting.tab.groups' },
  { href: '/alerts/maintenance', label: 'alerting.tab.maintenance' },
  { href: '/alerts/noise', label: 'alerting.tab.noise' },
];

/** The alerting section's sub-navigation; `here` is the current tab's path. */
export function AlertingTabs({ here }: { here: string }) {
  return (
    <nav class="tabs" aria-label={t('alerting.tabs')}>
      {TABS.map((tab) => <Link key={tab.href} href={tab.href} aria-current={tab.href === here ? 'page' : undefined}>{t(tab.label)}</Link>)}
    </nav>
  );
}

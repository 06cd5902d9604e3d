import { SectionTabs, type Tab } from './SectionTabs.js';

/** The alerting pages, one tab each (docs/api/alerting.md). */
const TABS: Tab[] = [
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
  return <SectionTabs tabs={TABS} label="alerting.tabs" here={here} />;
}

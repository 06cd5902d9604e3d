import { Link } from './Link.js';
import { t, type MessageKey } from '../i18n/i18n.js';

/** One tab of a section: its page and its label. */
export type Tab = { href: string; label: MessageKey };

/** A section's sub-navigation (alerting, agent observability, MCP, billing); `here` is the current tab's path. */
export function SectionTabs({ tabs, label, here }: { tabs: Tab[]; label: MessageKey; here: string }) {
  return (
    <nav class="tabs" aria-label={t(label)}>
      {tabs.map((tab) => <Link key={tab.href} href={tab.href} aria-current={tab.href === here ? 'page' : undefined}>{t(tab.label)}</Link>)}
    </nav>
  );
}

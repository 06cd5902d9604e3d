import { SectionTabs, type Tab } from '../../components/SectionTabs.js';

const TABS: Tab[] = [
  { href: '/billing', label: 'billing.tab.plan' },
  { href: '/billing/invoices', label: 'billing.tab.invoices' },
  { href: '/billing/entitlements', label: 'billing.tab.entitlements' },
];

/** The billing section's sub-navigation (docs/api/billing.md): plan and quotas, invoices, entitlements. */
export function BillingTabs({ here }: { here: string }) {
  return <SectionTabs tabs={TABS} label="billing.tabs" here={here} />;
}

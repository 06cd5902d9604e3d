import { useAdministrator } from '../../api/use-admin.js';
import { SectionTabs, type Tab } from '../../components/SectionTabs.js';

const TABS: Tab[] = [
  { href: '/billing', label: 'billing.tab.plan' },
  { href: '/billing/invoices', label: 'billing.tab.invoices' },
  { href: '/billing/entitlements', label: 'billing.tab.entitlements' },
];
const ADMIN_TAB: Tab = { href: '/billing/admin', label: 'billing.tab.admin' };

/**
 * The billing section's sub-navigation (docs/api/billing.md): plan and quotas, invoices,
 * entitlements, and for the deployment's administrators their billing actions.
 */
export function BillingTabs({ here }: { here: string }) {
  const admin = useAdministrator();
  return <SectionTabs tabs={admin.data?.is_admin ? [...TABS, ADMIN_TAB] : TABS} label="billing.tabs" here={here} />;
}

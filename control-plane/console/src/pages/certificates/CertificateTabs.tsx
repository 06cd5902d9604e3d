import { SectionTabs, type Tab } from '../../components/SectionTabs.js';

const TABS: Tab[] = [
  { href: '/certificates', label: 'certs.tab.certificates' },
  { href: '/certificates/orders', label: 'certs.tab.orders' },
  { href: '/dns-credentials', label: 'certs.tab.credentials' },
];

/** The certificates section's sub-navigation (docs/api/certificates.md): certificates, orders, DNS credentials. */
export function CertificateTabs({ here }: { here: string }) {
  return <SectionTabs tabs={TABS} label="certs.tabs" here={here} />;
}

import type { ComponentChildren } from 'preact';
import { Link } from '../components/Link.js';
import { t, type MessageKey } from '../i18n/i18n.js';
import { closeSession } from '../api/client.js';
import { chooseTeam } from '../api/team-scope.js';
import { navigate } from '../router.js';
import { TeamSwitcher } from './TeamSwitcher.js';

/** The signed-in navigation: one entry per page group; later features add theirs here. */
const NAV: Array<{ href: string; label: MessageKey }> = [
  { href: '/monitors', label: 'nav.monitors' },
  { href: '/probes', label: 'nav.probes' },
  { href: '/nodes', label: 'nav.nodes' },
  { href: '/alerts', label: 'nav.alerting' },
  { href: '/status-pages', label: 'nav.status_pages' },
  { href: '/incidents', label: 'nav.incidents' },
  { href: '/dashboards', label: 'nav.dashboards' },
  { href: '/webhooks', label: 'nav.webhooks' },
  { href: '/teams', label: 'nav.teams' },
  { href: '/oncall', label: 'nav.oncall' },
  { href: '/as-code', label: 'nav.as_code' },
  { href: '/agent-obs', label: 'nav.agent_obs' },
  { href: '/mcp-tokens', label: 'nav.mcp' },
  { href: '/billing', label: 'nav.billing' },
  { href: '/verdicts', label: 'nav.verdicts' },
  { href: '/certificates', label: 'nav.certificates' },
  { href: '/verify', label: 'nav.verify' },
  { href: '/signing-keys', label: 'nav.signing_keys' },
  { href: '/api-keys', label: 'nav.api_keys' },
  { href: '/profile', label: 'nav.profile' },
  { href: '/security', label: 'nav.security' },
];

/** The page frame: skip link, header (name, preferences, navigation when signed in) and the main region. */
export function Shell({ path, signedIn, prefs, children }: { path: string; signedIn: boolean; prefs: ComponentChildren; children: ComponentChildren }) {
  return (
    <>
      <a class="skip" href="#content">{t('app.skip')}</a>
      <header class="top">
        <Link href={signedIn ? '/monitors' : '/login'} class="brand">{t('app.name')}</Link>
        {signedIn && <TeamSwitcher />}
        {prefs}
      </header>
      <div class={signedIn ? 'layout' : 'layout public'}>
        {signedIn && (
          <nav aria-label={t('nav.label')}>
            <ul>
              {NAV.map((n) => (
                <li key={n.href}><Link href={n.href} aria-current={path === n.href || path.startsWith(`${n.href}/`) ? 'page' : undefined}>{t(n.label)}</Link></li>
              ))}
              <li>
                <button type="button" class="link" onClick={() => { chooseTeam(null); void closeSession().finally(() => navigate('/login')); }}>{t('nav.logout')}</button>
              </li>
            </ul>
            <p class="hint">{t('nav.later')}</p>
          </nav>
        )}
        <main id="content" tabIndex={-1}>{children}</main>
      </div>
    </>
  );
}

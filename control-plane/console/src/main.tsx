import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onSession, resumeSession, setApiLocale, signedIn } from './api/client.js';
import { initialLocale, setLocale, t, type Locale } from './i18n/i18n.js';
import { applyTheme, initialTheme, type Theme } from './theme.js';
import { match, navigate, useLocation, type PageModule } from './router.js';
import { Shell } from './shell/Shell.js';
import { Preferences } from './shell/Preferences.js';
import { Empty, ErrorState, Loading } from './components/states.js';
import { Link } from './components/Link.js';
import './styles.css';

/** Loads the route's page chunk, then renders it; a failed load says so with a retry. */
function LazyPage({ load, params }: { load: () => Promise<PageModule>; params: Record<string, string> }) {
  const [mod, setMod] = useState<PageModule | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setMod(null);
    load().then((m) => { if (live) setMod(m); }, (e: unknown) => { if (live) setError(e); });
    return () => { live = false; };
  }, [load, tick]);
  if (error) return <ErrorState error={error} retry={() => { setError(null); setTick((n) => n + 1); }} />;
  if (!mod) return <Loading />;
  const Page = mod.default;
  return <Page params={params} />;
}

function App() {
  const [ready, setReady] = useState(false);
  const [session, setSession] = useState(signedIn());
  const [locale, setLocaleState] = useState<Locale>(initialLocale);
  const [theme, setTheme] = useState<Theme>(initialTheme);
  const { path } = useLocation();
  useEffect(() => onSession(setSession), []);
  useEffect(() => { void resumeSession().finally(() => setReady(true)); }, []);
  setLocale(locale);
  setApiLocale(locale);
  useEffect(() => applyTheme(theme), [theme]);

  const found = match(path);
  useEffect(() => {
    if (!ready) return;
    // The location now, not the one rendered: a navigation may have happened since (logout → /login).
    const here = location.pathname;
    const now = match(here);
    if (here === '/' || here === '') navigate(session ? '/monitors' : '/login', true);
    else if (now?.route.session === true && !session) navigate(`/login?next=${encodeURIComponent(here + location.search)}`, true);
    else if (now?.route.session === false && session) navigate(safeNext(new URLSearchParams(location.search).get('next')), true);
  }, [ready, path, session]);
  useEffect(() => { document.getElementById('content')?.focus({ preventScroll: true }); }, [path]);

  const prefs = <Preferences locale={locale} theme={theme} onLocale={setLocaleState} onTheme={setTheme} />;
  let body;
  if (!ready) body = <Loading />;
  else if (!found) body = path === '/' ? <Loading /> : <Empty action={<Link href="/monitors">{t('state.go_home')}</Link>}>{t('state.not_found')}</Empty>;
  else if (found.route.session !== 'any' && found.route.session !== session) body = <Loading />;
  else body = <LazyPage key={`${locale}:${path}`} load={found.route.load} params={found.params} />;
  return <Shell path={path} signedIn={session && ready} prefs={prefs}>{body}</Shell>;
}

/** Only an in-console path (`/…`, not `//host`) is followed after login. */
function safeNext(next: string | null): string {
  return next && /^\/(?!\/)/.test(next) ? next : '/monitors';
}

render(<App />, document.getElementById('app')!);

import type { Profile } from '@vantage/shared-protocol';

/** Console themes: the API's profile themes (system follows prefers-color-scheme). */
export type Theme = Profile['theme'];
export const THEMES = ['system', 'light', 'dark'] as const satisfies readonly Theme[];

/** The theme kept from the last visit, else system. */
export function initialTheme(): Theme {
  const kept = localStorage.getItem('vantage.theme');
  return (THEMES as readonly string[]).includes(kept ?? '') ? kept as Theme : 'system';
}

/** Apply `theme` (`data-theme` on <html>; styles.css holds both palettes) and keep it. */
export function applyTheme(theme: Theme): void {
  localStorage.setItem('vantage.theme', theme);
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

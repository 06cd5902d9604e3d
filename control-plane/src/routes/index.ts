import type { Hono } from 'hono';
import type { AppDeps } from '../deps.js';

/**
 * Every resource router, mounted under its base path by createApp. One line per router family;
 * each factory takes the app's deps and returns a Hono router (STYLE.md: one router per resource).
 */
export function mountRoutes(app: Hono<any>, deps: AppDeps): void {
  void app;
  void deps;
}

import type { Hono } from 'hono';
import type { AppDeps } from '../deps.js';
import { installRouter } from './install.js';
import { accountRouter } from './account.js';
import { accountTokensRouter } from './account-tokens.js';
import { apiKeysRouter } from './api-keys.js';
import { authRouter } from './auth.js';
import { probesRouter } from './probes.js';
import { nodesRouter } from './nodes.js';
import { enrollmentTokensRouter } from './enrollment-tokens.js';
import { geoRouter } from './geo.js';

/**
 * Every resource router, mounted under its base path by createApp. One line per router family;
 * each factory takes the app's deps and returns a Hono router (STYLE.md: one router per resource).
 */
export function mountRoutes(app: Hono<any>, deps: AppDeps): void {
  void app;
  void deps;
  app.route('/', installRouter(deps));
  app.route('/v1/auth', authRouter(deps));
  app.route('/v1/account', accountRouter(deps));
  app.route('/v1/account/api-keys', apiKeysRouter(deps));
  app.route('/v1/account/tokens', accountTokensRouter(deps));
  app.route('/v1/nodes', nodesRouter(deps));
  app.route('/v1/enrollment-tokens', enrollmentTokensRouter(deps));
  app.route('/v1/geo', geoRouter(deps));
  app.route('/v1/probe', probesRouter(deps));
}

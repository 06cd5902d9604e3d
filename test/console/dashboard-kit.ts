import type { Test } from 'tap';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { DIST } from './browser-kit.js';

// What the dashboard layout browser tests share: a dashboard of two text widgets side by side.

/**
 * A control plane with the console build, an account, and its dashboard `board` (of `layout`,
 * the API's default without) holding two text widgets, "Left" at column 0 and "Right" at column
 * 4, each 4 columns wide and 2 rows high, as `set` (the PUT's answer: ids and version). `api`
 * calls the API as the account (the whole envelope).
 */
export async function twoWidgetBoard(t: Test, name: string, layout?: { columns: number; row_height_px: number }) {
  const { app, url } = await testApp(t, { config: { console_dir: DIST } });
  const user = await registerUser(app);
  const api = async (method: string, path: string, body?: unknown) => (await call(app, method, path, { token: user.access_token, ...(body ? { body } : {}) })).body;
  const board = (await api('POST', '/v1/dashboards', { name, ...(layout ? { layout } : {}) })).data;
  const text = (title: string, x: number) => ({ type: 'text', title, position: { x, y: 0, w: 4, h: 2 }, options: { markdown: title.toLowerCase() } });
  const set = (await api('PUT', `/v1/dashboards/${board.id}/widgets`, { expected_version: board.version, widgets: [text('Left', 0), text('Right', 4)] })).data;
  return { url, user, api, board, set };
}

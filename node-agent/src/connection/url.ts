import { NODE_WS_PATH } from '@vantage/shared-protocol';

/**
 * The WebSocket URL for a control plane base URL: http→ws, https→wss, NODE_WS_PATH appended to any
 * base path. `https://cp.example/vantage/` → `wss://cp.example/vantage/v1/nodes/connect`.
 * @throws TypeError for a URL that does not parse (config validation catches this earlier).
 */
export function nodeSocketUrl(control_plane_url: string): string {
  const url = new URL(control_plane_url);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = url.pathname.replace(/\/+$/, '') + NODE_WS_PATH;
  url.search = '';
  url.hash = '';
  return url.toString();
}

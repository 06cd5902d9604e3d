import { SectionTabs, type Tab } from '../../components/SectionTabs.js';

const TABS: Tab[] = [
  { href: '/mcp-tokens', label: 'mcp.tab.tokens' },
  { href: '/mcp-sessions', label: 'mcp.tab.sessions' },
  { href: '/mcp-tool-calls', label: 'mcp.tab.calls' },
];

/** The MCP section's sub-navigation (docs/api/mcp.md): tokens, sessions, tool calls. */
export function McpTabs({ here }: { here: string }) {
  return <SectionTabs tabs={TABS} label="mcp.tabs" here={here} />;
}

import type { Config } from '../config/index.js';
import { publicLink } from '../email/links.js';
import { renderEmail, type RenderedEmail } from '../email/layout.js';

/**
 * The one e-mail an owner gets when a check takes an agent-obs monitor over its monthly budget
 * (docs/api/agent-obs.md "Cost and budget"): what happened, the totals in USD, and how to resume.
 */
export function budgetEmail(
  m: { id: string; agent_name: string; total_usd: number; budget_monthly_usd: number | null },
  config: Pick<Config, 'public_url' | 'host' | 'port'>,
): RenderedEmail {
  return renderEmail({
    subject: `Agent monitor "${m.agent_name}" paused: monthly budget exceeded`,
    paragraphs: [
      `The checks of your agent-obs monitor "${m.agent_name}" (${m.id}) have cost ${m.total_usd.toFixed(4)} USD this month, over its budget of ${(m.budget_monthly_usd ?? 0).toFixed(4)} USD.`,
      'The monitor is paused (status exceeded_budget) and will not resume by itself. Raise budget_monthly_usd (PATCH /v1/agent-obs/monitors/{id}), then resume it (POST /v1/agent-obs/monitors/{id}/resume).',
    ],
    action: { label: 'Open the monitor', url: publicLink(config, `/v1/agent-obs/monitors/${m.id}`) },
    footer: 'You get this e-mail because you own this agent-obs monitor.',
  });
}

import type { LeaderboardReport, OptOut } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import { publicLink } from '../email/links.js';
import type { LeaderboardReportRow } from './leaderboards.db.js';
import type { OptOutRow } from './opt-outs.db.js';

/**
 * The API shape of a report (docs/api/leaderboards.md). `pdf_url`: the public PDF
 * once published; for an administrator, the admin PDF of a report in review; else null.
 */
export function toLeaderboardReport(config: Config, r: LeaderboardReportRow, audience: 'public' | 'admin'): LeaderboardReport {
  const visible = r.status === 'published' || r.status === 'archived';
  const pdf_url = !r.has_pdf ? null
    : visible ? publicLink(config, `/v1/leaderboards/${r.id}/pdf`)
      : audience === 'admin' ? publicLink(config, `/v1/admin/leaderboards/${r.id}/pdf`) : null;
  return {
    id: r.id, status: r.status, period_year: r.period_year, period_month: r.period_month, methodology_version: r.methodology_version,
    pdf_url, published_at: r.published_at?.toISOString() ?? null, excluded_vendors: r.excluded_vendors, verdict_report_id: null,
    errata_pdf_url: r.has_errata_pdf ? publicLink(config, `/v1/leaderboards/${r.id}/errata/pdf`) : null,
    errata_reason: r.errata_reason, errata_at: r.errata_at?.toISOString() ?? null, content_hash: r.content_hash,
    data_from: r.data_from.toISOString(), data_to: r.data_to.toISOString(), computed_at: r.computed_at.toISOString(),
    created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString(),
  };
}

/** The API shape of an opt-out request (docs/api/leaderboards.md "Opt-out requests"). */
export function toOptOut(o: OptOutRow): OptOut {
  return {
    id: o.id, vendor_name: o.vendor_name, applicant_email: o.applicant_email, identity_proof_url: o.identity_proof_url,
    applicant_organization: o.applicant_organization, contact_phone: o.contact_phone, reason: o.reason, status: o.status,
    decided_at: o.decided_at?.toISOString() ?? null, decision_reason: o.decision_reason, created_at: o.created_at.toISOString(),
  };
}

import { z } from 'zod';
import { textString } from './parse.js';

/** Compliance subscriptions and their periodic signed reports (docs/api/compliance.md). */

export const COMPLIANCE_TIERS = ['starter', 'pro', 'enterprise'] as const;
export type ComplianceTier = (typeof COMPLIANCE_TIERS)[number];
export const COMPLIANCE_FREQUENCIES = ['monthly', 'weekly', 'custom'] as const;
export type ComplianceFrequency = (typeof COMPLIANCE_FREQUENCIES)[number];

/**
 * What each tier gives (docs/api/compliance.md "Tiers"): monitors covered, report frequencies
 * allowed (the first is the default), months of history kept, free verdict reports per period
 * (null: unlimited) and the price per month in CNY.
 */
export const COMPLIANCE_TIER_LIMITS: Record<ComplianceTier, { monitors_quota: number; frequencies: ComplianceFrequency[]; history_retention_months: number; free_verdict_count: number | null; price_cny: number }> = {
  starter: { monitors_quota: 50, frequencies: ['monthly'], history_retention_months: 12, free_verdict_count: 0, price_cny: 299 },
  pro: { monitors_quota: 200, frequencies: ['weekly'], history_retention_months: 24, free_verdict_count: 5, price_cny: 999 },
  enterprise: { monitors_quota: 1000, frequencies: ['monthly', 'weekly', 'custom'], history_retention_months: 72, free_verdict_count: null, price_cny: 4999 },
};

export const createComplianceSubscriptionRequestSchema = z.strictObject({
  tier: z.enum(COMPLIANCE_TIERS),
  contact_email: z.email().max(254).optional(),
  contact_company: textString().trim().max(200).optional(),
  billing_address: z.record(z.string(), z.union([z.string().max(500), z.number(), z.null()])).optional(),
  /** Ours: the monitors the reports cover (at most the tier's monitors_quota). */
  monitor_ids: z.array(z.string().max(64)).max(1000).default([]),
  /** Ours: enterprise only; other tiers have one frequency. */
  reports_frequency: z.enum(COMPLIANCE_FREQUENCIES).optional(),
  /** Ours: the period of `custom` reports, days. */
  custom_interval_days: z.number().int().min(1).max(366).optional(),
});

export const complianceSubscriptionSchema = z.object({
  id: z.string(),
  owner_id: z.string(),
  tier: z.enum(COMPLIANCE_TIERS),
  /** `incomplete` (ours) until the checkout is paid. */
  status: z.enum(['incomplete', 'active', 'past_due', 'canceled', 'expired']),
  monitors_quota: z.number().int(),
  monitor_ids: z.array(z.string()),
  reports_frequency: z.enum(COMPLIANCE_FREQUENCIES),
  custom_interval_days: z.number().int().nullable(),
  history_retention_months: z.number().int(),
  free_verdict_count: z.number().int().nullable(),
  free_verdict_used: z.number().int(),
  price_cny: z.number(),
  period_start: z.iso.datetime().nullable(),
  period_end: z.iso.datetime().nullable(),
  next_report_at: z.iso.datetime().nullable(),
  canceled_at: z.iso.datetime().nullable(),
  ext_subscription_id: z.string().nullable(),
  created_at: z.iso.datetime(),
});
export type ComplianceSubscription = z.infer<typeof complianceSubscriptionSchema>;

export const complianceReportSchema = z.object({
  id: z.string(),
  subscription_id: z.string(),
  report_type: z.literal('observation_only'),
  period_year: z.number().int(),
  period_month: z.number().int().nullable(),
  period_week: z.number().int().nullable(),
  period_start: z.iso.datetime(),
  period_end: z.iso.datetime(),
  monitors_included: z.number().int(),
  pdf_url: z.string(),
  signature: z.string(),
  content_hash: z.string(),
  tsa_provider: z.null(),
  tsa_time: z.iso.datetime(),
  created_at: z.iso.datetime(),
});
export type ComplianceReport = z.infer<typeof complianceReportSchema>;

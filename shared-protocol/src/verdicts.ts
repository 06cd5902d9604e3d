import { z } from 'zod';
import { textString } from './parse.js';

/**
 * Verdict orders (signed evidence reports) and attestation: keys, key ceremonies, attestation
 * records and the public verification answer (docs/api/verdicts.md).
 */

/**
 * Report templates (docs/api/verdicts.md "Templates"): `uptime_sla` availability of the target
 * over the window against its rounds; `outage_window` the failures and state changes inside the
 * window; `dns_consistency` whether every node saw the same answers (per-node failure and
 * response-time figures of the target's DNS checks).
 */
export const VERDICT_TEMPLATES = ['uptime_sla', 'outage_window', 'dns_consistency'] as const;
export type VerdictTemplate = (typeof VERDICT_TEMPLATES)[number];

/** Price of one report per template, CNY (docs/api/verdicts.md "Prices"). */
export const VERDICT_PRICES_CNY = { uptime_sla: 99, outage_window: 49, dns_consistency: 79 } as const satisfies Record<VerdictTemplate, number>;

/** How an order is paid: `charge` = a pay_url is issued; `report_credit` = one report pack credit was deducted. */
export const VERDICT_PAYMENT_METHODS = ['charge', 'report_credit'] as const;
/** created → paid (docs/api/verdicts.md "States"); then generating → completed or failed. */
export const VERDICT_ORDER_STATUSES = ['created', 'paid', 'generating', 'completed', 'failed'] as const;

/** Longest window a report may cover (days). */
export const VERDICT_WINDOW_MAX_DAYS = 366;

/**
 * The statement every verification answer and every report carries: the report is observation
 * data, not a forensic conclusion (English and Simplified Chinese).
 */
export const LEGAL_DISCLAIMER =
  'This report presents observation data collected by Vantage probe nodes. It is not a forensic conclusion, an expert opinion or legal advice. ' +
  '本报告仅呈现 Vantage 探测节点采集的观测数据，不构成司法鉴定结论、专家意见或法律建议。';

export const createVerdictOrderRequestSchema = z.strictObject({
  template: z.enum(VERDICT_TEMPLATES),
  target: textString().trim().min(1).max(2048),
  time_window_start: z.iso.datetime({ offset: true }),
  time_window_end: z.iso.datetime({ offset: true }),
  notes: textString().max(2000).optional(),
  notify_email: z.email().max(254).optional(),
  webhook_url: z.url({ protocol: /^https?$/ }).max(2048).optional(),
  idempotency_key: z.string().min(1).max(255).optional(),
  /** Ours: pay with a report credit or a charge; default a credit when one is left, else a charge. */
  payment_method: z.enum(VERDICT_PAYMENT_METHODS).optional(),
});
export type CreateVerdictOrderRequest = z.infer<typeof createVerdictOrderRequestSchema>;

export const createdVerdictOrderSchema = z.object({
  order_id: z.string(),
  pay_url: z.string(),
  payment_method: z.enum(VERDICT_PAYMENT_METHODS),
  price_cny: z.number(),
  /** Ours: the Standard Webhooks secret of the completion callback (only when webhook_url is given; same on a replay). */
  webhook_secret: z.string().optional(),
});

export const ATTESTATION_ACTIONS = ['signed', 's3_archived', 'revoked', 'tsa_stamped', 'anchored', 'self_verified'] as const;
export const attestationRecordSchema = z.object({
  id: z.string(),
  report_id: z.string(),
  action: z.enum(ATTESTATION_ACTIONS),
  status: z.enum(['pending', 'success', 'failure']),
  result: z.enum(['success', 'failure']).nullable(),
  retry_count: z.number().int().min(0).max(3),
  external_id: z.string().nullable(),
  idempotency_key: z.string(),
  error_detail: z.string().nullable(),
  created_at: z.iso.datetime(),
  completed_at: z.iso.datetime().nullable(),
});
export type AttestationRecord = z.infer<typeof attestationRecordSchema>;

export const verdictOrderSchema = z.object({
  id: z.string(),
  template: z.enum(VERDICT_TEMPLATES),
  target: z.string(),
  time_window_start: z.iso.datetime(),
  time_window_end: z.iso.datetime(),
  notes: z.string(),
  notify_email: z.string(),
  webhook_url: z.string().nullable(),
  status: z.enum(VERDICT_ORDER_STATUSES),
  payment_method: z.enum(VERDICT_PAYMENT_METHODS),
  price_cny: z.number(),
  pay_url: z.string(),
  pay_expires_at: z.iso.datetime().nullable(),
  content_hash: z.string().nullable(),
  signature_key_id: z.string().nullable(),
  signed_at: z.iso.datetime().nullable(),
  /** `/v1/verdict/orders/{id}/pdf` once completed, else null. */
  pdf_url: z.string().nullable(),
  error_detail: z.string().nullable(),
  paid_at: z.iso.datetime().nullable(),
  completed_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  attestation_records: z.array(attestationRecordSchema),
});
export type VerdictOrder = z.infer<typeof verdictOrderSchema>;

export const verdictOrderListSchema = z.object({
  orders: z.array(verdictOrderSchema.omit({ attestation_records: true })),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

/** `limit` clamped to 1-100 (default 20), `offset` to >= 0 (docs/api/verdicts.md "List"). */
export const clampedOffsetQuerySchema = z.object({
  limit: z.string().regex(/^-?\d{1,9}$/).optional().transform((v) => (v === undefined ? 20 : Math.min(100, Math.max(1, Number(v))))),
  offset: z.string().regex(/^-?\d{1,12}$/).optional().transform((v) => (v === undefined ? 0 : Math.max(0, Number(v)))),
});

export const ATTEST_INVALID_REASONS = ['signature_mismatch', 'tsa_invalid', 'content_modified', 'key_unknown', 'malformed_pdf'] as const;
export type AttestInvalidReason = (typeof ATTEST_INVALID_REASONS)[number];
export const ATTEST_KEY_STATUSES = ['active', 'rotated', 'revoked'] as const;
/** Time-stamp providers of the reference; the field is kept and never set (tsa_time is server time). */
export const TSA_PROVIDERS = ['digicert', 'globalsign', 'sectigo'] as const;

export const attestVerifyResponseSchema = z.object({
  valid: z.boolean(),
  report_type: z.literal('observation_only'),
  legal_disclaimer: z.string(),
  content_hash: z.string().nullable(),
  invalid_reason: z.enum(ATTEST_INVALID_REASONS).nullable(),
  public_key_fingerprint: z.string().nullable(),
  signature_chain: z.string().nullable(),
  signature_key_id: z.string().nullable(),
  signature_key_version: z.number().int().nullable(),
  /** Ours: the signing key's status now (a rotated or revoked key's reports still verify). */
  signature_key_status: z.enum(ATTEST_KEY_STATUSES).nullable(),
  signed_at: z.iso.datetime().nullable(),
  tsa_time: z.iso.datetime().nullable(),
  tsa_provider: z.enum(TSA_PROVIDERS).nullable(),
});
export type AttestVerifyResponse = z.infer<typeof attestVerifyResponseSchema>;

export const attestKeySchema = z.object({
  key_id: z.string(),
  key_version: z.number().int(),
  algorithm: z.string(),
  public_key_pem: z.string(),
  public_key_fingerprint: z.string(),
  status: z.enum(ATTEST_KEY_STATUSES),
  ceremony_log_id: z.string(),
  created_at: z.iso.datetime(),
  rotated_at: z.iso.datetime().nullable(),
  revoked_at: z.iso.datetime().nullable(),
});
export type AttestKey = z.infer<typeof attestKeySchema>;

export const KEY_CEREMONY_ACTIONS = ['root_gen', 'root_split', 'sign_key_rotate', 'emergency_revoke'] as const;
const actorSchema = z.strictObject({ identity: textString().trim().min(1).max(200), role: textString().trim().min(1).max(64) });
export const keyCeremonySchema = z.object({
  id: z.string(),
  action: z.enum(KEY_CEREMONY_ACTIONS),
  key_id: z.string().nullable(),
  key_version: z.number().int().nullable(),
  actors: z.array(z.object({ identity: z.string(), role: z.string() })),
  evidence_url: z.string(),
  notes: z.string(),
  created_at: z.iso.datetime(),
});
export type KeyCeremony = z.infer<typeof keyCeremonySchema>;

/** An administrator's rotation or emergency revocation: witnesses besides the acting administrator, and evidence. */
export const keyCeremonyRequestSchema = z.strictObject({
  witnesses: z.array(actorSchema).max(10).optional(),
  evidence_url: z.url({ protocol: /^https?$/ }).max(2048).optional(),
  notes: textString().max(2000).optional(),
});

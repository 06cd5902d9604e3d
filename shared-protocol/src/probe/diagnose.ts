import { z } from 'zod';
import { idSchema } from '../ids.js';
import { nodeSelectionSchema } from './request.js';

/** Diagnose scopes (docs/api/probes.md "Diagnose"), in report order. */
export const DIAGNOSE_SCOPES = ['http', 'ping', 'dns', 'traceroute', 'ssl', 'security_headers'] as const;
export type DiagnoseScope = (typeof DIAGNOSE_SCOPES)[number];

/** Largest report GET /v1/diagnose/{id} answers, bytes of JSON; past it DIAGNOSE_REPORT_TOO_LONG. */
export const DIAGNOSE_REPORT_BYTES_MAX = 256 * 1024;

/**
 * Diagnose request (docs/api/probes.md "Diagnose"): `target` (a host, or an http(s) URL), `scope[]`
 * (default every scope, each at most once), and the nodes as for a probe (`node_ids`, `node_id`, `nodes`).
 * @example { "target": "example.com", "scope": ["http", "ssl"], "nodes": { "count": 2 } }
 */
export const diagnoseRequestSchema = z.strictObject({
  target: z.string().trim().min(1, 'target is required').max(2048),
  scope: z.array(z.enum(DIAGNOSE_SCOPES)).min(1).max(DIAGNOSE_SCOPES.length)
    .refine((s) => new Set(s).size === s.length, 'each scope at most once').default([...DIAGNOSE_SCOPES]),
  node_ids: z.array(idSchema('node')).min(1).max(100).optional(),
  node_id: idSchema('node').optional(),
  nodes: nodeSelectionSchema.optional(),
});
export type DiagnoseRequest = z.infer<typeof diagnoseRequestSchema>;

/** Diagnose status: running until every scope's probe ended, then completed (some scope worked) or failed. */
export const diagnoseStatusSchema = z.enum(['running', 'completed', 'failed']);

/** POST /v1/diagnose answer `data`: `{ id, target, status }`. */
export const diagnoseCreatedSchema = z.object({ id: idSchema('diagnose'), target: z.string(), status: diagnoseStatusSchema });

/** One section of a report: the scope's probe, its findings and score (docs/api/probes.md rubric). */
export const diagnoseSectionSchema = z.object({
  probe_type: z.string(),
  status: z.enum(['running', 'completed', 'failed', 'skipped']),
  /** 0-100; null while running or when skipped. */
  score: z.number().int().min(0).max(100).nullable(),
  findings: z.array(z.string()),
  task_ids: z.array(z.string()),
});

/** GET /v1/diagnose/{id} `data`: `{ id, target, status, overall_score, sections }` (sections keyed by scope). */
export const diagnoseReportSchema = z.object({
  id: idSchema('diagnose'),
  target: z.string(),
  status: diagnoseStatusSchema,
  overall_score: z.number().int().min(0).max(100).nullable(),
  sections: z.record(z.string(), diagnoseSectionSchema),
  created_at: z.iso.datetime(),
});
export type DiagnoseSection = z.infer<typeof diagnoseSectionSchema>;
export type DiagnoseReport = z.infer<typeof diagnoseReportSchema>;

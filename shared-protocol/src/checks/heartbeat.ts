import { z } from 'zod';

/*
 * What a heartbeat monitor's check records (docs/api/checks.md "heartbeat"): one check per
 * check-in that ends a run (success, failure, exit status), one per expected check-in that
 * did not arrive in time, and one per run that started and did not end within the grace.
 * Checked by the control plane, not by nodes.
 */

/** Longest part of a check-in's request body kept with its check, bytes (UTF-8). */
export const HEARTBEAT_BODY_MAX_BYTES = 10_240;

/**
 * Check-in bodies kept per heartbeat monitor: a check-in past the newest this many with a body
 * clears the oldest one's `body` (null; the check stays). With HEARTBEAT_BODY_MAX_BYTES that bounds
 * a monitor's stored bodies to about 1 MB (docs/api/checks.md "heartbeat"; migration
 * 0040_heartbeat_bodies_kept.sql applies it to bodies stored before).
 */
export const HEARTBEAT_BODIES_KEPT = 100;

/**
 * What produced a heartbeat check: `success` (a plain check-in or exit status 0), `fail` (the
 * `/fail` variant), `exit_status` (a non-zero `/{exit_status}`), `missed` (no check-in by the
 * expected time plus the grace), `unfinished` (a `/start` check-in, then no success or failure
 * within the grace: Healthchecks.io's "started" semantics).
 */
export const heartbeatCheckKindSchema = z.enum(['success', 'fail', 'exit_status', 'missed', 'unfinished']);
export type HeartbeatCheckKind = z.infer<typeof heartbeatCheckKindSchema>;

/**
 * Output of a `heartbeat` check. For a check-in: `method`, `source_ip`, `user_agent` (first 200
 * characters), `exit_status` (0-255; null unless sent), `duration_ms` (from the run's `/start`
 * check-in to this one; null without one), `body` (the first HEARTBEAT_BODY_MAX_BYTES of the
 * request body as UTF-8, NUL and malformed bytes replaced by U+FFFD; null when empty, or once
 * HEARTBEAT_BODIES_KEPT newer check-ins kept theirs) and `body_truncated`. For a missed check-in:
 * `expected_at` (when it was due), `deadline_at` (due + grace), `last_checkin_at` and
 * `missed_count` (expected check-ins missed since the last report, at least 1). For an unfinished
 * run: `expected_at` is when it started (its `/start`), `deadline_at` that + grace, `missed_count` 0.
 * @example { "kind": "success", "method": "POST", "source_ip": "198.51.100.7", "user_agent": "curl/8.5.0", "exit_status": null, "duration_ms": 41250, "body": "backup done: 12 GB", "body_truncated": false, "expected_at": null, "deadline_at": null, "last_checkin_at": null, "missed_count": 0 }
 */
export const heartbeatCheckOutputSchema = z.object({
  kind: heartbeatCheckKindSchema,
  method: z.enum(['GET', 'POST', 'HEAD']).nullable(),
  source_ip: z.string().max(64).nullable(),
  user_agent: z.string().max(200).nullable(),
  exit_status: z.number().int().min(0).max(255).nullable(),
  duration_ms: z.number().int().min(0).nullable(),
  body: z.string().nullable(),
  body_truncated: z.boolean(),
  expected_at: z.iso.datetime().nullable(),
  deadline_at: z.iso.datetime().nullable(),
  last_checkin_at: z.iso.datetime().nullable(),
  missed_count: z.number().int().min(0),
});
export type HeartbeatCheckOutput = z.infer<typeof heartbeatCheckOutputSchema>;

/**
 * Answer of a check-in (`GET|POST|HEAD /v1/heartbeat/{token}[/start|/fail|/{exit_status}]`) when
 * the client asks for JSON (`Accept: application/json`); otherwise the answer is the text `OK`.
 * `kind` is `start` for the `/start` variant; `ignored` is true while the monitor is paused.
 * @example { "ok": true, "kind": "success", "ignored": false }
 */
export const heartbeatCheckinAnswerSchema = z.object({
  ok: z.literal(true),
  kind: z.enum(['start', 'success', 'fail', 'exit_status']),
  ignored: z.boolean(),
});
export type HeartbeatCheckinAnswer = z.infer<typeof heartbeatCheckinAnswerSchema>;

import { z } from '@hono/zod-openapi';
import { errorEnvelopeSchema, successEnvelope } from '@vantage/shared-protocol';

/** JSON content of a success envelope (docs/api/conventions.md) around `data`, for createRoute `responses`. */
export function jsonOk<T extends z.ZodType>(data: T, description: string) {
  return { description, content: { 'application/json': { schema: successEnvelope(data) } } };
}

/** JSON content of the error envelope (docs/api/conventions.md). */
export function jsonError(description: string) {
  return { description, content: { 'application/json': { schema: errorEnvelopeSchema } } };
}

/** JSON request body for createRoute `request.body` (required). */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { 'application/json': { schema } } };
}

/** Error responses every authenticated route can give (docs/api/conventions.md). */
export const AUTH_ERRORS = {
  401: jsonError('missing, invalid, revoked or expired credential'),
  403: jsonError('credential lacks the required scope'),
  429: jsonError('rate limit exceeded (Retry-After, X-RateLimit-*)'),
} as const;

/** Bearer security requirement (docs/api/conventions.md), for createRoute `security`. */
export const BEARER = [{ bearer: [] }];

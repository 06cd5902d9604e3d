import { z } from 'zod';

/**
 * Success envelope of docs/api/conventions.md: `{ data, request_id, meta? }`.
 * @example successEnvelope(z.object({ ok: z.literal(true) })).parse({ data: { ok: true }, request_id: 'req_…' })
 */
export function successEnvelope<T extends z.ZodType>(data: T) {
  return z.object({
    data,
    request_id: z.string(),
    meta: z.object({ request_id: z.string().optional() }).catchall(z.unknown()).optional(),
  });
}

/** Message success payload (docs/api/conventions.md): `data.message`. */
export const messageDataSchema = z.object({ message: z.string() });
/** Ok success payload (docs/api/conventions.md): `data.ok` = true. */
export const okDataSchema = z.object({ ok: z.literal(true) });

/**
 * Common page-based query of docs/api/conventions.md: `page` >= 1 default 1, `page_size` 1-200 default 20.
 * Query strings arrive as text, so both are coerced.
 */
export const pageQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(20),
});

/**
 * A page of `item`s in the `{items[], total, page, page_size, has_more}` shape of docs/api/conventions.md
 * (page-based lists; `has_more` = page * page_size < total).
 */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), total: z.number().int(), page: z.number().int(), page_size: z.number().int(), has_more: z.boolean() });
}

/** Offset query used by `{items|api_keys[], total, limit, offset}` lists (docs/api/conventions.md): limit 1-100, offset >= 0. */
export const offsetQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});

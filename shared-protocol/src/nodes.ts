import { z } from 'zod';
import { idSchema } from './ids.js';
import { LIMITS } from './limits.js';

/*
 * HTTP shapes of the node side of the API: enrollment tokens (docs/api/nodes.md), the node directory
 * (docs/api/nodes.md GET /v1/nodes) and the fixed city dictionary (docs/api/nodes.md GET /v1/geo/cities).
 * Dictionary checks (province whitelist, city belongs to country and province) need the
 * dictionary and are done by the control plane; these schemas check shapes only.
 */

/** Operators a token may declare (docs/api/nodes.md). */
export const NODE_OPERATORS = ['chinatelecom', 'chinaunicom', 'chinamobile', 'other'] as const;
export const nodeOperatorSchema = z.enum(NODE_OPERATORS);

/** ISO 3166-1 alpha-2, upper-cased (docs/api/nodes.md). */
export const countryCodeSchema = z.string().regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code').transform((c) => c.toUpperCase());
/** ISO 3166-2 subdivision: two letters, hyphen, 1-3 alphanumerics (docs/api/nodes.md), upper-cased. */
export const provinceCodeSchema = z.string().regex(/^[A-Za-z]{2}-[A-Za-z0-9]{1,3}$/, 'must be an ISO 3166-2 code such as CN-BJ').transform((c) => c.toUpperCase());

/**
 * Create an enrollment token (docs/api/nodes.md): every field optional. `ttl_hours` (1-720, default from
 * configuration, 24) is ours. `shared` (default false): the node it enrolls runs other accounts'
 * probes and monitors too (docs/api/nodes.md "Sharing"); its owner may change it later.
 * @example { "label": "bj-probe-1", "country_code": "cn", "declared_province": "CN-BJ", "city_id": 1, "operator": "chinatelecom", "shared": true }
 */
export const enrollmentTokenCreateSchema = z.strictObject({
  label: z.string().trim().min(1).max(LIMITS.enrollment_label_max_chars).optional(),
  country_code: countryCodeSchema.optional(),
  declared_province: provinceCodeSchema.optional(),
  city_id: z.number().int().min(1).max(2147483647).optional(),
  operator: nodeOperatorSchema.optional(),
  sponsor_user_id: z.string().min(1).max(64).optional(),
  ttl_hours: z.number().int().min(1).max(720).optional(),
  shared: z.boolean().optional(),
  /** The team the node it enrolls will belong to (docs/api/teams.md; the caller must be able to write there); omitted: the caller's own. */
  team_id: idSchema('team').optional(),
});
export type EnrollmentTokenCreate = z.infer<typeof enrollmentTokenCreateSchema>;

/** Created token: the `ent_` secret is returned once (docs/api/nodes.md), with its record id. */
export const enrollmentTokenCreatedSchema = z.object({
  id: idSchema('enrollment_token_record'),
  token: z.string(),
  expires_at: z.iso.datetime(),
});

export const enrollmentTokenStatusSchema = z.enum(['active', 'used', 'expired']);

/** One enrollment token in `{tokens[]}` (docs/api/nodes.md); `preview` is masked (`ent_abcd…wxyz`). */
export const enrollmentTokenItemSchema = z.object({
  id: idSchema('enrollment_token_record'),
  label: z.string().nullable(),
  status: enrollmentTokenStatusSchema,
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
  preview: z.string(),
  consumed_node_id: z.string().nullable(),
  country_code: z.string().nullable(),
  declared_province: z.string().nullable(),
  city_id: z.number().int().nullable(),
  operator: nodeOperatorSchema.nullable(),
  /** Whether the node it enrolls (enrolled) is shared with other accounts from its enrollment. */
  shared: z.boolean(),
  /** The team the token (and the node it enrolls) belongs to, or null: its creator's own. */
  team_id: z.string().nullable(),
});
export type EnrollmentTokenItem = z.infer<typeof enrollmentTokenItemSchema>;
export const enrollmentTokenListSchema = z.object({ tokens: z.array(enrollmentTokenItemSchema) });

/** Node status (docs/api/nodes.md): online, offline, disabled (by its owner), banned (by an operator). */
export const NODE_STATUSES = ['online', 'offline', 'disabled', 'banned'] as const;
export const nodeStatusSchema = z.enum(NODE_STATUSES);
export type NodeStatus = z.infer<typeof nodeStatusSchema>;

/**
 * One node in the public directory (docs/api/nodes.md `{id, name, country, region, provider, status}`),
 * plus city, ASN, tags and capabilities so callers can build a `nodes` selection.
 */
export const nodeListItemSchema = z.object({
  id: idSchema('node'),
  name: z.string(),
  country: z.string().nullable(),
  region: z.string().nullable(),
  city: z.string().nullable(),
  asn: z.number().int().nullable(),
  provider: z.string().nullable(),
  status: nodeStatusSchema,
  tags: z.array(z.string()),
  capabilities: z.array(z.string()),
  last_seen_at: z.iso.datetime().nullable(),
});
export type NodeListItem = z.infer<typeof nodeListItemSchema>;

/** A node as its owner sees it: the directory entry plus owner-only facts. */
export const nodeDetailSchema = nodeListItemSchema.extend({
  isp: z.string().nullable(),
  agent_version: z.string().nullable(),
  created_at: z.iso.datetime(),
  /** Owner-only (null for everyone else). */
  ip_address: z.string().nullable(),
  allow_private: z.boolean().nullable(),
  /** Owner-only: the node's last `outbox.stats` (results waiting, results dropped by its bound). */
  outbox: z.object({
    pending: z.number().int(),
    dropped_total: z.number().int(),
    oldest_pending_at: z.iso.datetime().nullable(),
    reported_at: z.iso.datetime(),
  }).nullable(),
  /**
   * The node's clock minus the control plane's, ms, as the node last measured it (heartbeats,
   * NTP-style); null until it reported one. `clock_skewed` is true when it is more than 1000 ms
   * either way: the node's monitor rounds may then not start together with the others'.
   */
  clock_offset_ms: z.number().int().nullable(),
  clock_skewed: z.boolean(),
  clock_reported_at: z.iso.datetime().nullable(),
  /** True when the caller may read the node's owner-only facts: its owner, or a member of its team. */
  is_owner: z.boolean(),
  /** The team the node belongs to (its members manage it by role: docs/api/teams.md), or null: its enroller's own. Shown to those who may read it (is_owner), null for everyone else. */
  team_id: z.string().nullable(),
  /**
   * A platform node: marked by the operator (docs/api/nodes.md "Platform nodes") and trusted with
   * every account's secret request headers; any other node receives only its owner's.
   */
  platform: z.boolean(),
  /**
   * Its owner lets other accounts' probes and monitors run on it (docs/api/nodes.md "Sharing").
   * A node that is neither shared nor a platform node works only for its owner.
   */
  shared: z.boolean(),
});
export type NodeDetail = z.infer<typeof nodeDetailSchema>;

/** GET /v1/nodes filters (docs/api/conventions.md paging: page >= 1, page_size 1-200). */
export const nodeListQuerySchema = z.object({
  country: countryCodeSchema.optional(),
  region: z.string().min(1).max(64).optional(),
  provider: z.string().min(1).max(128).optional(),
  status: nodeStatusSchema.optional(),
  asn: z.coerce.number().int().min(1).max(4294967295).optional(),
  tag: z.string().min(1).max(32).optional(),
  /** `true`: only the nodes the caller may manage or read as owner (its own and its teams'). */
  mine: z.enum(['true', 'false']).optional(),
  /** With mine=true: only that team's nodes. */
  team_id: idSchema('team').optional(),
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(LIMITS.page_size_max).default(LIMITS.page_size_default),
});

/** `{items[], total, page, page_size, has_more}` (docs/api/conventions.md list variant). */
export const nodeListSchema = z.object({
  items: z.array(nodeListItemSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
  has_more: z.boolean(),
});

const tagSchema = z.string().regex(/^[a-z0-9][a-z0-9_.:-]{0,31}$/, 'tags are 1-32 of a-z 0-9 _ . : - starting with a letter or digit');

/**
 * Owner update of a node (PATCH /v1/nodes/{id}); omitted = unchanged. `shared`: whether other
 * accounts' probes and monitors may run on it (docs/api/nodes.md "Sharing").
 * @example { "name": "fra-1", "tags": ["eu", "hetzner"], "allow_private": false, "shared": true }
 */
export const nodeUpdateSchema = z.strictObject({
  name: z.string().trim().min(1).max(64).optional(),
  tags: z.array(tagSchema).max(20).optional(),
  allow_private: z.boolean().optional(),
  shared: z.boolean().optional(),
});
export type NodeUpdate = z.infer<typeof nodeUpdateSchema>;

/** Who set a node's platform mark: VANTAGE_PLATFORM_NODE_OWNERS, an administrator, or nobody (null). */
export const platformSourceSchema = z.enum(['owners_setting', 'admin']).nullable();

/**
 * A node as an administrator sees it (GET /v1/admin/nodes, docs/api/nodes.md "Administrators"):
 * every node that is not removed, with its owner and how it is shared.
 */
export const adminNodeSchema = z.object({
  id: idSchema('node'),
  name: z.string(),
  owner_user_id: z.string().nullable(),
  owner_email: z.string().nullable(),
  status: nodeStatusSchema,
  country: z.string().nullable(),
  region: z.string().nullable(),
  asn: z.number().int().nullable(),
  provider: z.string().nullable(),
  ip_address: z.string().nullable(),
  agent_version: z.string().nullable(),
  shared: z.boolean(),
  platform: z.boolean(),
  platform_source: platformSourceSchema,
  last_seen_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
});
export type AdminNode = z.infer<typeof adminNodeSchema>;

/** `{items[], total, page, page_size, has_more}` of {@link adminNodeSchema}, ordered by id. */
export const adminNodeListSchema = z.object({
  items: z.array(adminNodeSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
  has_more: z.boolean(),
});

/** GET /v1/admin/nodes query: paging (docs/api/conventions.md), `platform` / `shared` filters. */
export const adminNodeListQuerySchema = z.object({
  platform: z.enum(['true', 'false']).optional(),
  shared: z.enum(['true', 'false']).optional(),
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(LIMITS.page_size_max).default(LIMITS.page_size_default),
});

/**
 * An administrator marks or unmarks a platform node (PATCH /v1/admin/nodes/{id}); the mark then
 * stays whatever VANTAGE_PLATFORM_NODE_OWNERS says at the next start.
 * @example { "platform": true }
 */
export const adminNodeUpdateSchema = z.strictObject({ platform: z.boolean() });

/** One city of the fixed dictionary (docs/api/nodes.md): integer id, ISO country and ISO 3166-2 province. */
export const citySchema = z.object({
  id: z.number().int().min(1),
  name: z.string(),
  country: z.string(),
  province: z.string(),
  province_name: z.string(),
});
export type City = z.infer<typeof citySchema>;
export const cityListQuerySchema = z.object({
  country: countryCodeSchema.optional(),
  province: provinceCodeSchema.optional(),
});
export const cityListSchema = z.object({ items: z.array(citySchema) });

import { z } from 'zod';
import { OAUTH_PROVIDER_ID_PATTERN } from '@vantage/shared-protocol';

const httpUrl = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''));

/** One OpenID Connect 1.0 provider, found by discovery from its issuer (OpenID Connect Discovery 1.0). */
const oidcProviderSchema = z.strictObject({
  /** Provider id in URLs (`/v1/auth/oauth/{id}/…`) and in linked identities: 1–32 of `a-z0-9-`. */
  id: z.string().regex(OAUTH_PROVIDER_ID_PATTERN),
  /** Display name shown on the login page (`Company SSO`). */
  name: z.string().trim().min(1).max(64),
  kind: z.literal('oidc'),
  /** Issuer identifier; `<issuer>/.well-known/openid-configuration` must answer. */
  issuer: httpUrl,
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  /** Scopes asked for; `openid` and `email` are needed to read the e-mail. */
  scopes: z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/)).min(1).default(['openid', 'email', 'profile']),
  /** Allow a plain-http issuer (a test or lab provider only; HTTPS otherwise, RFC 6749 3.1). */
  allow_http: z.boolean().default(false),
});

/**
 * GitHub's OAuth apps (GitHub Docs "Authorizing OAuth apps"): authorize at
 * `<base_url>/login/oauth/authorize`, token at `<base_url>/login/oauth/access_token`, user at
 * `<api_url>/user` and `<api_url>/user/emails`. The base URLs change only for GitHub Enterprise
 * Server (`https://ghe.example`, `https://ghe.example/api/v3`) or a test server.
 */
const githubProviderSchema = z.strictObject({
  id: z.string().regex(OAUTH_PROVIDER_ID_PATTERN),
  name: z.string().trim().min(1).max(64).default('GitHub'),
  kind: z.literal('github'),
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  base_url: httpUrl.default('https://github.com'),
  api_url: httpUrl.default('https://api.github.com'),
  /** Allow plain-http base URLs (a test server only). */
  allow_http: z.boolean().default(false),
});

const providerSchema = z.discriminatedUnion('kind', [oidcProviderSchema, githubProviderSchema]).superRefine((p, ctx) => {
  const urls = p.kind === 'oidc' ? [p.issuer] : [p.base_url, p.api_url];
  if (!p.allow_http && urls.some((u) => u.startsWith('http:'))) ctx.addIssue({ code: 'custom', message: `provider ${p.id}: an http URL needs "allow_http": true` });
});

/** A configured sign-in provider (config/oidc.ts). */
export type OAuthProviderConfig = z.infer<typeof providerSchema>;

/** The JSON text of VANTAGE_OIDC_PROVIDERS as a value (the list schema checks it next). */
function fromJson(text: string, ctx: { addIssue: (i: { code: 'custom'; message: string; input: unknown }) => void }): unknown {
  try { return JSON.parse(text); } catch { ctx.addIssue({ code: 'custom', message: 'must be a JSON array of providers', input: text }); return z.NEVER; }
}

/** Single sign-on configuration (docs/api/accounts.md "Single sign-on (OIDC, GitHub)"). */
export const oidcConfigSchema = z.object({
  /**
   * Sign-in providers (VANTAGE_OIDC_PROVIDERS), a JSON array, each
   * `{"id","name","kind":"oidc","issuer","client_id","client_secret","scopes"?}` for an OpenID
   * Connect issuer or `{"id","kind":"github","client_id","client_secret","name"?,"base_url"?,"api_url"?}`
   * for GitHub; `"allow_http": true` admits plain-http URLs (lab or test providers only). Ids are
   * unique, 1–32 of `a-z0-9-`. The redirect URI to register at the provider is
   * `<public URL>/v1/auth/oauth/<id>/callback`. Empty: no single sign-on. Secrets are never logged.
   */
  oidc_providers: z.string().transform(fromJson).pipe(z.array(providerSchema).max(20))
    .refine((list) => new Set(list.map((p) => p.id)).size === list.length, { message: 'provider ids must be unique' })
    .default([]),
  /** Seconds a started sign-in or link flow can be completed, and a link offer confirmed (VANTAGE_OIDC_STATE_TTL_S). */
  oidc_state_ttl_s: z.coerce.number().int().min(60).max(3600).default(600),
});

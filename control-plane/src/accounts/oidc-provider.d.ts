// The part of oidc-provider v9 (no bundled types) the single sign-on tests use
// (accounts/oidc-test-servers.ts): construct an issuer and take its Node request handler.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Account { accountId: string; claims: () => Promise<Record<string, unknown>> }

  export default class Provider {
    constructor(issuer: string, configuration: {
      clients: Array<Record<string, unknown>>;
      findAccount: (ctx: unknown, sub: string) => Promise<Account | undefined>;
      claims?: Record<string, string[]>;
      cookies?: { keys: string[] };
      pkce?: { required: () => boolean };
      [key: string]: unknown;
    });
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}

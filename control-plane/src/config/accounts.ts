import { z } from 'zod';

/** Who may create an account through `POST /v1/auth/register` (docs/operators/self-hosting.md "Registration"). */
export const REGISTRATION_MODES = ['open', 'invite', 'closed'] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];

/** Account configuration (docs/operators/self-hosting.md "Administrators" and "Registration"). */
export const accountsConfigSchema = z.object({
  /**
   * Accounts with these e-mails are operator administrators once the address is verified
   * (VANTAGE_ADMIN_EMAILS, comma list, compared case-insensitively), besides accounts marked
   * administrator in the database (the first account of an empty deployment, and accounts an
   * administrator promotes through PATCH /v1/admin/accounts/{id}).
   */
  admin_emails: z.array(z.email()).max(100).default([]),
  /**
   * Who may register (VANTAGE_REGISTRATION): `open` anyone who reaches the API, `invite` only
   * with an invite token an administrator created (POST /v1/admin/invites), `closed` nobody:
   * administrators create accounts (POST /v1/admin/accounts). In every mode the first account
   * of an empty deployment may register and becomes its administrator. Default `closed`: a
   * deployment a team runs for itself should not take sign-ups from whoever finds its address.
   */
  registration: z.enum(REGISTRATION_MODES).default('closed'),
});

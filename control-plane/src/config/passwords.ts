import { z } from 'zod';

/** Password rules, change and reset by e-mail (docs/api/accounts.md "Passwords"). */
export const passwordsConfigSchema = z.object({
  /**
   * Lowest strength score a new password may have (VANTAGE_PASSWORD_MIN_SCORE), 0-4 on the
   * zxcvbn scale (0 too guessable, 1 very guessable, 2 somewhat guessable, 3 safely unguessable,
   * 4 very unguessable: Wheeler, "zxcvbn: Low-Budget Password Strength Estimation", USENIX
   * Security 2016), the account's e-mail address and name counting as known words. Below it:
   * 400 AUTH_PASSWORD_WEAK. Default 3 (about 10^8 guesses or more); 0 turns the check off (the
   * 8-character minimum stays).
   */
  password_min_score: z.coerce.number().int().min(0).max(4).default(3),
  /**
   * How many of an account's most recent passwords, the current one included, a new password may
   * not repeat (VANTAGE_PASSWORD_HISTORY_COUNT): 400 AUTH_PASSWORD_REUSED. 0 = no check. Each
   * remembered password costs one hash verification when the password changes.
   */
  password_history_count: z.coerce.number().int().min(0).max(24).default(5),
  /** How long a password-reset link stays usable, seconds (VANTAGE_PASSWORD_RESET_TTL_S); default 3600 (60 min). */
  password_reset_ttl_s: z.coerce.number().int().min(300).max(86_400).default(3600),
  /**
   * An account without a password (made through single sign-on) may set one with
   * POST /v1/account/password, with no current password, only from a session opened at most
   * this many seconds ago (VANTAGE_PASSWORD_SET_SESSION_MAX_AGE_S): a signed-in browser left
   * unattended cannot be given a password by whoever finds it. Default 600 (10 min); sign in again
   * or use a reset link past it.
   */
  password_set_session_max_age_s: z.coerce.number().int().min(60).max(86_400).default(600),
});

import { onChargePaid } from '../billing/payment-api.js';
import { markOrderPaid } from './verdicts.db.js';

/**
 * When a verdict order's charge is paid (the manual provider's admin mark or a Stripe webhook;
 * billing calls this once, in the transaction that marks the charge paid), the order moves
 * created → paid and is due for generation at once (docs/api/verdicts.md "States").
 */
export function registerVerdictPayments(): void {
  onChargePaid('verdict_order', async (tx, charge) => {
    await markOrderPaid(tx, charge.reference_id, charge.charge_id);
  });
}

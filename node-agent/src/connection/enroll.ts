import { enrollProof, type EnrollConfirmMessage } from '@vantage/shared-protocol';

/**
 * The node's `enroll.confirm` after an enrollment `welcome`: proof, on the same connection, that
 * it has stored the credential the welcome carried. Send it only once the credential is durably
 * saved: the control plane spends the enrollment token on it, and until then re-issues the
 * credential to a retry with the same token (docs/architecture/hub.md, enrollment).
 */
export function enrollConfirm(node_id: string, credential: string): EnrollConfirmMessage {
  return { type: 'enroll.confirm', node_id, proof: enrollProof(credential, node_id) };
}

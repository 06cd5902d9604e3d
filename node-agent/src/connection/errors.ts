/**
 * Why the agent stopped talking to the control plane for good (classify, then
 * act): a fatal close code (4001-4005), a 401/403 on the upgrade, or an enrollment that did not
 * yield a credential. The agent's one error type; the CLI prints `message` and exits with status 3.
 */
export class AgentFatalError extends Error {
  override readonly name = 'AgentFatalError';

  /**
   * @param code a stable short name (`credential_invalid`, `enrollment_token_invalid`, `http_401`…)
   * @param message what the operator reads, including the control plane's reason when it gave one
   */
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

/**
 * Thrown by a probe when the check itself is unusable on this node (a TCP target without a port,
 * say), so there is nothing to measure and no output to return. The runner turns it into
 * `{ success: false, error_class: 'rejected', output: null }`; any other throw is `internal`.
 */
export class ProbeInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProbeInputError';
  }
}

import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The address plan of the end-to-end test network (docs/architecture/test-network.md):
 * 198.18.0.0/15 (RFC 2544) and fd00:7661::/32 (RFC 4193) only.
 *
 * Only the parts the root namespace sees (the control-plane uplink and the agent subnets it routes
 * back to) depend on a *slot* (0-15), so that several networks can run at once on one machine (tap
 * runs test files in parallel): slot s owns 198.18.(16·s).0/20. Everything behind r1 (the r1–r2
 * link and the targets subnet) lives only inside namespaces and is the same in every slot.
 *
 *   slot 0:  root 198.18.0.1 ── r1 198.18.0.2
 *            r1 198.18.1{0,1,2}.1 ── agent i 198.18.1{0,1,2}.2   (fd00:7661:1{0,1,2}::1 / ::2)
 *            r1 198.19.0.1 ── r2 198.19.0.2                        (fd00:7661:f0::1 / ::2)
 *            r2 198.19.1.1 ── targets 198.19.1.10                  (fd00:7661:100::1 / ::10)
 */

/** Most agent hosts a network can have (agent subnets are 198.18.(16·s+10+i).0/24). */
export const MAX_AGENTS = 6;
export const SLOTS = 16;

export interface AgentAddresses {
  v4: string;
  v6: string;
  /** r1's address on this agent's link: the agent's gateway and its first traceroute hop. */
  gateway_v4: string;
  gateway_v6: string;
  /** The agent's subnet (for source-dependent answers). */
  subnet_v4: string;
  subnet_v6: string;
}

export interface AddressPlan {
  slot: number;
  /** The root namespace's end of the uplink: the control plane listens here. */
  root_v4: string;
  /** r1's end of the uplink. */
  r1_uplink_v4: string;
  /** The /20 the root namespace routes to r1 (it holds every agent subnet). */
  root_route_v4: string;
  agents: AgentAddresses[];
  /** r1 and r2 on their shared link; r2_v4/r2_v6 is the second traceroute hop. */
  r1_v4: string;
  r1_v6: string;
  r2_v4: string;
  r2_v6: string;
  /** r2 on the targets subnet (the targets host's gateway). */
  r2_targets_v4: string;
  r2_targets_v6: string;
  targets_v4: string;
  targets_v6: string;
}

/**
 * The plan for `slot` (0-15) with `agent_count` agent hosts (1-6). Pure.
 * IPv6 subnet ids reuse the decimal digits of the IPv4 third octet (`198.18.26.2` ↔
 * `fd00:7661:26::2`), which reads well and never collides inside one slot.
 */
export function addressPlan(slot: number, agent_count: number): AddressPlan {
  if (!Number.isInteger(slot) || slot < 0 || slot >= SLOTS) throw new Error(`slot must be 0-${SLOTS - 1}`);
  if (!Number.isInteger(agent_count) || agent_count < 1 || agent_count > MAX_AGENTS) throw new Error(`agent_count must be 1-${MAX_AGENTS}`);
  const base = slot * 16;
  const agents = Array.from({ length: agent_count }, (_, i): AgentAddresses => {
    const octet = base + 10 + i;
    return {
      v4: `198.18.${octet}.2`, v6: `fd00:7661:${octet}::2`,
      gateway_v4: `198.18.${octet}.1`, gateway_v6: `fd00:7661:${octet}::1`,
      subnet_v4: `198.18.${octet}.0/24`, subnet_v6: `fd00:7661:${octet}::/64`,
    };
  });
  return {
    slot,
    root_v4: `198.18.${base}.1`,
    r1_uplink_v4: `198.18.${base}.2`,
    root_route_v4: `198.18.${base}.0/20`,
    agents,
    r1_v4: '198.19.0.1', r1_v6: 'fd00:7661:f0::1',
    r2_v4: '198.19.0.2', r2_v6: 'fd00:7661:f0::2',
    r2_targets_v4: '198.19.1.1', r2_targets_v6: 'fd00:7661:100::1',
    targets_v4: '198.19.1.10', targets_v6: 'fd00:7661:100::10',
  };
}

/** A claimed slot; `release()` frees it (idempotent). */
export interface SlotClaim {
  slot: number;
  release(): void;
}

const lockFile = (slot: number) => join(tmpdir(), `vantage-e2e-slot-${slot}.lock`);

function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** True when the root namespace already has an address or route inside 198.18.(16·slot).0/20. */
function slotInUse(slot: number): boolean {
  const text = execFileSync('ip', ['-4', '-o', 'addr', 'show'], { encoding: 'utf8' }) + execFileSync('ip', ['-4', 'route', 'show'], { encoding: 'utf8' });
  const lo = slot * 16;
  return [...text.matchAll(/198\.18\.(\d+)\.\d+/g)].some((m) => Number(m[1]) >= lo && Number(m[1]) < lo + 16);
}

/**
 * Claim a free slot: an exclusive lock file `$TMPDIR/vantage-e2e-slot-<n>.lock` holding our pid
 * (a lock whose pid is dead is taken over), and no root-namespace address or route in its /20
 * (a slot held by processes that outlived a killed run stays skipped).
 * @throws Error when all 16 slots are taken
 */
export function claimSlot(): SlotClaim {
  for (let slot = 0; slot < SLOTS; slot++) {
    const path = lockFile(slot);
    let fd: number;
    try {
      fd = openSync(path, 'wx');
    } catch {
      let text = '';
      try { text = readFileSync(path, 'utf8').trim(); } catch { /* removed meanwhile: try again below */ }
      // An empty file is a lock being written right now by its owner: leave it.
      if (text === '' || pidAlive(Number(text))) continue;
      rmSync(path, { force: true });
      try { fd = openSync(path, 'wx'); } catch { continue; }
    }
    writeSync(fd, String(process.pid));
    closeSync(fd);
    if (slotInUse(slot)) {
      rmSync(path, { force: true });
      continue;
    }
    let released = false;
    return { slot, release: () => { if (!released) { released = true; rmSync(path, { force: true }); } } };
  }
  throw new Error('no free test-network slot (16 in use): stale lock files in the temp folder or networks left running');
}

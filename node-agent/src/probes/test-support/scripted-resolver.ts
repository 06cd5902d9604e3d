import dgram from 'node:dgram';
import dnsPacket, { type Answer } from 'dns-packet';

/** The answer records for one question, or null for a name the resolver does not know (NXDOMAIN). */
export type ResolverScript = (name: string, type: string) => Answer[] | null;

/** A resolver started by {@link startScriptedResolver}: the questions it got (`name TYPE`), in order. */
export interface ScriptedResolver { questions: string[]; close: () => void }

/**
 * A recursive-looking DNS resolver on UDP 127.0.0.1:`port` (default 53: inside a test namespace
 * whose resolv.conf names it, it is the node's resolver) that answers each question with
 * `script`; malformed datagrams and empty questions are ignored.
 */
export async function startScriptedResolver(script: ResolverScript, port = 53): Promise<ScriptedResolver> {
  const questions: string[] = [];
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, from) => {
    let query;
    try {
      query = dnsPacket.decode(msg);
    } catch {
      return;
    }
    const q = query.questions?.[0];
    if (!q) return;
    questions.push(`${q.name} ${q.type}`);
    const answers = script(q.name, q.type);
    const flags = dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (answers ? 0 : 3);
    socket.send(dnsPacket.encode({ id: query.id, type: 'response', flags, questions: [q], answers: answers ?? [] }), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(port, '127.0.0.1', resolve));
  return { questions, close: () => socket.close() };
}

/**
 * A real DNS server on loopback for tests (UDP, RFC 1035 wire format): answers TXT questions from a map the test
 * edits, NXDOMAIN for names it does not hold, an empty answer for other types. The portal asks it through
 * DNS_RESOLVER=127.0.0.1:<port> with node's own resolver, as it would ask the operator's.
 */
import { createSocket } from 'node:dgram';

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for DNS_RESOLVER. */
  address: string;
  /** TXT values by lower-case name; edit it to change what the server answers. */
  txt: Map<string, string[]>;
  /** How many questions it has answered. */
  queries(): number;
  close(): Promise<void>;
}

const TYPE_TXT = 16;

/** The question's name and where the question section ends (type and class included); null if unreadable. */
function readQuestion(msg: Buffer): { name: string; type: number; end: number } | null {
  const labels: string[] = [];
  let at = 12;
  while (at < msg.length) {
    const len = msg[at]!;
    if (len === 0) {
      if (at + 5 > msg.length) return null;
      return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(at + 1), end: at + 5 };
    }
    if (len > 63) return null; // a compression pointer never starts a question's name
    labels.push(msg.toString('latin1', at + 1, at + 1 + len));
    at += 1 + len;
  }
  return null;
}

/** A TXT record's data: each string up to 255 bytes, length-prefixed. */
function txtRdata(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length || i === 0; i += 255) {
    const chunk = bytes.subarray(i, i + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
  }
  return Buffer.concat(parts);
}

export async function startTestDnsServer(): Promise<TestDnsServer> {
  const txt = new Map<string, string[]>();
  let count = 0;
  const socket = createSocket('udp4');
  socket.on('message', (msg, peer) => {
    const q = msg.length >= 12 ? readQuestion(msg) : null;
    if (!q) return;
    count++;
    const values = txt.get(q.name);
    const answers = values && q.type === TYPE_TXT ? values : [];
    const header = Buffer.alloc(12);
    header.writeUInt16BE(msg.readUInt16BE(0), 0); // the query's id
    // Response, authoritative, recursion desired echoed and available; NXDOMAIN when the name is unknown.
    header.writeUInt16BE(0x8400 | (msg.readUInt16BE(2) & 0x0100) | 0x0080 | (values ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map((value) => {
      const rdata = txtRdata(value);
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      rr.writeUInt16BE(TYPE_TXT, 2);
      rr.writeUInt16BE(1, 4); // class IN
      rr.writeUInt32BE(0, 6); // TTL 0: no resolver keeps it
      rr.writeUInt16BE(rdata.length, 10);
      return Buffer.concat([rr, rdata]);
    });
    socket.send(Buffer.concat([header, msg.subarray(12, q.end), ...records]), peer.port, peer.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => resolve());
  });
  return {
    address: `127.0.0.1:${socket.address().port}`,
    txt,
    queries: () => count,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

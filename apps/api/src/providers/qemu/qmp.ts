/**
 * A minimal QMP (QEMU Machine Protocol) client: one connection per command over the machine's unix socket.
 * QEMU serves one QMP client at a time per socket; a second connection waits until the first closes, so
 * short connections keep concurrent callers from starving each other.
 */
import net from 'node:net';

export class QmpError extends Error {
  override name = 'QmpError';
}

/** Runs one QMP command and resolves with its `return` value. */
export function qmpCommand(socketPath: string, execute: string, args?: Record<string, unknown>, timeoutMs = 3000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const sock = net.createConnection(socketPath);
    let buf = '';
    let phase: 'greeting' | 'capabilities' | 'command' = 'greeting';
    let settled = false;
    const finish = (err: Error | null, value?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      if (err) reject(err);
      else resolve(value);
    };
    const timer = setTimeout(() => finish(new QmpError(`QMP ${execute} timed out after ${timeoutMs} ms`)), timeoutMs);
    sock.setEncoding('utf8');
    sock.on('error', (e) => finish(new QmpError(`QMP ${execute}: ${e.message}`)));
    sock.on('close', () => {
      // `quit` closes the connection, sometimes before its reply arrives.
      if (phase === 'command' && execute === 'quit') finish(null, {});
      else finish(new QmpError(`QMP connection closed during ${execute}`));
    });
    sock.on('data', (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line) continue;
        let msg: { QMP?: unknown; return?: unknown; error?: { class?: string; desc?: string }; event?: string };
        try {
          msg = JSON.parse(line) as typeof msg;
        } catch {
          finish(new QmpError(`QMP sent invalid JSON: ${line.slice(0, 200)}`));
          return;
        }
        if (msg.event) continue;
        if (msg.error) {
          finish(new QmpError(`QMP ${execute} failed: ${msg.error.class ?? 'Error'}: ${msg.error.desc ?? ''}`));
          return;
        }
        if (phase === 'greeting' && msg.QMP) {
          phase = 'capabilities';
          sock.write(`${JSON.stringify({ execute: 'qmp_capabilities' })}\n`);
        } else if (phase === 'capabilities' && 'return' in msg) {
          phase = 'command';
          sock.write(`${JSON.stringify(args ? { execute, arguments: args } : { execute })}\n`);
        } else if (phase === 'command' && 'return' in msg) {
          finish(null, msg.return);
        }
      }
    });
  });
}

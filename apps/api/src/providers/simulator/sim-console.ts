/**
 * The simulator's serial console: a getty-like login (any user and password) and a tiny line-editing shell,
 * so the console page can be tried in the demo. It echoes what is typed and answers a few commands.
 */
import { Duplex } from 'node:stream';

export function simulatedSerial(hostname: string): Duplex {
  const prompt = `root@${hostname}:~# `;
  let line = '';
  let stage: 'login' | 'password' | 'shell' = 'login';
  const loginPrompt = `${hostname} login: `;
  const answer = (cmd: string): string => {
    if (cmd === '') return '';
    if (cmd === 'hostname') return `${hostname}\r\n`;
    if (cmd === 'whoami') return 'root\r\n';
    if (cmd === 'uname -a' || cmd === 'uname') return `Linux ${hostname} 6.1.0-simulated x86_64 GNU/Linux\r\n`;
    if (cmd.startsWith('echo ')) return `${cmd.slice(5)}\r\n`;
    return `${cmd.split(' ')[0]}: simulated console (try hostname, whoami, uname, echo)\r\n`;
  };
  const stream: Duplex = new Duplex({
    read() {},
    write(chunk: Buffer, _enc, done) {
      let out = '';
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') {
          if (stage === 'login') {
            stage = line.trim() ? 'password' : 'login';
            out += stage === 'password' ? '\r\nPassword: ' : `\r\n${loginPrompt}`;
          } else if (stage === 'password') {
            stage = 'shell';
            out += `\r\n${prompt}`;
          } else {
            out += `\r\n${answer(line.trim())}${prompt}`;
          }
          line = '';
        } else if (ch === '\x7f' || ch === '\b') {
          if (line.length > 0) {
            line = line.slice(0, -1);
            out += '\b \b';
          }
        } else if (ch === '\x03') {
          line = '';
          out += `^C\r\n${prompt}`;
        } else if (ch >= ' ') {
          line += ch;
          if (stage !== 'password') out += ch;
        }
      }
      if (out) stream.push(out);
      done();
    },
  });
  stream.push(`\r\nDebian GNU/Linux 12 ${hostname} ttyS0 (simulated)\r\n\r\n${loginPrompt}`);
  return stream;
}

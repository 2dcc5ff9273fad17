/**
 * Preloaded into the portal's process by the proof runs (`--import`), never by the product: writes the
 * process's memory (RSS, V8 heap) to PROOF_MEMORY_FILE every second, because the server does not expose
 * its heap anywhere else.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.PROOF_MEMORY_FILE;
if (file) {
  const write = () => {
    const m = process.memoryUsage();
    writeFileSync(
      file,
      JSON.stringify({
        at: Date.now(),
        rss: m.rss,
        heapUsed: m.heapUsed,
        heapTotal: m.heapTotal,
        external: m.external,
      }),
    );
  };
  write();
  setInterval(write, 1000).unref();
}

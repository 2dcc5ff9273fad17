/** A TCP port free on `address` right now (the OS picks it; the caller binds it next). */
import { createServer, type AddressInfo } from 'node:net';

export function freePort(address = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, address, () => {
      const port = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

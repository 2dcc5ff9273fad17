/**
 * A reverse proxy on loopback in front of the portal, as docs/reverse-proxy.md configures it: Debian's nginx
 * (run as root with its own prefix, config and pid in a temp dir), or, when nginx cannot start, a small Node
 * proxy that forwards requests and websocket upgrades the same way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../apps/api/test/free-port.ts';

export const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

export interface ReverseProxy {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  kind: 'nginx' | 'node';
  stop(): Promise<void>;
}

/** The server block of docs/reverse-proxy.md, pointed at `upstream` (e.g. http://127.0.0.1:3000). */
export function nginxConfig(dir: string, port: number, upstream: string): string {
  return `worker_processes 1;
user root;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;

  map $http_upgrade $connection_upgrade {
    default upgrade;
    ''      close;
  }

  server {
    listen 127.0.0.1:${port};

    # Everything: the portal's pages and the API under the same host.
    location / {
      proxy_pass ${upstream};
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-Host "";
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
    }

    # The console websockets (VNC and serial): upgrade, and no idle cut (the API pings every 20 s).
    location ~ /virtualMachines/console/[0-9]+/(vnc|serial)$ {
      proxy_pass ${upstream};
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-Host "";
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_read_timeout 1h;
      proxy_send_timeout 1h;
      proxy_buffering off;
    }

    # The live-status stream (server-sent events): no buffering, long reads.
    location ~ /virtualMachines/events$ {
      proxy_pass ${upstream};
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-Host "";
      proxy_set_header Connection '';
      proxy_buffering off;
      proxy_cache off;
      proxy_read_timeout 1h;
    }
  }
}
`;
}

async function startNginx(upstream: string): Promise<ReverseProxy> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-nginx-'));
  await mkdir(path.join(dir, 'tmp'), { recursive: true });
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  await writeFile(conf, nginxConfig(dir, port, upstream));
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', conf, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`nginx exited: ${stderr}${await readFile(path.join(dir, 'error.log'), 'utf8').catch(() => '')}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port}: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    origin,
    kind: 'nginx',
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGQUIT');
        await new Promise((r) => child.once('exit', r));
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The fallback: requests and websocket upgrades forwarded byte for byte. */
async function startNodeProxy(upstream: string): Promise<ReverseProxy> {
  const target = new URL(upstream);
  const server = http.createServer((req, res) => {
    const up = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.on('upgrade', (req, socket, head) => {
    const up = net.connect(Number(target.port), target.hostname, () => {
      const lines = [
        `${req.method} ${req.url} HTTP/1.1`,
        ...Object.entries(req.headers).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : v}`),
      ];
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return { origin: `http://127.0.0.1:${port}`, kind: 'node', stop: () => new Promise((r) => server.close(() => r())) };
}

export async function startReverseProxy(upstream: string): Promise<ReverseProxy> {
  if (existsSync(NGINX)) {
    try {
      return await startNginx(upstream);
    } catch (e) {
      console.warn(`nginx could not start, using the Node proxy: ${(e as Error).message}`);
    }
  }
  return startNodeProxy(upstream);
}

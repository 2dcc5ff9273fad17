/**
 * The console websockets: `{API}/virtualMachines/console/{id}/vnc` relays the VM's VNC server (binary RFB, as
 * noVNC speaks it) and `…/serial` its first serial port, both byte for byte. The browser never reaches the host.
 *
 * Before the upgrade (a refusal is a plain HTTP answer): a browser's `Origin` must be one of the portal's own hosts
 * (below), the session cookie must be signed in, the single-use
 * token from `getConsole` must be live and bound to this session and VM, and the user must still be allowed to
 * operate the VM (checked now, not only when the link was issued). While open: a websocket ping every
 * CONSOLE_PING_MS keeps proxies from cutting an idle console, and the session is checked again every
 * `sessionRecheckMs` (logout, password reset or lost access end the console). Each session is audited when it
 * opens and when it closes, with its kind and duration.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { Duplex } from 'node:stream';
import { z } from 'zod';
import type { Audit } from '../../lib/audit.ts';
import type { AuthContext } from '../../lib/auth-context.ts';
import type { Clock } from '../../lib/clock.ts';
import { BadRequestError, ForbiddenError, NotFoundError, ProviderUnavailableError } from '../../lib/errors.ts';
import type { ConsoleKind } from '../../providers/provider.ts';
import { SESSION_COOKIE } from '../../plugins/session.ts';
import type { Access } from '../access/access.ts';
import type { ModuleDeps } from '../module.ts';

type SessionStore = ModuleDeps['sessions'];
type ResellerHosts = ModuleDeps['resellerHosts'];
import { scopeOf } from '../module.ts';
import type { ConsoleTokenStore } from './console-tokens.ts';
import type { ConsoleVm, VmService } from './vm.service.ts';

export const CONSOLE_PING_MS = 20_000;
/** Stop reading from the host while this much is still queued for a slow browser. */
const HIGH_WATER = 1 << 20;

export interface ConsoleSocketDeps {
  vms: VmService;
  access: Access;
  audit: Audit;
  clock: Clock;
  consoleTokens: ConsoleTokenStore;
  sessions: SessionStore;
  sessionRecheckMs: number;
  pingMs?: number;
  /** PUBLIC_URL (with BASE_PATH): its host is the portal's own. */
  portalUrl: string;
  /** Verified reseller domains (an unverified one resolves to null). */
  resellerHosts: Pick<ResellerHosts, 'resolve'>;
}

export const CONSOLE_ORIGIN_REFUSED = 'The console opens only from the portal.';

/**
 * Whether a websocket's `Origin` is the portal's own (issue 21): the request's own host (the page and the socket on
 * one host, as the portal serves them), PUBLIC_URL's host, or a verified reseller domain. A browser always sends
 * Origin on a websocket, so another site's page (or a sandboxed one: "null") is refused before it can use the
 * signed-in cookie; a client that sends none is not a browser and brings its cookie and token itself: allowed.
 */
export async function consoleOriginAllowed(
  origin: string | undefined,
  requestHost: string,
  d: Pick<ConsoleSocketDeps, 'portalUrl' | 'resellerHosts'>,
): Promise<boolean> {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  const host = url.host.toLowerCase();
  if (host === requestHost.toLowerCase() || host === new URL(d.portalUrl).host.toLowerCase()) return true;
  return (await d.resellerHosts.resolve(url.hostname)) !== null;
}

const paramsSchema = z.object({
  id: z.coerce.number().int().positive().max(2_147_483_647),
  kind: z.enum(['vnc', 'serial']),
});
const querySchema = z.object({ token: z.string().min(1).max(100) });

interface OpenConsole {
  auth: AuthContext;
  kind: ConsoleKind;
  vm: ConsoleVm;
  stream: Duplex;
}

export function registerConsoleSockets(app: FastifyInstance, d: ConsoleSocketDeps): void {
  const opened = new WeakMap<FastifyRequest, OpenConsole>();
  const pingMs = d.pingMs ?? CONSOLE_PING_MS;

  app.get(
    '/virtualMachines/console/:id/:kind',
    {
      websocket: true,
      schema: { hide: true },
      // Everything that can refuse runs before the upgrade, so the browser gets an HTTP status, not a socket.
      preValidation: async (request) => {
        // First: another site's page must not spend the user's token, nor learn anything from the answers below.
        if (!(await consoleOriginAllowed(request.headers.origin, request.host, d)))
          throw new ForbiddenError(CONSOLE_ORIGIN_REFUSED);
        const params = paramsSchema.safeParse(request.params);
        const query = querySchema.safeParse(request.query);
        if (!params.success || !query.success) throw new BadRequestError('Invalid console request');
        const auth = request.auth;
        if (!auth || auth.state !== 'authenticated' || auth.mustResetPassword)
          throw new ForbiddenError('This console link has expired. Open the console again from the portal.');
        const { id, kind } = params.data;
        if (!(await d.consoleTokens.consume(query.data.token, id, auth.sessionId)))
          throw new ForbiddenError('This console link has expired. Open the console again from the portal.');
        const open = await d.vms.openConsole(scopeOf(auth), id, kind).catch((err: unknown) => {
          if (err instanceof ProviderUnavailableError && err.cause)
            request.log.warn({ err: err.cause, vmId: id, kind }, 'console unavailable');
          throw err;
        });
        if (!open)
          throw new NotFoundError(`This virtual machine has no ${kind === 'vnc' ? 'graphical' : 'serial'} console`);
        opened.set(request, { auth, kind, ...open });
        // Should the upgrade never complete (the client left), release the host side.
        const unclaimed = setTimeout(
          () => opened.has(request) && (opened.delete(request), open.stream.destroy()),
          15_000,
        );
        unclaimed.unref();
      },
    },
    (socket: WebSocket, request: FastifyRequest) => {
      const session = opened.get(request);
      opened.delete(request);
      if (!session) return socket.close(1011, 'console not open');
      relay(socket, request, session);
    },
  );

  function relay(socket: WebSocket, request: FastifyRequest, { auth, kind, vm, stream }: OpenConsole) {
    const startedAt = d.clock.now().getTime();
    const who = {
      companyId: vm.companyId,
      actorUserId: auth.userId,
      targetType: 'vm',
      targetId: vm.id,
      requestId: request.id,
    };
    const auditFailed = (err: unknown) => request.log.warn({ err }, 'console audit failed');
    void d.audit.record({ ...who, action: 'vm.console.open', after: { kind } }).catch(auditFailed);

    stream.on('data', (chunk: Buffer) => {
      socket.send(chunk, { binary: true });
      if (socket.bufferedAmount > HIGH_WATER) {
        stream.pause();
        const drain = setInterval(() => {
          if (socket.bufferedAmount <= HIGH_WATER / 4 || socket.readyState !== socket.OPEN) {
            clearInterval(drain);
            stream.resume();
          }
        }, 10);
      }
    });
    stream.on('error', (err) => request.log.info({ err, vmId: vm.id, kind }, 'console stream error'));
    stream.on('close', () => socket.close(1000, 'console closed by the host'));
    socket.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      if (!stream.destroyed) stream.write(buf);
    });

    const ping = setInterval(() => socket.ping(), pingMs);
    const cookie = request.cookies[SESSION_COOKIE];
    const recheck = setInterval(() => {
      void (async () => {
        const current = cookie ? await d.sessions.resolve(cookie) : null;
        if (!current || current.state !== 'authenticated' || current.mustResetPassword)
          return socket.close(4401, 'signed out');
        await d.access.requireVm(scopeOf(current), vm, 'vm.operate').catch(() => socket.close(4403, 'access lost'));
      })().catch(() => {}); // a database blip: keep the console, try again next time
    }, d.sessionRecheckMs);

    socket.on('close', () => {
      clearInterval(ping);
      clearInterval(recheck);
      stream.destroy();
      const durationMs = d.clock.now().getTime() - startedAt;
      void d.audit.record({ ...who, action: 'vm.console.close', after: { kind, durationMs } }).catch(auditFailed);
    });
  }
}

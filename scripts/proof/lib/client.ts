/** A browser-like HTTP client of the portal's API: keeps cookies and echoes the CSRF cookie in the header. */
import { randomBytes } from 'node:crypto';
import type { RouteDef } from '@portal/contract/common';
import { buildPath, routes } from '@portal/contract/routes';
import { codeFrom, type SmtpCatcher } from '../../../apps/api/test/smtp-catcher.ts';

export interface Answer {
  /** 0 when no answer came (connection refused or reset, or the time limit passed). */
  status: number;
  message: string;
  data: unknown;
  headers: Headers;
  /** Why there was no answer, when status is 0. */
  error?: string;
  ms: number;
}

export interface RawRequest {
  method: string;
  /** Relative to the API base path, query included. */
  path: string;
  /** Sent as is. */
  body?: string;
  headers?: Record<string, string>;
  /** Leave out the CSRF header on a write. */
  noCsrf?: boolean;
}

export interface CallInput {
  params?: Record<string, string | number>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
}

export class ApiClient {
  readonly cookies = new Map<string, string>();
  constructor(
    readonly api: string,
    readonly timeoutMs = 15_000,
  ) {
    this.cookies.set('csrf_token', randomBytes(16).toString('hex'));
  }

  call(route: RouteDef, input: CallInput = {}): Promise<Answer> {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(input.query ?? {})) if (v !== undefined) qs.set(k, String(v));
    const path = buildPath(route.path, input.params ?? {}) + (qs.size ? `?${qs.toString()}` : '');
    const unsafe = route.method !== 'GET';
    // Like the portal, a bodiless write sends `{}`.
    const body = input.body === undefined ? (unsafe ? '{}' : undefined) : JSON.stringify(input.body);
    return this.raw({
      method: route.method,
      path,
      ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
    });
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** Opens the live VM status stream (server-sent events) and collects the VM ids it reports. */
  async openEventStream(): Promise<{ status: number; seen: Set<number>; close: () => void }> {
    const abort = new AbortController();
    const seen = new Set<number>();
    const res = await fetch(`${this.api}/virtualMachines/events`, {
      headers: { cookie: this.cookieHeader() },
      signal: abort.signal,
    });
    if (res.ok && res.body) {
      const body = res.body;
      void (async () => {
        const decoder = new TextDecoder();
        let buffer = '';
        try {
          for await (const chunk of body) {
            buffer += decoder.decode(chunk as Uint8Array, { stream: true });
            for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
              const data = /^data: (.*)$/m.exec(buffer.slice(0, end))?.[1];
              buffer = buffer.slice(end + 2);
              if (data) seen.add((JSON.parse(data) as { id: number }).id);
            }
          }
        } catch {
          // Closed by us.
        }
      })();
    } else {
      await res.body?.cancel();
    }
    return { status: res.status, seen, close: () => abort.abort() };
  }

  async raw(req: RawRequest): Promise<Answer> {
    const unsafe = req.method !== 'GET' && req.method !== 'HEAD';
    const headers: Record<string, string> = {
      cookie: this.cookieHeader(),
      ...(unsafe && !req.noCsrf ? { 'x-csrf-token': this.cookies.get('csrf_token') ?? '' } : {}),
      ...req.headers,
    };
    const started = performance.now();
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.api}${req.path}`, {
        method: req.method,
        headers,
        ...(req.body === undefined ? {} : { body: req.body }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      const cause = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
      return {
        status: 0,
        message: '',
        data: null,
        headers: new Headers(),
        error: cause,
        ms: performance.now() - started,
      };
    }
    for (const c of res.headers.getSetCookie()) {
      const [pair = '', ...attrs] = c.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some(
        (a) =>
          /^\s*max-age=0\s*$/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split('=')[1] ?? '') < Date.now()),
      );
      if (value === '' || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    let parsed: { message?: unknown; data?: unknown } = {};
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      parsed = { message: text.slice(0, 200) };
    }
    return {
      status: res.status,
      message: typeof parsed.message === 'string' ? parsed.message : '',
      data: parsed.data ?? null,
      headers: res.headers,
      ms: performance.now() - started,
    };
  }
}

/** Signs in through the real flow: password, then the code the server mailed to the catcher. */
export async function signIn(api: string, smtp: SmtpCatcher, email: string, password: string): Promise<ApiClient> {
  const client = new ApiClient(api);
  const before = smtp.messages.length;
  const login = await client.call(routes.auth.login, { body: { email, password } });
  if (login.status !== 200) throw new Error(`login of ${email} failed: ${login.status} ${login.message}`);
  const mail = await smtp.waitFor(
    email,
    (m) => smtp.messages.indexOf(m) >= before && /verification code/i.test(`${m.subject} ${m.text}`),
    30_000,
  );
  const mfa = await client.call(routes.auth.mfa, { body: { code: codeFrom(mail) } });
  if (mfa.status !== 200) throw new Error(`code of ${email} refused: ${mfa.status} ${mfa.message}`);
  return client;
}

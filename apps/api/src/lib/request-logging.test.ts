/**
 * Request logging is off unless LOG_REQUESTS=true (issue 25): in `npm start` a JSON line per request buried the
 * printed mail. A failing request's error is still logged; with LOG_REQUESTS=true every request is.
 */
import { afterEach, expect, it } from 'vitest';
import { DEFAULT_API_BASE_PATH as API } from '@portal/contract/constants';
import { buildApp, loggerOptions, type App } from '../app.ts';
import { loadConfig } from '../config.ts';
import { openDatabase, type Database } from '../db/client.ts';

let database: Database | undefined;
let portal: App | undefined;
afterEach(async () => {
  await portal?.close();
  await database?.close();
});

async function messagesLogged(env: Record<string, string>): Promise<string[]> {
  const lines: string[] = [];
  database = await openDatabase({ dataDir: 'memory://' });
  portal = await buildApp({
    config: loadConfig({ PUBLIC_URL: 'http://portal.test', ...env }),
    database,
    secret: 'test-secret-that-is-long-enough-0123456789',
    logger: { ...loggerOptions('info'), stream: { write: (line: string) => void lines.push(line) } },
    webDistDir: '/nonexistent',
  });
  await portal.app.ready();
  await portal.app.inject({ method: 'GET', url: `${API}/health` });
  await portal.app.inject({ method: 'GET', url: `${API}/users/me` });
  return lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
}

it('logs no line per request by default', async () => {
  const logged = await messagesLogged({});
  expect(logged.filter((msg) => msg === 'incoming request' || msg === 'request completed')).toEqual([]);
});

it('logs each request and its answer with LOG_REQUESTS=true', async () => {
  const logged = await messagesLogged({ LOG_REQUESTS: 'true' });
  expect(logged.filter((msg) => msg === 'incoming request')).toHaveLength(2);
  expect(logged.filter((msg) => msg === 'request completed')).toHaveLength(2);
});

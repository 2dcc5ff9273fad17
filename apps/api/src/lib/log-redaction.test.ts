/**
 * The real server's request log (issue 21): a console link's token, and the keys of mailed links when their page
 * is loaded, do not reach the log; the request is still logged, with the rest of its URL.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_API_BASE_PATH as API } from '@portal/contract/constants';
import { buildApp, loggerOptions, type App } from '../app.ts';
import { loadConfig } from '../config.ts';
import { openDatabase, type Database } from '../db/client.ts';

const KEY = 'f0cc5a1e9d2b4c7e8a6f3d1b0e9c8a7d';
let database: Database;
let portal: App;
const lines: string[] = [];

beforeAll(async () => {
  database = await openDatabase({ dataDir: 'memory://' });
  portal = await buildApp({
    config: loadConfig({ LOG_LEVEL: 'info', LOG_REQUESTS: 'true', PUBLIC_URL: 'http://portal.test' }),
    database,
    secret: 'test-secret-that-is-long-enough-0123456789',
    logger: { ...loggerOptions('info'), stream: { write: (line: string) => void lines.push(line) } },
    webDistDir: '/nonexistent',
  });
  await portal.app.ready();
});
afterAll(async () => {
  await portal?.close();
  await database?.close();
});

it('logs console and mailed-link requests with their keys redacted', async () => {
  for (const url of [
    `${API}/virtualMachines/console/7?token=${KEY}`,
    `${API}/virtualMachines/console/7/vnc?token=${KEY}`,
    `/resetPassword?token=${KEY}&id=3`,
    `/confirmNewUser?id=3&token=${KEY}`,
  ]) {
    await portal.app.inject({ method: 'GET', url });
  }
  const logged = lines.join('\n');
  expect(logged).not.toContain(KEY);
  const urls = lines
    .map((line) => JSON.parse(line) as { msg?: string; req?: { url: string } })
    .filter((entry) => entry.msg === 'incoming request')
    .map((entry) => entry.req!.url);
  expect(urls).toEqual([
    `${API}/virtualMachines/console/7?token=[redacted]`,
    `${API}/virtualMachines/console/7/vnc?token=[redacted]`,
    '/resetPassword?token=[redacted]&id=3',
    '/confirmNewUser?id=3&token=[redacted]',
  ]);
});

/**
 * The live status stream over a real socket: a signed-in user sees their VMs move, another company sees
 * nothing, and the stream ends soon after its session does.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seededCatalog } from '../../../test/vm-catalog.ts';
import { routes } from '@portal/contract/routes';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { eq } from 'drizzle-orm';
import { users } from '../../db/schema.ts';
import { createOtherCompany, PASSWORD } from '../../../test/fixtures.ts';

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await createTestApp({
    env: { SIMULATOR_STEP_MS: '30', VM_RUNNER_POLL_MS: '20', VM_STREAM_SESSION_CHECK_MS: '100' },
  });
  await t.portal.app.listen({ port: 0, host: '127.0.0.1' });
  t.portal.startWorkers();
  base = `http://127.0.0.1:${(t.portal.app.server.address() as { port: number }).port}${t.config.API_BASE_PATH}`;
});
afterAll(async () => {
  await t.close();
});

/** Opens the stream as `client` and collects what arrives; `ended` resolves when the server closes it. */
async function openStream(client: TestClient) {
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(`${base}/virtualMachines/events`, { headers: { cookie } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const stream = { text: '', ended: Promise.resolve(false), cancel: () => reader.cancel() };
  stream.ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return true;
      stream.text += decoder.decode(value);
    }
  })();
  return stream;
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

it('streams status changes to whoever may see the VM, and ends when the session does', async () => {
  const admin = await signIn(t);
  const other = await createOtherCompany(t, 'stream-boss@other.example');
  const outsider = await signIn(t, other.admin.email, PASSWORD);
  const mine = await openStream(admin);
  const theirs = await openStream(outsider);

  const { createBody } = await seededCatalog(admin);
  const created = await admin.call(routes.vms.create, { body: createBody('streamed') });
  const id = created.data.ids[0]!;

  await until(() => mine.text.includes(`{"id":${id},"status":"Running","deleted":false}`), 'Running on the stream');
  expect(mine.text).toContain(`{"id":${id},"status":"Provisioning","deleted":false}`);
  expect(theirs.text).not.toContain('event: vm');

  // Signing out ends the stream within a few session checks.
  expect((await admin.call(routes.auth.logout)).status).toBe(200);
  const ended = await Promise.race([mine.ended, new Promise((r) => setTimeout(() => r(false), 3000))]);
  expect(ended).toBe(true);
  // A signed-out browser cannot open a new one.
  const cookie = [...admin.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  expect((await fetch(`${base}/virtualMachines/events`, { headers: { cookie } })).status).toBe(401);
  await theirs.cancel();
});

it('refuses a session under a forced password reset with 403, as every other route does, and ends an open stream when one is forced', async () => {
  const other = await createOtherCompany(t, 'stream-reset@other.example');
  const user = await signIn(t, other.admin.email, PASSWORD);
  const open = await openStream(user);

  // An operator forces a reset while the stream is open: it ends within a few session checks.
  await t.db.update(users).set({ forcePasswordReset: true }).where(eq(users.id, other.admin.id));
  const ended = await Promise.race([open.ended, new Promise((r) => setTimeout(() => r(false), 3000))]);
  expect(ended).toBe(true);

  // The same session (still signed in, but held to the reset) cannot open a new one.
  const cookie = [...user.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const refused = await fetch(`${base}/virtualMachines/events`, { headers: { cookie } });
  expect(refused.status).toBe(403);
  expect(await refused.json()).toMatchObject({ message: 'Set a new password before you continue' });
  expect((await user.call(routes.vms.list, { query: {} })).status).toBe(403);
});

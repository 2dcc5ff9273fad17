/**
 * The billing webhook as a tenant could abuse it (issue 21): internal targets refused on save and again at delivery
 * (a name that later resolves to loopback), a delivery log that names failure classes and not the socket's errors,
 * one delivery per company however often a month is queued, a rate limit on manual sends, concurrent first saves
 * answering one secret, and one reseller's silent receiver not holding up another's deliveries.
 *
 * Names are answered by a resolver the test injects (there is no DNS here). The receivers are on 127.0.0.1, which
 * the operator allows (EGRESS_ALLOW=127.0.0.1/32), as an operator would allow a reseller's network; the trap that
 * must see nothing listens on 127.0.0.9.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BILLING_MESSAGES, type Delivery } from '@portal/contract/billing';
import { routes } from '@portal/contract/routes';
import { billingWebhooks, companies, distributors, resellers, users, webhookDeliveries } from '../../db/schema.ts';
import { createEgressPolicy, EGRESS_REFUSED_MESSAGE, type Resolver } from '../../lib/egress.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { manualClock } from '../../../test/manual-clock.ts';
import { createUsageRepository } from './usage.repository.ts';
import { createUsageService } from './usage.service.ts';
import { createWebhookWorker } from './webhook-worker.ts';
import { createWebhooksRepository } from './webhooks.repository.ts';
import { MANUAL_SENDS_PER_MINUTE } from './billing.routes.ts';

const clock = manualClock(new Date('2026-11-05T00:00:00Z'));
const MONTH = '2026-10';
const PASSWORD = 'Staff-Password-1!';
const log = pino({ level: 'silent' });

/** The test's DNS: what each name resolves to now. */
const dns = new Map<string, string[]>();
const resolver: Resolver = async (host) => {
  const answers = dns.get(host);
  if (!answers) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

let t: TestApp;
let receiver: Server;
let port: number;
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
/** What the receiver answers next (then 200). */
const answers: number[] = [];
let trap: ReturnType<typeof createTcpServer>;
let trapConnections = 0;

beforeAll(async () => {
  t = await createTestApp({
    clock,
    resolver,
    env: { BILLING_WEBHOOK_ALLOW_HTTP: 'true', EGRESS_ALLOW: '127.0.0.1/32' },
  });
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(answers.shift() ?? 200).end('ok');
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  port = (receiver.address() as AddressInfo).port;
  // The same port on another loopback address: where a rebound name would lead.
  trap = createTcpServer((s) => {
    trapConnections++;
    s.destroy();
  });
  trap.listen(port, '127.0.0.9');
  await once(trap, 'listening');
});
afterAll(async () => {
  trap.close();
  receiver.closeAllConnections();
  receiver.close();
  await t.close();
});

const workerFor = () =>
  createWebhookWorker({
    repo: createWebhooksRepository(t.db, clock),
    usage: createUsageService({ repo: createUsageRepository(t.db), clock }),
    clock,
    log,
    egress: createEgressPolicy({ allow: ['127.0.0.1/32'], lookup: resolver }),
    pollMs: 60_000,
  });

/** A reseller with `n` customer companies, an owner and a support member; signed in. */
async function reseller(name: string, n: number): Promise<{ id: number; owner: TestClient; support: TestClient }> {
  const [distributor] = await t.db.select().from(distributors).limit(1);
  const [r] = await t.db.insert(resellers).values({ distributorId: distributor!.id, name }).returning();
  for (let i = 1; i <= n; i++)
    await t.db.insert(companies).values({ resellerId: r!.id, name: `${name} customer ${i}` });
  const [staff] = await t.db
    .insert(companies)
    .values({ resellerId: r!.id, name: `Staff of ${name}`, kind: 'staff' })
    .returning();
  const passwordHash = await hashPassword(PASSWORD);
  const slug = name.toLowerCase().replace(/\W+/g, '-');
  for (const role of ['owner', 'support'] as const)
    await t.db.insert(users).values({
      companyId: staff!.id,
      email: `${role}@${slug}.test`,
      passwordHash,
      staffRole: role,
      emailConfirmedAt: clock.now(),
    });
  return {
    id: r!.id,
    owner: await signIn(t, `owner@${slug}.test`, PASSWORD),
    support: await signIn(t, `support@${slug}.test`, PASSWORD),
  };
}

async function deliveries(client: TestClient): Promise<Delivery[]> {
  return (await client.call(routes.billing.deliveries, { query: { page: 1, rowsPerPage: 50 } })).data.data;
}

it('refuses internal targets on save with a message that reveals nothing', async () => {
  const { owner } = await reseller('Prober', 1);
  dns.set('hook-loop.example', ['127.0.0.9']);
  dns.set('hook-mixed.example', ['127.0.0.1', '10.1.2.3']);
  for (const url of [
    'http://127.0.0.9:8080/x',
    'http://127.9:8080/x',
    'http://2130706441:8080/x',
    'http://0x7f000009:8080/x',
    'http://0177.0.0.9:8080/x',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1:8080/',
    'http://172.16.0.1:8080/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://[::1]:8080/',
    'http://[::ffff:127.0.0.9]:8080/',
    'http://[::ffff:a9fe:a9fe]/',
    'https://[fd00::1]/',
    'https://[fe80::1]/',
    'http://localhost:8080/',
    'http://metadata.google.internal/',
    `http://hook-loop.example:${port}/`,
    'http://hook-mixed.example:8080/',
    'https://nowhere.example/',
  ]) {
    const res = await owner.call(routes.billing.setWebhook, { body: { url, enabled: true } });
    expect([url, res.status, res.message]).toEqual([url, 400, EGRESS_REFUSED_MESSAGE]);
  }
  for (const url of ['https://billing.example:22/', 'https://billing.example:25/', 'https://billing.example:1023/']) {
    const res = await owner.call(routes.billing.setWebhook, { body: { url, enabled: true } });
    expect([url, res.status, res.message]).toEqual([url, 400, BILLING_MESSAGES.webhookUrlPort]);
  }
  expect((await owner.call(routes.billing.getWebhook)).data).toBeNull();
  // The allowed receiver (the operator's range) is accepted.
  const ok = await owner.call(routes.billing.setWebhook, {
    body: { url: `http://127.0.0.1:${port}/hook`, enabled: false },
  });
  expect(ok.status).toBe(200);
  expect(trapConnections).toBe(0);
});

it('refuses at delivery a name that now resolves to loopback, and logs failure classes only', async () => {
  const { id, owner, support } = await reseller('Rebinder', 1);
  dns.set('hook.example', ['127.0.0.1']);
  const saved = await owner.call(routes.billing.setWebhook, {
    body: { url: `http://hook.example:${port}/hook`, enabled: true },
  });
  expect(saved.status).toBe(200);
  dns.set('hook.example', ['127.0.0.9']); // the name is rebound after the check

  const worker = workerFor();
  const before = received.length;
  await worker.tick();
  expect(trapConnections).toBe(0);
  expect(received.length).toBe(before);
  const [refused] = await deliveries(support);
  expect(refused).toMatchObject({
    status: 'pending',
    attempts: 1,
    lastStatusCode: null,
    lastError: "Refused by the portal's network policy",
  });

  // A closed port on an allowed address: "Could not connect", not the socket's ECONNREFUSED.
  const closed = createTcpServer();
  closed.listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const closedPort = (closed.address() as AddressInfo).port;
  closed.close();
  await t.db
    .update(billingWebhooks)
    .set({ url: `http://127.0.0.1:${closedPort}/hook` })
    .where(eq(billingWebhooks.resellerId, id));
  clock.advance(60_000);
  await worker.tick();
  const [failed] = await deliveries(support);
  expect(failed).toMatchObject({ attempts: 2, lastStatusCode: null, lastError: 'Could not connect' });
  expect(JSON.stringify(await deliveries(support))).not.toMatch(/ECONN|EHOST|socket|127\.0\.0/);
  await t.db.update(billingWebhooks).set({ enabled: false }).where(eq(billingWebhooks.resellerId, id));
  await worker.stop();
});

it('delivers a month once per company however often it is queued, and limits manual sends', async () => {
  const { id, owner, support } = await reseller('Twice', 2);
  const other = await reseller('Bystander', 1);
  const saved = await owner.call(routes.billing.setWebhook, {
    body: { url: `http://127.0.0.1:${port}/hook`, enabled: true },
  });
  expect(saved.status).toBe(200);
  const worker = workerFor();
  answers.push(500, 500); // the scheduled push fails once: both companies' deliveries wait for their retry
  await worker.tick();
  const waiting = await deliveries(owner);
  expect(waiting.map((d) => [d.trigger, d.status, d.month])).toEqual([
    ['schedule', 'pending', MONTH],
    ['schedule', 'pending', MONTH],
  ]);

  const sent = await owner.call(routes.billing.sendNow, { body: { month: MONTH } });
  expect(sent.data).toEqual({ queued: 0, alreadyQueued: 2 });
  expect(await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.resellerId, id))).toHaveLength(2);

  const before = received.length;
  clock.advance(60_000);
  await worker.tick();
  const mine = received.slice(before).map((r) => JSON.parse(r.body) as { company: { id: number } });
  expect(mine.map((p) => p.company.id).sort()).toEqual(waiting.map((d) => d.companyId).sort());
  expect((await deliveries(owner)).every((d) => d.status === 'delivered')).toBe(true);

  // Send now and retry now share one budget per reseller: support's refused calls do not spend it.
  expect((await support.call(routes.billing.sendNow, { body: { month: MONTH } })).status).toBe(403);
  for (let i = 1; i < MANUAL_SENDS_PER_MINUTE; i++)
    expect((await owner.call(routes.billing.sendNow, { body: { month: MONTH } })).status).toBe(200);
  const limited = await owner.call(routes.billing.sendNow, { body: { month: MONTH } });
  expect([limited.status, limited.message]).toEqual([429, BILLING_MESSAGES.sendRateLimited]);
  expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  const retry = await owner.call(routes.billing.retryDelivery, { params: { id: waiting[0]!.id } });
  expect(retry.status).toBe(429);
  // Another reseller is not held back.
  await other.owner.call(routes.billing.setWebhook, { body: { url: `http://127.0.0.1:${port}/b`, enabled: false } });
  expect((await other.owner.call(routes.billing.sendNow, { body: { month: MONTH } })).data).toEqual({
    queued: 1,
    alreadyQueued: 0,
  });
  // Only the first manual send queued anything: the month went out once per company.
  expect(
    (await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.resellerId, id))).length,
  ).toBeLessThanOrEqual(4);
  await t.db.update(billingWebhooks).set({ enabled: false }).where(eq(billingWebhooks.resellerId, id));
  await worker.stop();
});

it('answers one stored secret to concurrent first saves', async () => {
  const { id, owner } = await reseller('Racer', 1);
  const url = `http://127.0.0.1:${port}/race`;
  const saves = await Promise.all(
    Array.from({ length: 6 }, () => owner.call(routes.billing.setWebhook, { body: { url, enabled: false } })),
  );
  expect(saves.map((s) => s.status)).toEqual([200, 200, 200, 200, 200, 200]);
  const [stored] = await t.db.select().from(billingWebhooks).where(eq(billingWebhooks.resellerId, id));
  for (const s of saves) if (s.data.secret !== null) expect(s.data.secret).toBe(stored!.secret);
  expect(saves.some((s) => s.data.secret !== null)).toBe(true);
});

it("delivers one reseller's usage within seconds while another's receiver never answers", async () => {
  // A receiver that takes the connection and never answers.
  const open = new Set<Socket>();
  let concurrentMax = 0;
  const silent = createServer(() => undefined);
  silent.on('connection', (s) => {
    open.add(s);
    concurrentMax = Math.max(concurrentMax, open.size);
    s.on('close', () => open.delete(s));
  });
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  const silentPort = (silent.address() as AddressInfo).port;

  const slow = await reseller('Silent', 4);
  await slow.owner.call(routes.billing.setWebhook, {
    body: { url: `http://127.0.0.1:${silentPort}/never`, enabled: true },
  });
  // Queued first: with one delivery at a time its 4 × 10 s of silence came before anyone else's.
  expect((await slow.owner.call(routes.billing.sendNow, { body: { month: MONTH } })).data.queued).toBe(4);
  const quick = await reseller('Quick', 1);
  await quick.owner.call(routes.billing.setWebhook, {
    body: { url: `http://127.0.0.1:${port}/quick`, enabled: true },
  });

  const worker = workerFor();
  const started = performance.now();
  const ticking = worker.tick();
  let deliveredMs: number | null = null;
  while (performance.now() - started < 5_000) {
    if (received.some((r) => JSON.parse(r.body).reseller?.id === quick.id)) {
      deliveredMs = performance.now() - started;
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(deliveredMs).not.toBeNull();
  expect(deliveredMs!).toBeLessThan(3_000);
  // At most two of the silent reseller's attempts were in flight at once.
  expect(concurrentMax).toBeLessThanOrEqual(2);
  expect(open.size).toBeGreaterThan(0);
  await worker.stop();
  await ticking;
  silent.closeAllConnections();
  silent.close();
});

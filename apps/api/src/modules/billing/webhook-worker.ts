/**
 * The billing webhook worker: after a month closes it queues one usage.month delivery per customer company of every
 * reseller with an enabled webhook (once per company-month, by a unique index), and it delivers due deliveries:
 * signed POST with a timeout, redirects not followed, retries with backoff (WEBHOOK_RETRY_DELAYS_MS) and then
 * 'failed'. Claims use FOR UPDATE SKIP LOCKED with a lease, so several instances deliver each once. The secret is
 * never logged.
 */
import type { FastifyBaseLogger } from 'fastify';
import { SIGNATURE_HEADER, WEBHOOK_RETRY_DELAYS_MS } from '@portal/contract/billing';
import type { Clock } from '../../lib/clock.ts';
import type { Worker } from '../module.ts';
import { signatureHeader } from './webhook-signature.ts';
import { previousMonth, type UsageService } from './usage.service.ts';
import type { DeliveryRow, WebhooksRepository } from './webhooks.repository.ts';

export interface WebhookWorkerOptions {
  repo: WebhooksRepository;
  usage: UsageService;
  clock: Clock;
  log: FastifyBaseLogger;
  pollMs: number;
  /** How long one HTTP attempt may take. */
  timeoutMs?: number;
}

/** Longer than any attempt (timeout), so a live worker's claim is not taken over. */
const LEASE_MS = 60_000;
const MAX_ERROR_LENGTH = 500;

export function createWebhookWorker(opts: WebhookWorkerOptions): Worker & { tick(): Promise<void> } {
  const { repo, usage, clock, log } = opts;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  /** Queues the month that closed last, for resellers that have not had it queued. */
  async function scheduleClosedMonth() {
    const month = previousMonth(clock.now());
    for (const { resellerId } of await repo.resellersDue(month)) {
      const payloads = await usage.monthPayloads(resellerId, month);
      const queued = await repo.enqueue(
        resellerId,
        'schedule',
        payloads.map((p) => ({ ...p, month })),
      );
      log.info({ resellerId, month, queued }, 'billing usage queued for the webhook');
    }
  }

  async function attempt(delivery: DeliveryRow, url: string, secret: string) {
    const body = JSON.stringify(delivery.payload);
    const now = clock.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const res = await fetch(url, {
        method: 'POST',
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'portal-billing-webhook/1',
          [SIGNATURE_HEADER]: signatureHeader(secret, body, now),
          'X-Portal-Event': delivery.event,
          'X-Portal-Delivery': String(delivery.id),
        },
      });
      statusCode = res.status;
      await res.body?.cancel().catch(() => undefined);
      if (res.status >= 300 && res.status < 400) error = `Redirects are not followed (HTTP ${res.status})`;
      else if (!res.ok) error = `HTTP ${res.status}`;
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      error =
        e.name === 'TimeoutError'
          ? `No answer within ${timeoutMs} ms`
          : `${e.message}${e.cause instanceof Error ? `: ${e.cause.message}` : ''}`;
    }
    const attempts = delivery.attempts + 1;
    const delay = WEBHOOK_RETRY_DELAYS_MS[attempts - 1];
    const at = clock.now();
    if (error === null) {
      await repo.recordAttempt(delivery, {
        status: 'delivered',
        lastStatusCode: statusCode,
        lastError: null,
        deliveredAt: at,
        nextAttemptAt: at,
      });
      return;
    }
    log.warn({ deliveryId: delivery.id, attempts, statusCode }, `billing webhook delivery failed: ${error}`);
    await repo.recordAttempt(delivery, {
      status: delay === undefined ? 'failed' : 'pending',
      lastStatusCode: statusCode,
      lastError: error.slice(0, MAX_ERROR_LENGTH),
      deliveredAt: null,
      nextAttemptAt: new Date(at.getTime() + (delay ?? 0)),
    });
  }

  async function tick() {
    if (running) return running;
    running = (async () => {
      try {
        await scheduleClosedMonth();
        for (;;) {
          if (halted) break;
          const claimed = await repo.claim(LEASE_MS);
          if (!claimed) break;
          await attempt(claimed.delivery, claimed.url, claimed.secret);
        }
      } catch (err) {
        log.error({ err }, 'billing webhook worker tick failed');
      } finally {
        running = null;
      }
    })();
    return running;
  }

  let started = false;
  let halted = false;
  return {
    start() {
      if (started) return;
      started = true;
      halted = false;
      timer = setInterval(() => void tick(), opts.pollMs);
      timer.unref();
      void tick();
    },
    async stop() {
      halted = true;
      started = false;
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
    /** Runs due work now (tests; send-now and retry-now wake it). */
    tick,
  };
}

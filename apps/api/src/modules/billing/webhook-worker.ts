/**
 * The billing webhook worker: after a month closes it queues one usage.month delivery per customer company of every
 * reseller with an enabled webhook (once per company-month, by a unique index), and it delivers due deliveries:
 * signed POST through the egress policy (webhook-post.ts), redirects not followed, retries with backoff
 * (WEBHOOK_RETRY_DELAYS_MS) and then 'failed'. Claims use FOR UPDATE SKIP LOCKED with a lease, so several instances
 * deliver each once. Deliveries run concurrently (a bounded pool) with at most PER_RESELLER in flight per reseller,
 * so one reseller's slow or silent receiver does not hold up another's (issue 21). The secret is never logged.
 */
import type { FastifyBaseLogger } from 'fastify';
import { SIGNATURE_HEADER, WEBHOOK_RETRY_DELAYS_MS } from '@portal/contract/billing';
import type { Clock } from '../../lib/clock.ts';
import type { EgressPolicy } from '../../lib/egress.ts';
import type { Worker } from '../module.ts';
import { signatureHeader } from './webhook-signature.ts';
import { postWebhook } from './webhook-post.ts';
import { previousMonth, type UsageService } from './usage.service.ts';
import type { DeliveryRow, WebhooksRepository } from './webhooks.repository.ts';

export interface WebhookWorkerOptions {
  repo: WebhooksRepository;
  usage: UsageService;
  clock: Clock;
  log: FastifyBaseLogger;
  egress: EgressPolicy;
  pollMs: number;
  /** How long one HTTP attempt may take, connect included. */
  timeoutMs?: number;
  /** How long the connection may take to open. */
  connectTimeoutMs?: number;
  /** Attempts in flight on this instance. */
  concurrency?: number;
}

/** Longer than any attempt (timeout), so a live worker's claim is not taken over. */
const LEASE_MS = 60_000;
/** Attempts in flight per reseller (across instances: counted from the leases in the database). */
export const PER_RESELLER = 2;

export function createWebhookWorker(opts: WebhookWorkerOptions): Worker & { tick(): Promise<void> } {
  const { repo, usage, clock, log } = opts;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const connectTimeoutMs = Math.min(opts.connectTimeoutMs ?? 3_000, timeoutMs);
  const concurrency = opts.concurrency ?? 8;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  /** Wakes the dispatcher while it waits on attempts in flight (new work was queued). */
  let wake: (() => void) | null = null;
  let woken = false;
  /** Aborts the attempts in flight when the worker stops (their leases lapse; another attempt follows). */
  let stopping = new AbortController();

  /** Queues the month that closed last, for resellers that have not had it queued. */
  async function scheduleClosedMonth() {
    const month = previousMonth(clock.now());
    for (const { resellerId } of await repo.resellersDue(month)) {
      const payloads = await usage.monthPayloads(resellerId, month);
      const { queued } = await repo.enqueue(
        resellerId,
        'schedule',
        payloads.map((p) => ({ ...p, month })),
      );
      log.info({ resellerId, month, queued }, 'billing usage queued for the webhook');
    }
  }

  async function attempt(delivery: DeliveryRow, url: string, secret: string) {
    const body = JSON.stringify(delivery.payload);
    const { statusCode, failure, cause } = await postWebhook(url, body, {
      egress: opts.egress,
      connectTimeoutMs,
      timeoutMs,
      signal: stopping.signal,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'portal-billing-webhook/1',
        [SIGNATURE_HEADER]: signatureHeader(secret, body, clock.now()),
        'X-Portal-Event': delivery.event,
        'X-Portal-Delivery': String(delivery.id),
      },
    });
    if (stopping.signal.aborted) return; // not an attempt: the lease lapses and it is tried again
    const attempts = delivery.attempts + 1;
    const delay = WEBHOOK_RETRY_DELAYS_MS[attempts - 1];
    const at = clock.now();
    if (failure === null) {
      await repo.recordAttempt(delivery, {
        status: 'delivered',
        lastStatusCode: statusCode,
        lastError: null,
        deliveredAt: at,
        nextAttemptAt: at,
      });
      return;
    }
    // The operator's log has the socket's reason; the tenant's delivery log only the class.
    const reason = cause instanceof Error ? `${cause.name}: ${cause.message}` : undefined;
    log.warn(
      { deliveryId: delivery.id, resellerId: delivery.resellerId, attempts, statusCode, reason },
      `billing webhook delivery failed: ${failure}`,
    );
    await repo.recordAttempt(delivery, {
      status: delay === undefined ? 'failed' : 'pending',
      lastStatusCode: statusCode,
      lastError: failure,
      deliveredAt: null,
      nextAttemptAt: new Date(at.getTime() + (delay ?? 0)),
    });
  }

  /** Claims and starts attempts while there are free slots, until nothing is due and nothing is in flight. */
  async function dispatch() {
    const inFlight = new Set<Promise<void>>();
    for (;;) {
      woken = false;
      while (!halted && inFlight.size < concurrency) {
        const claimed = await repo.claim(LEASE_MS, PER_RESELLER);
        if (!claimed) break;
        const p: Promise<void> = attempt(claimed.delivery, claimed.url, claimed.secret)
          .catch((err: unknown) => log.error({ err }, 'billing webhook attempt failed'))
          .finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      if (woken) continue;
      if (inFlight.size === 0) return;
      await Promise.race([...inFlight, new Promise<void>((resolve) => (wake = resolve))]);
      wake = null;
    }
  }

  async function tick() {
    if (running) {
      woken = true;
      wake?.();
      return running;
    }
    running = (async () => {
      try {
        await scheduleClosedMonth();
        await dispatch();
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
      stopping = new AbortController();
      timer = setInterval(() => void tick(), opts.pollMs);
      timer.unref();
      void tick();
    },
    async stop() {
      halted = true;
      started = false;
      if (timer) clearInterval(timer);
      timer = null;
      stopping.abort();
      wake?.();
      await running;
    },
    /** Runs due work now and waits for it (tests); send-now and retry-now wake it. */
    tick,
  };
}

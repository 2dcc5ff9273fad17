/**
 * The billing webhook's rules: owners set it (support staff only read), the secret is generated here and shown
 * once, the URL is https (http only when BILLING_WEBHOOK_ALLOW_HTTP) to an address the egress policy allows (checked
 * on save and again when delivering), deliveries are queued once per company-month and retried; manual sends and
 * retries are rate-limited per reseller (`admit`, given by the route).
 */
import { BILLING_MESSAGES, type BillingWebhook, type Delivery } from '@portal/contract/billing';
import { API_MESSAGES } from '@portal/contract/messages';
import { staffMayWrite } from '@portal/contract/permissions';
import type { StaffScope } from '../../lib/auth-context.ts';
import type { Random } from '../../lib/crypto.ts';
import type { Audit } from '../../lib/audit.ts';
import type { EgressPolicy } from '../../lib/egress.ts';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.ts';
import { iso, totalPages } from '../../lib/http.ts';
import type { UsageService } from './usage.service.ts';
import type { DeliveryRow, WebhooksRepository } from './webhooks.repository.ts';

function requireOwner(scope: StaffScope): void {
  if (!staffMayWrite(scope.role)) throw new ForbiddenError(API_MESSAGES.staffReadOnly);
}

function toWebhook(row: { url: string; enabled: boolean; createdAt: Date; updatedAt: Date }): BillingWebhook {
  return { url: row.url, enabled: row.enabled, createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt) };
}

function toDelivery({ d, companyName }: { d: DeliveryRow; companyName: string | null }): Delivery {
  return {
    id: d.id,
    event: d.event,
    companyId: d.companyId,
    companyName,
    month: d.month,
    trigger: d.trigger,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    deliveredAt: d.deliveredAt ? iso(d.deliveredAt) : null,
    createdAt: iso(d.createdAt),
  };
}

export function createWebhooksService(deps: {
  repo: WebhooksRepository;
  usage: UsageService;
  random: Random;
  audit: Audit;
  allowHttp: boolean;
  egress: EgressPolicy;
  /** Wakes the worker (send now, retry now); a no-op until workers run. */
  kick: () => void;
}) {
  const { repo, usage, random } = deps;
  const newSecret = () => `whsec_${random.token(32)}`;
  /** Webhook changes are audited as the reseller's (never with the secret). */
  const record = (scope: StaffScope, action: string, after: unknown) =>
    deps.audit.record({
      companyId: scope.staffCompanyId,
      actorUserId: scope.userId,
      action,
      targetType: 'billing_webhook',
      targetId: scope.resellerId,
      after,
    });

  /** The URL as the WHATWG parser normalises it (2130706433 and 0x7f000001 become 127.0.0.1), then its host's addresses. */
  async function checkUrl(raw: string): Promise<string> {
    const url = new URL(raw);
    if (url.username || url.password) throw new BadRequestError(BILLING_MESSAGES.webhookUrlCredentials);
    if (!(url.protocol === 'https:' || (url.protocol === 'http:' && deps.allowHttp)))
      throw new BadRequestError(deps.allowHttp ? BILLING_MESSAGES.webhookUrlHttpAllowed : BILLING_MESSAGES.webhookUrl);
    await deps.egress.resolveAllowed(url.hostname); // EgressRefusedError: a 400 that reveals nothing found
    return url.toString();
  }

  return {
    async get(scope: StaffScope): Promise<BillingWebhook | null> {
      const row = await repo.webhook(scope.resellerId);
      return row ? toWebhook(row) : null;
    },

    async save(scope: StaffScope, body: { url: string; enabled: boolean }) {
      requireOwner(scope);
      const url = await checkUrl(body.url);
      const existing = await repo.webhook(scope.resellerId);
      const proposed = existing ? null : newSecret();
      const row = await repo.saveWebhook(
        scope.resellerId,
        { url, enabled: body.enabled },
        proposed ?? existing!.secret,
      );
      // A first save answers the secret stored: a concurrent first save may have stored its own instead of ours.
      const secret = proposed === null ? null : row.secret;
      await record(scope, 'billing.webhook.save', { url, enabled: body.enabled, secretIssued: secret !== null });
      return { webhook: toWebhook(row), secret };
    },

    async rotateSecret(scope: StaffScope) {
      requireOwner(scope);
      const secret = newSecret();
      if (!(await repo.setSecret(scope.resellerId, secret))) throw new ConflictError(BILLING_MESSAGES.noWebhook);
      await record(scope, 'billing.webhook.rotateSecret', null);
      return { secret };
    },

    async sendNow(scope: StaffScope, month: string, companyId: number | undefined, admit: () => Promise<void>) {
      requireOwner(scope);
      await admit();
      if (!(await repo.webhook(scope.resellerId))) throw new ConflictError(BILLING_MESSAGES.noWebhook);
      const payloads = await usage.monthPayloads(scope.resellerId, month, companyId);
      const counts = await repo.enqueue(
        scope.resellerId,
        'manual',
        payloads.map((p) => ({ ...p, month })),
      );
      await record(scope, 'billing.webhook.sendNow', { month, companyId: companyId ?? null, ...counts });
      deps.kick();
      return counts;
    },

    async deliveries(scope: StaffScope, page: number, rowsPerPage: number) {
      const { rows, total } = await repo.page(scope.resellerId, page, rowsPerPage);
      return { data: rows.map(toDelivery), totalPages: totalPages(total, rowsPerPage) };
    },

    async retry(scope: StaffScope, id: number, admit: () => Promise<void>): Promise<Delivery> {
      requireOwner(scope);
      await admit();
      if (!(await repo.delivery(scope.resellerId, id))) throw new NotFoundError(BILLING_MESSAGES.deliveryNotFound);
      if (!(await repo.retryFailed(scope.resellerId, id))) throw new ConflictError(BILLING_MESSAGES.retryOnlyFailed);
      await record(scope, 'billing.webhook.retry', { deliveryId: id });
      deps.kick();
      return toDelivery((await repo.delivery(scope.resellerId, id))!);
    },
  };
}

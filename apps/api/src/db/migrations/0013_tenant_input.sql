ALTER TABLE "hosts" ADD COLUMN "host_key" text;--> statement-breakpoint
ALTER TABLE "reseller_domains" ADD COLUMN "verification_token" text DEFAULT replace(gen_random_uuid()::text, '-', '') NOT NULL;--> statement-breakpoint
ALTER TABLE "reseller_domains" ADD COLUMN "verified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "reseller_domains" ADD COLUMN "last_checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "reseller_domains" ADD COLUMN "last_check_error" text;--> statement-breakpoint
-- Domains added before verification existed keep serving (grandfathered); new ones wait for their TXT record.
UPDATE "reseller_domains" SET "verified_at" = "created_at";--> statement-breakpoint
ALTER TABLE "resellers" ADD COLUMN "ssh_public_key" text;--> statement-breakpoint
ALTER TABLE "resellers" ADD COLUMN "ssh_private_key_sealed" text;--> statement-breakpoint
-- Names made twice by racing creates before the unique index: the later rows get their id appended.
UPDATE "providers" p SET "name" = p."name" || ' (' || p."id" || ')'
  WHERE EXISTS (SELECT 1 FROM "providers" q WHERE q."reseller_id" = p."reseller_id" AND lower(q."name") = lower(p."name") AND q."id" < p."id");--> statement-breakpoint
CREATE UNIQUE INDEX "providers_reseller_name_unique" ON "providers" USING btree ("reseller_id",lower("name"));--> statement-breakpoint
-- A company-month queued twice waits once: the later duplicates are closed as failed.
UPDATE "webhook_deliveries" d SET "status" = 'failed', "last_error" = 'Superseded: this month was already queued'
  WHERE d."status" = 'pending' AND EXISTS (SELECT 1 FROM "webhook_deliveries" e WHERE e."status" = 'pending'
    AND e."reseller_id" = d."reseller_id" AND e."event" = d."event" AND e."company_id" IS NOT DISTINCT FROM d."company_id"
    AND e."month" IS NOT DISTINCT FROM d."month" AND e."id" < d."id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_pending_once" ON "webhook_deliveries" USING btree ("reseller_id","event","company_id","month") WHERE status = 'pending';
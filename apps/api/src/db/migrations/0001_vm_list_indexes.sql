-- Trigram search over VM names, with the company id in the same GIN index (btree_gin). Both are
-- trusted contrib extensions: a database owner may create them (PostgreSQL 13+); PGlite loads them.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS btree_gin;--> statement-breakpoint
DROP INDEX "vms_company_name_idx";--> statement-breakpoint
CREATE INDEX "vms_live_name_idx" ON "virtual_machines" USING btree ("company_id","name","id") WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX "vms_live_created_idx" ON "virtual_machines" USING btree ("company_id","created_at","id") WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX "vms_live_search_idx" ON "virtual_machines" USING gin ("company_id","name" gin_trgm_ops) WHERE deleted_at is null;
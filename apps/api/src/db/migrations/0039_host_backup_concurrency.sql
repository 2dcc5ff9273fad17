DROP INDEX "storage_periods_object_key";--> statement-breakpoint
ALTER TABLE "hosts" ADD COLUMN "backup_concurrency" integer;--> statement-breakpoint
CREATE UNIQUE INDEX "storage_periods_open_object_key" ON "storage_periods" USING btree ("kind","object_id") WHERE ended_at is null;--> statement-breakpoint
CREATE INDEX "storage_periods_object_idx" ON "storage_periods" USING btree ("kind","object_id");
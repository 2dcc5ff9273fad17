DROP INDEX "operations_one_active_per_vm";--> statement-breakpoint
ALTER TABLE "operations" ADD COLUMN "lane" text DEFAULT 'vm' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "operations_one_active_per_vm_lane" ON "operations" USING btree ("vm_id","lane") WHERE status in ('pending', 'running');--> statement-breakpoint
UPDATE "operations" SET "lane" = 'backup' WHERE "kind"::text = 'backup';
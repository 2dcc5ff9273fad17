ALTER TABLE "vm_backups" ADD COLUMN "verification_note" text;--> statement-breakpoint
ALTER TABLE "vm_backups" ADD COLUMN "verify_after" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "vm_backups" ADD COLUMN "verify_locked_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "vm_backups" ADD COLUMN "verify_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "vm_backups_verify_due_idx" ON "vm_backups" USING btree ("verify_after") WHERE verify_after is not null;
ALTER TYPE "public"."operation_kind" ADD VALUE 'move';--> statement-breakpoint
CREATE INDEX "operations_failed_vm_idx" ON "operations" USING btree ("vm_id","finished_at") WHERE status = 'failed';
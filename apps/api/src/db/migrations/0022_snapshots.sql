ALTER TYPE "public"."operation_kind" ADD VALUE 'snapshot';--> statement-breakpoint
ALTER TYPE "public"."operation_kind" ADD VALUE 'snapshotRevert';--> statement-breakpoint
ALTER TYPE "public"."operation_kind" ADD VALUE 'snapshotDelete';--> statement-breakpoint
ALTER TYPE "public"."vm_status" ADD VALUE 'Snapshotting';--> statement-breakpoint
ALTER TYPE "public"."vm_status" ADD VALUE 'Reverting';--> statement-breakpoint
CREATE TABLE "vm_snapshots" (
	"id" serial PRIMARY KEY NOT NULL,
	"vm_id" integer NOT NULL,
	"name" text NOT NULL,
	"provider_name" text NOT NULL,
	"state" text DEFAULT 'creating' NOT NULL,
	"size_bytes" bigint,
	"includes_memory" boolean,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "configuration_prices" ADD COLUMN "snapshot_limit" integer;--> statement-breakpoint
ALTER TABLE "vm_snapshots" ADD CONSTRAINT "vm_snapshots_vm_id_virtual_machines_id_fk" FOREIGN KEY ("vm_id") REFERENCES "public"."virtual_machines"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "vm_snapshots_vm_name_key" ON "vm_snapshots" USING btree ("vm_id","name");
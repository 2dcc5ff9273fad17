ALTER TYPE "public"."operation_kind" ADD VALUE 'backup';--> statement-breakpoint
ALTER TYPE "public"."operation_kind" ADD VALUE 'backupRestore';--> statement-breakpoint
ALTER TYPE "public"."vm_status" ADD VALUE 'Restoring';--> statement-breakpoint
CREATE TABLE "vm_backups" (
	"id" serial PRIMARY KEY NOT NULL,
	"vm_id" integer,
	"company_id" integer NOT NULL,
	"team_id" integer,
	"region_id" integer NOT NULL,
	"provider_id" integer NOT NULL,
	"host_id" integer,
	"name" text NOT NULL,
	"provider_name" text NOT NULL,
	"state" text DEFAULT 'creating' NOT NULL,
	"size_bytes" bigint,
	"incremental" boolean DEFAULT false NOT NULL,
	"error" text,
	"vm_name" text NOT NULL,
	"image" text NOT NULL,
	"configuration_id" integer NOT NULL,
	"cpu" integer NOT NULL,
	"ram" integer NOT NULL,
	"disk" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	"verified_at" timestamp with time zone,
	"verification_error" text
);
--> statement-breakpoint
ALTER TABLE "configuration_prices" ADD COLUMN "backup_limit" integer;--> statement-breakpoint
ALTER TABLE "vm_backups" ADD CONSTRAINT "vm_backups_vm_id_virtual_machines_id_fk" FOREIGN KEY ("vm_id") REFERENCES "public"."virtual_machines"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vm_backups" ADD CONSTRAINT "vm_backups_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vm_backups" ADD CONSTRAINT "vm_backups_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vm_backups" ADD CONSTRAINT "vm_backups_region_id_regions_id_fk" FOREIGN KEY ("region_id") REFERENCES "public"."regions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vm_backups" ADD CONSTRAINT "vm_backups_provider_id_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vm_backups" ADD CONSTRAINT "vm_backups_host_id_hosts_id_fk" FOREIGN KEY ("host_id") REFERENCES "public"."hosts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vm_backups" ADD CONSTRAINT "vm_backups_configuration_id_configurations_id_fk" FOREIGN KEY ("configuration_id") REFERENCES "public"."configurations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "vm_backups_vm_idx" ON "vm_backups" USING btree ("vm_id","created_at");--> statement-breakpoint
CREATE INDEX "vm_backups_company_idx" ON "vm_backups" USING btree ("company_id","created_at");
CREATE TABLE "hosts" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"uri" text NOT NULL,
	"provider_id" integer NOT NULL,
	"region_id" integer NOT NULL,
	"cpus" integer NOT NULL,
	"ram_gb" real NOT NULL,
	"disk_gb" real NOT NULL,
	"cpu_overcommit" real DEFAULT 4 NOT NULL,
	"ram_overcommit" real DEFAULT 1 NOT NULL,
	"disk_overcommit" real DEFAULT 1 NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"draining" boolean DEFAULT false NOT NULL,
	"last_seen_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "hosts_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "public_addresses" (
	"id" serial PRIMARY KEY NOT NULL,
	"region_id" integer NOT NULL,
	"address" text NOT NULL,
	"vm_id" integer,
	"allocated_at" timestamp with time zone,
	CONSTRAINT "public_addresses_address_unique" UNIQUE("address"),
	CONSTRAINT "public_addresses_vm_id_unique" UNIQUE("vm_id")
);
--> statement-breakpoint
ALTER TABLE "virtual_machines" ADD COLUMN "host_id" integer;--> statement-breakpoint
ALTER TABLE "hosts" ADD CONSTRAINT "hosts_provider_id_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hosts" ADD CONSTRAINT "hosts_region_id_regions_id_fk" FOREIGN KEY ("region_id") REFERENCES "public"."regions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "public_addresses" ADD CONSTRAINT "public_addresses_region_id_regions_id_fk" FOREIGN KEY ("region_id") REFERENCES "public"."regions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "public_addresses" ADD CONSTRAINT "public_addresses_vm_id_virtual_machines_id_fk" FOREIGN KEY ("vm_id") REFERENCES "public"."virtual_machines"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "hosts_provider_region_idx" ON "hosts" USING btree ("provider_id","region_id");--> statement-breakpoint
CREATE INDEX "public_addresses_free_idx" ON "public_addresses" USING btree ("region_id","id") WHERE vm_id is null;--> statement-breakpoint
ALTER TABLE "virtual_machines" ADD CONSTRAINT "virtual_machines_host_id_hosts_id_fk" FOREIGN KEY ("host_id") REFERENCES "public"."hosts"("id") ON DELETE no action ON UPDATE no action;
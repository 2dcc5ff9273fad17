CREATE TYPE "public"."company_kind" AS ENUM('customer', 'staff');--> statement-breakpoint
CREATE TYPE "public"."staff_role" AS ENUM('owner', 'support');--> statement-breakpoint
CREATE TYPE "public"."webhook_delivery_status" AS ENUM('pending', 'delivered', 'failed');--> statement-breakpoint
CREATE TABLE "billing_webhooks" (
	"reseller_id" integer PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"secret" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "configuration_prices" (
	"reseller_id" integer NOT NULL,
	"configuration_id" integer NOT NULL,
	"monthly_price" numeric(12, 2) NOT NULL,
	"hourly_price" numeric(12, 5) NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "configuration_prices_reseller_id_configuration_id_pk" PRIMARY KEY("reseller_id","configuration_id")
);
--> statement-breakpoint
CREATE TABLE "reseller_domains" (
	"host" text PRIMARY KEY NOT NULL,
	"reseller_id" integer NOT NULL,
	"is_primary" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vm_size_periods" (
	"id" serial PRIMARY KEY NOT NULL,
	"vm_id" integer NOT NULL,
	"company_id" integer NOT NULL,
	"configuration_id" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" serial PRIMARY KEY NOT NULL,
	"reseller_id" integer NOT NULL,
	"event" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" "webhook_delivery_status" DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"last_status_code" integer,
	"last_error" text,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "kind" "company_kind" DEFAULT 'customer' NOT NULL;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "suspended_reason" text;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "reseller_id" integer;--> statement-breakpoint
ALTER TABLE "resellers" ADD COLUMN "currency" text DEFAULT 'USD' NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "staff_role" "staff_role";--> statement-breakpoint
ALTER TABLE "billing_webhooks" ADD CONSTRAINT "billing_webhooks_reseller_id_resellers_id_fk" FOREIGN KEY ("reseller_id") REFERENCES "public"."resellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "configuration_prices" ADD CONSTRAINT "configuration_prices_reseller_id_resellers_id_fk" FOREIGN KEY ("reseller_id") REFERENCES "public"."resellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "configuration_prices" ADD CONSTRAINT "configuration_prices_configuration_id_configurations_id_fk" FOREIGN KEY ("configuration_id") REFERENCES "public"."configurations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reseller_domains" ADD CONSTRAINT "reseller_domains_reseller_id_resellers_id_fk" FOREIGN KEY ("reseller_id") REFERENCES "public"."resellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vm_size_periods" ADD CONSTRAINT "vm_size_periods_vm_id_virtual_machines_id_fk" FOREIGN KEY ("vm_id") REFERENCES "public"."virtual_machines"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vm_size_periods" ADD CONSTRAINT "vm_size_periods_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vm_size_periods" ADD CONSTRAINT "vm_size_periods_configuration_id_configurations_id_fk" FOREIGN KEY ("configuration_id") REFERENCES "public"."configurations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_reseller_id_resellers_id_fk" FOREIGN KEY ("reseller_id") REFERENCES "public"."resellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reseller_domains_reseller_idx" ON "reseller_domains" USING btree ("reseller_id");--> statement-breakpoint
CREATE UNIQUE INDEX "reseller_domains_one_primary" ON "reseller_domains" USING btree ("reseller_id") WHERE is_primary;--> statement-breakpoint
CREATE INDEX "vm_size_periods_company_idx" ON "vm_size_periods" USING btree ("company_id","started_at");--> statement-breakpoint
CREATE INDEX "vm_size_periods_vm_idx" ON "vm_size_periods" USING btree ("vm_id");--> statement-breakpoint
CREATE UNIQUE INDEX "vm_size_periods_one_open" ON "vm_size_periods" USING btree ("vm_id") WHERE ended_at is null;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_reseller_idx" ON "webhook_deliveries" USING btree ("reseller_id","created_at");--> statement-breakpoint
ALTER TABLE "providers" ADD CONSTRAINT "providers_reseller_id_resellers_id_fk" FOREIGN KEY ("reseller_id") REFERENCES "public"."resellers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "companies_reseller_idx" ON "companies" USING btree ("reseller_id","kind","name");--> statement-breakpoint
CREATE UNIQUE INDEX "companies_one_staff_per_reseller" ON "companies" USING btree ("reseller_id") WHERE kind = 'staff';--> statement-breakpoint
-- Hand-written backfill (billing, issue 13): every VM whose machine was made gets one size period, from its creation
-- to its deletion (open while it lives), at its current configuration. Earlier resizes are not known.
INSERT INTO "vm_size_periods" ("vm_id", "company_id", "configuration_id", "started_at", "ended_at")
SELECT "id", "company_id", "configuration_id", "created_at", "deleted_at" FROM "virtual_machines"
WHERE "provider_ref" IS NOT NULL;

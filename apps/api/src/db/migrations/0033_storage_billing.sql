CREATE TABLE "storage_periods" (
	"id" serial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"object_id" integer NOT NULL,
	"company_id" integer NOT NULL,
	"vm_id" integer,
	"size_bytes" bigint NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "storage_prices" (
	"reseller_id" integer NOT NULL,
	"kind" text NOT NULL,
	"gb_month_price" numeric(12, 5) NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "storage_prices_reseller_id_kind_pk" PRIMARY KEY("reseller_id","kind")
);
--> statement-breakpoint
ALTER TABLE "storage_periods" ADD CONSTRAINT "storage_periods_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "storage_periods" ADD CONSTRAINT "storage_periods_vm_id_virtual_machines_id_fk" FOREIGN KEY ("vm_id") REFERENCES "public"."virtual_machines"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "storage_prices" ADD CONSTRAINT "storage_prices_reseller_id_resellers_id_fk" FOREIGN KEY ("reseller_id") REFERENCES "public"."resellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "storage_periods_object_key" ON "storage_periods" USING btree ("kind","object_id");--> statement-breakpoint
CREATE INDEX "storage_periods_company_idx" ON "storage_periods" USING btree ("company_id","started_at");--> statement-breakpoint
-- Snapshots kept before this migration: a period from when each was taken, at its measured size (decision 0013's
-- backfill, for storage).
INSERT INTO "storage_periods" ("kind", "object_id", "company_id", "vm_id", "size_bytes", "started_at")
SELECT 'snapshot', s."id", v."company_id", s."vm_id", s."size_bytes", s."created_at"
FROM "vm_snapshots" s JOIN "virtual_machines" v ON v."id" = s."vm_id"
WHERE s."state" IN ('ready', 'reverting', 'deleting') AND s."size_bytes" IS NOT NULL;

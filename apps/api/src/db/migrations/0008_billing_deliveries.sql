ALTER TABLE "webhook_deliveries" ADD COLUMN "company_id" integer;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "month" text;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "trigger" text DEFAULT 'manual' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_scheduled_once" ON "webhook_deliveries" USING btree ("reseller_id","event","company_id","month") WHERE trigger = 'schedule';
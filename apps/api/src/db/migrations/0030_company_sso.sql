CREATE TABLE "company_sso" (
	"company_id" integer PRIMARY KEY NOT NULL,
	"issuer" text NOT NULL,
	"client_id" text NOT NULL,
	"client_secret_sealed" text NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"passwords_disabled" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "company_sso_domains" (
	"domain" text PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "company_sso" ADD CONSTRAINT "company_sso_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "company_sso_domains" ADD CONSTRAINT "company_sso_domains_company_id_company_sso_company_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."company_sso"("company_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "company_sso_domains_company_idx" ON "company_sso_domains" USING btree ("company_id");
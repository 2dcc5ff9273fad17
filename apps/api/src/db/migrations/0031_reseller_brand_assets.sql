CREATE TABLE "reseller_brand_assets" (
	"reseller_id" integer NOT NULL,
	"kind" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	"content_type" text NOT NULL,
	"sha256" text NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reseller_brand_assets_reseller_id_kind_pk" PRIMARY KEY("reseller_id","kind")
);
--> statement-breakpoint
ALTER TABLE "resellers" ADD COLUMN "accent_color" text;--> statement-breakpoint
ALTER TABLE "reseller_brand_assets" ADD CONSTRAINT "reseller_brand_assets_reseller_id_resellers_id_fk" FOREIGN KEY ("reseller_id") REFERENCES "public"."resellers"("id") ON DELETE cascade ON UPDATE no action;
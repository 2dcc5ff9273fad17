CREATE TABLE "image_withdrawals" (
	"reseller_id" integer NOT NULL,
	"region_id" integer NOT NULL,
	"image" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "image_withdrawals_reseller_id_region_id_image_pk" PRIMARY KEY("reseller_id","region_id","image")
);
--> statement-breakpoint
ALTER TABLE "image_withdrawals" ADD CONSTRAINT "image_withdrawals_reseller_id_resellers_id_fk" FOREIGN KEY ("reseller_id") REFERENCES "public"."resellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_withdrawals" ADD CONSTRAINT "image_withdrawals_region_id_regions_id_fk" FOREIGN KEY ("region_id") REFERENCES "public"."regions"("id") ON DELETE no action ON UPDATE no action;
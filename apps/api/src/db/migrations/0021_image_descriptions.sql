CREATE TYPE "public"."os_family" AS ENUM('debian', 'ubuntu', 'rocky', 'alma', 'fedora', 'centos', 'other');--> statement-breakpoint
CREATE TABLE "image_descriptions" (
	"id" serial PRIMARY KEY NOT NULL,
	"reseller_id" integer,
	"image" text NOT NULL,
	"os_family" "os_family" NOT NULL,
	"version" text NOT NULL,
	"default_user" text NOT NULL,
	"min_disk_gb" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "image_descriptions" ADD CONSTRAINT "image_descriptions_reseller_id_resellers_id_fk" FOREIGN KEY ("reseller_id") REFERENCES "public"."resellers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "image_descriptions_platform_key" ON "image_descriptions" USING btree ("image") WHERE reseller_id is null;--> statement-breakpoint
CREATE UNIQUE INDEX "image_descriptions_reseller_key" ON "image_descriptions" USING btree ("reseller_id","image") WHERE reseller_id is not null;--> statement-breakpoint
-- The built guest image as existing installs list it (the seed describes it the same way on new ones): Debian 12,
-- login root, 1.3 GiB virtual size rounded up (docs/guest-image.md).
INSERT INTO "image_descriptions" ("reseller_id", "image", "os_family", "version", "default_user", "min_disk_gb") VALUES (NULL, 'Debian 12', 'debian', '12', 'root', 2);

ALTER TABLE "companies" ADD COLUMN "max_vms" integer;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "max_vcpus" integer;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "max_ram_gb" integer;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "max_disk_gb" integer;--> statement-breakpoint
ALTER TABLE "teams" ADD COLUMN "max_vms" integer;--> statement-breakpoint
ALTER TABLE "teams" ADD COLUMN "max_vcpus" integer;--> statement-breakpoint
ALTER TABLE "teams" ADD COLUMN "max_ram_gb" integer;--> statement-breakpoint
ALTER TABLE "teams" ADD COLUMN "max_disk_gb" integer;
CREATE TYPE "public"."operation_kind" AS ENUM('create', 'start', 'stop', 'forceStop', 'reset', 'resize', 'delete');--> statement-breakpoint
CREATE TYPE "public"."vm_status" AS ENUM('Running', 'Stopped', 'Shutoff', 'Error', 'Provisioning', 'Starting', 'Stopping', 'Resizing');--> statement-breakpoint
ALTER TABLE "operations" ALTER COLUMN "kind" SET DATA TYPE "public"."operation_kind" USING "kind"::"public"."operation_kind";--> statement-breakpoint
ALTER TABLE "virtual_machines" ALTER COLUMN "status" SET DATA TYPE "public"."vm_status" USING "status"::"public"."vm_status";
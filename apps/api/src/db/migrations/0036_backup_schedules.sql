CREATE TABLE "vm_backup_schedules" (
	"vm_id" integer PRIMARY KEY NOT NULL,
	"frequency" text NOT NULL,
	"weekday" smallint,
	"hour" smallint NOT NULL,
	"keep" integer NOT NULL,
	"next_run_at" timestamp with time zone NOT NULL,
	"last_run_at" timestamp with time zone,
	"last_error" text,
	"pending_backup_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "vm_backups" ADD COLUMN "scheduled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "vm_backup_schedules" ADD CONSTRAINT "vm_backup_schedules_vm_id_virtual_machines_id_fk" FOREIGN KEY ("vm_id") REFERENCES "public"."virtual_machines"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vm_backup_schedules" ADD CONSTRAINT "vm_backup_schedules_pending_backup_id_vm_backups_id_fk" FOREIGN KEY ("pending_backup_id") REFERENCES "public"."vm_backups"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "vm_backup_schedules_due_idx" ON "vm_backup_schedules" USING btree ("next_run_at");
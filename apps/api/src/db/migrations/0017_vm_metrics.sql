CREATE TABLE "vm_metric_hours" (
	"vm_id" integer NOT NULL,
	"seconds" double precision NOT NULL,
	"cpu_ns" bigint NOT NULL,
	"cpu_capacity_ns" bigint NOT NULL,
	"memory_samples" integer NOT NULL,
	"memory_bytes_sum" bigint NOT NULL,
	"disk_read_bytes" bigint NOT NULL,
	"disk_write_bytes" bigint NOT NULL,
	"net_rx_bytes" bigint NOT NULL,
	"net_tx_bytes" bigint NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	CONSTRAINT "vm_metric_hours_vm_id_hour_pk" PRIMARY KEY("vm_id","hour")
);
--> statement-breakpoint
CREATE TABLE "vm_metric_latest" (
	"vm_id" integer PRIMARY KEY NOT NULL,
	"sampled_at" timestamp with time zone NOT NULL,
	"cpu_time_ns" bigint NOT NULL,
	"disk_read_bytes" bigint NOT NULL,
	"disk_write_bytes" bigint NOT NULL,
	"net_rx_bytes" bigint NOT NULL,
	"net_tx_bytes" bigint NOT NULL,
	"vcpus" integer NOT NULL,
	"memory_used_bytes" bigint,
	"cpu_percent" double precision NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vm_metric_minutes" (
	"vm_id" integer NOT NULL,
	"seconds" double precision NOT NULL,
	"cpu_ns" bigint NOT NULL,
	"cpu_capacity_ns" bigint NOT NULL,
	"memory_samples" integer NOT NULL,
	"memory_bytes_sum" bigint NOT NULL,
	"disk_read_bytes" bigint NOT NULL,
	"disk_write_bytes" bigint NOT NULL,
	"net_rx_bytes" bigint NOT NULL,
	"net_tx_bytes" bigint NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	CONSTRAINT "vm_metric_minutes_vm_id_minute_pk" PRIMARY KEY("vm_id","minute")
);
--> statement-breakpoint
CREATE TABLE "vm_traffic_months" (
	"vm_id" integer NOT NULL,
	"company_id" integer NOT NULL,
	"month" timestamp with time zone NOT NULL,
	"rx_bytes" bigint NOT NULL,
	"tx_bytes" bigint NOT NULL,
	CONSTRAINT "vm_traffic_months_vm_id_month_pk" PRIMARY KEY("vm_id","month")
);
--> statement-breakpoint
ALTER TABLE "vm_metric_hours" ADD CONSTRAINT "vm_metric_hours_vm_id_virtual_machines_id_fk" FOREIGN KEY ("vm_id") REFERENCES "public"."virtual_machines"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vm_metric_latest" ADD CONSTRAINT "vm_metric_latest_vm_id_virtual_machines_id_fk" FOREIGN KEY ("vm_id") REFERENCES "public"."virtual_machines"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vm_metric_minutes" ADD CONSTRAINT "vm_metric_minutes_vm_id_virtual_machines_id_fk" FOREIGN KEY ("vm_id") REFERENCES "public"."virtual_machines"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vm_traffic_months" ADD CONSTRAINT "vm_traffic_months_vm_id_virtual_machines_id_fk" FOREIGN KEY ("vm_id") REFERENCES "public"."virtual_machines"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vm_traffic_months" ADD CONSTRAINT "vm_traffic_months_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "vm_metric_hours_hour_idx" ON "vm_metric_hours" USING btree ("hour");--> statement-breakpoint
CREATE INDEX "vm_metric_minutes_minute_idx" ON "vm_metric_minutes" USING btree ("minute");--> statement-breakpoint
CREATE INDEX "vm_traffic_months_company_idx" ON "vm_traffic_months" USING btree ("company_id","month");
CREATE TABLE "console_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"vm_id" integer NOT NULL,
	"session_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "console_tokens_expires_idx" ON "console_tokens" USING btree ("expires_at");
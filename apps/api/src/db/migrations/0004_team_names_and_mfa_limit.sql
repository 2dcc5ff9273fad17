-- Hand-written (issue 9 item 3): a database made before this rule may hold teams of one name in one
-- company; all but the oldest get their id appended so the unique index below can be built.
UPDATE "teams" SET "name" = "teams"."name" || ' (' || "teams"."id" || ')', "updated_at" = now()
  FROM "teams" AS "older"
  WHERE "older"."company_id" = "teams"."company_id" AND lower("older"."name") = lower("teams"."name") AND "older"."id" < "teams"."id";--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "mfa_failures" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "mfa_blocked_until" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "teams_company_name_key" ON "teams" USING btree ("company_id",lower("name"));
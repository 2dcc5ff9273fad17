-- Hand-written (drizzle-kit cannot express triggers): every change that can alter or end a signed-in
-- session is announced on the `auth_changes` channel, whoever makes it (any API instance, the operator
-- command, psql), so each instance's session cache forgets it (apps/api/src/modules/auth/session-cache.ts).
-- NOTIFY is sent at commit, and identical payloads of one transaction are sent once.
CREATE FUNCTION notify_auth_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'sessions' THEN
    PERFORM pg_notify('auth_changes', 's:' || OLD.id);
  ELSIF TG_TABLE_NAME = 'users' THEN
    PERFORM pg_notify('auth_changes', 'u:' || OLD.id);
  ELSIF TG_TABLE_NAME = 'companies' THEN
    PERFORM pg_notify('auth_changes', 'c:' || OLD.id);
  ELSE
    -- A reseller's or distributor's branding is in the profiles of many companies: forget everything.
    PERFORM pg_notify('auth_changes', '*');
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Sessions: an ended session (logout, new password, sign-in again, the user deleted). The touch of
-- last_seen_at/expires_at is not announced: an instance re-reads the row when its copy's expiry or touch is due.
CREATE TRIGGER sessions_auth_change AFTER DELETE OR UPDATE OF state, user_id ON sessions FOR EACH ROW EXECUTE FUNCTION notify_auth_change();
--> statement-breakpoint
CREATE TRIGGER users_auth_change AFTER UPDATE OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION notify_auth_change();
--> statement-breakpoint
CREATE TRIGGER companies_auth_change AFTER UPDATE OR DELETE ON companies FOR EACH ROW EXECUTE FUNCTION notify_auth_change();
--> statement-breakpoint
CREATE TRIGGER resellers_auth_change AFTER UPDATE OR DELETE ON resellers FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_change();
--> statement-breakpoint
CREATE TRIGGER distributors_auth_change AFTER UPDATE OR DELETE ON distributors FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_change();

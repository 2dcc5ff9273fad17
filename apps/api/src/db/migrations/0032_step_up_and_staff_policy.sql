ALTER TABLE "resellers" ADD COLUMN "require_staff_authenticator" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "stepped_up_at" timestamp with time zone;--> statement-breakpoint
-- Hand-written: a user's strong factors (an authenticator app confirmed or removed, a passkey added or removed) decide
-- whether a policy holds their sessions to the set-up (session-store.ts resolves it), so every instance's session
-- cache forgets that user's sessions when they change (the channel and payloads of migration 0005).
CREATE FUNCTION notify_strong_factor_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('auth_changes', 'u:' || OLD.user_id);
  ELSE
    PERFORM pg_notify('auth_changes', 'u:' || NEW.user_id);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER user_totp_auth_change AFTER INSERT OR UPDATE OR DELETE ON user_totp FOR EACH ROW EXECUTE FUNCTION notify_strong_factor_change();
--> statement-breakpoint
CREATE TRIGGER user_passkeys_auth_change AFTER INSERT OR DELETE ON user_passkeys FOR EACH ROW EXECUTE FUNCTION notify_strong_factor_change();

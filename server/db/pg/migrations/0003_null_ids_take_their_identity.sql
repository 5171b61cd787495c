-- The queries are written once, in SQLite's words (decision 157): an insert that leaves an autoincrement key out
-- sends NULL for it, which SQLite numbers and PostgreSQL refuses. This numbers it from the column's identity.
CREATE FUNCTION take_identity_when_null() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id IS NULL THEN
    NEW.id := nextval(pg_get_serial_sequence(TG_TABLE_NAME, 'id'));
  END IF;
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER account_requests_id_when_null BEFORE INSERT ON account_requests FOR EACH ROW EXECUTE FUNCTION take_identity_when_null();
--> statement-breakpoint
CREATE TRIGGER audit_log_id_when_null BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION take_identity_when_null();
--> statement-breakpoint
CREATE TRIGGER login_failures_id_when_null BEFORE INSERT ON login_failures FOR EACH ROW EXECUTE FUNCTION take_identity_when_null();
--> statement-breakpoint
CREATE TRIGGER mail_outbox_id_when_null BEFORE INSERT ON mail_outbox FOR EACH ROW EXECUTE FUNCTION take_identity_when_null();
--> statement-breakpoint
CREATE TRIGGER recovery_codes_id_when_null BEFORE INSERT ON recovery_codes FOR EACH ROW EXECUTE FUNCTION take_identity_when_null();
--> statement-breakpoint
CREATE TRIGGER resident_versions_id_when_null BEFORE INSERT ON resident_versions FOR EACH ROW EXECUTE FUNCTION take_identity_when_null();
--> statement-breakpoint
CREATE TRIGGER push_test_sends_id_when_null BEFORE INSERT ON push_test_sends FOR EACH ROW EXECUTE FUNCTION take_identity_when_null();

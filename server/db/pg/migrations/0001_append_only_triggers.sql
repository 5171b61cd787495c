-- The audit log is append-only: no one can change or remove an entry through the app or a stray query (decision 10).
-- The same words as SQLite's triggers (server/db/migrations/0001_audit_append_only.sql).
CREATE FUNCTION "audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "audit_log_no_update" BEFORE UPDATE ON "audit_log" FOR EACH ROW EXECUTE FUNCTION "audit_log_append_only"();
--> statement-breakpoint
CREATE TRIGGER "audit_log_no_delete" BEFORE DELETE ON "audit_log" FOR EACH ROW EXECUTE FUNCTION "audit_log_append_only"();
--> statement-breakpoint
-- TRUNCATE fires no row trigger in PostgreSQL (SQLite has none).
CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON "audit_log" FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_append_only"();
--> statement-breakpoint
-- A resident's history is append-only like the audit log (decision 53); the one update allowed is the foreign key
-- forgetting a deleted account (changed_by set to null, every other column unchanged).
CREATE FUNCTION "resident_versions_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW."changed_by" IS NULL AND OLD."changed_by" IS NOT NULL
    AND to_jsonb(NEW) - 'changed_by' = to_jsonb(OLD) - 'changed_by' THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'resident_versions is append-only';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "resident_versions_no_update" BEFORE UPDATE ON "resident_versions" FOR EACH ROW EXECUTE FUNCTION "resident_versions_append_only"();
--> statement-breakpoint
CREATE TRIGGER "resident_versions_no_delete" BEFORE DELETE ON "resident_versions" FOR EACH ROW EXECUTE FUNCTION "resident_versions_append_only"();
--> statement-breakpoint
CREATE TRIGGER "resident_versions_no_truncate" BEFORE TRUNCATE ON "resident_versions" FOR EACH STATEMENT EXECUTE FUNCTION "resident_versions_append_only"();

CREATE TABLE `resident_versions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`resident_id` text NOT NULL,
	`version` integer NOT NULL,
	`action` text NOT NULL,
	`changed_by` text,
	`changed_at` integer NOT NULL,
	`changes` text DEFAULT '[]' NOT NULL,
	`previous` text,
	FOREIGN KEY (`resident_id`) REFERENCES `residents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`changed_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `resident_versions_resident_version_unique` ON `resident_versions` (`resident_id`,`version`);--> statement-breakpoint
CREATE TABLE `resident_views` (
	`id` text PRIMARY KEY NOT NULL,
	`resident_id` text NOT NULL,
	`user_id` text,
	`viewed_at` integer NOT NULL,
	`recorded_at` integer NOT NULL,
	`server_seq` integer NOT NULL,
	FOREIGN KEY (`resident_id`) REFERENCES `residents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `resident_views_user_seq_idx` ON `resident_views` (`user_id`,`server_seq`,`id`);--> statement-breakpoint
CREATE TABLE `residents` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`like_to_be_call` text DEFAULT '' NOT NULL,
	`date_of_birth` text,
	`photo_url` text,
	`interests_happy_place` text DEFAULT '' NOT NULL,
	`support_needs_care_preferences` text DEFAULT '' NOT NULL,
	`what_makes_sad_anxious` text DEFAULT '' NOT NULL,
	`medication` text DEFAULT '' NOT NULL,
	`strengths_abilities` text DEFAULT '' NOT NULL,
	`communication_preferences` text DEFAULT '' NOT NULL,
	`family_social_connections` text DEFAULT '' NOT NULL,
	`personal_values_beliefs` text DEFAULT '' NOT NULL,
	`house_tags` text DEFAULT '[]' NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`archived` integer DEFAULT false NOT NULL,
	`archived_at` integer,
	`archived_by` text,
	`server_seq` integer NOT NULL,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`archived_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `residents_server_seq_idx` ON `residents` (`server_seq`,`id`);--> statement-breakpoint
CREATE INDEX `residents_archived_name_idx` ON `residents` (`archived`,`name`);--> statement-breakpoint
-- A resident's history is append-only like the audit log; the one update allowed is the foreign key
-- forgetting a deleted account (changed_by set to null).
CREATE TRIGGER `resident_versions_no_update` BEFORE UPDATE ON `resident_versions`
WHEN NOT (NEW.`changed_by` IS NULL AND OLD.`changed_by` IS NOT NULL AND NEW.`id` = OLD.`id`
  AND NEW.`resident_id` = OLD.`resident_id` AND NEW.`version` = OLD.`version` AND NEW.`action` = OLD.`action`
  AND NEW.`changed_at` = OLD.`changed_at` AND NEW.`changes` = OLD.`changes` AND NEW.`previous` IS OLD.`previous`)
BEGIN SELECT RAISE(ABORT, 'resident_versions is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER `resident_versions_no_delete` BEFORE DELETE ON `resident_versions` BEGIN SELECT RAISE(ABORT, 'resident_versions is append-only'); END;

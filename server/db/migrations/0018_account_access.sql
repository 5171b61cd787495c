ALTER TABLE `users` ADD `account_type` text DEFAULT 'employee' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `access_ends_at` integer;--> statement-breakpoint
CREATE INDEX `users_access_ends_idx` ON `users` (`access_ends_at`);
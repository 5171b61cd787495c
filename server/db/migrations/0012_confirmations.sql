-- Read-and-confirm posts share the alert rows (decision 136): every existing row is an alert, none a confirmation.
ALTER TABLE `acknowledgements` ADD `alert` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `acknowledgements` ADD `confirm` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `acknowledgements` ADD `confirm_reminders` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `acknowledgements` ADD `confirm_reminded_at` integer;--> statement-breakpoint
ALTER TABLE `posts` ADD `requires_confirmation` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `posts` ADD `confirm_by` text;

ALTER TABLE `acknowledgements` ADD `written_at` integer;--> statement-breakpoint
ALTER TABLE `comments` ADD `written_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `written_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `posts` ADD `written_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `posts` SET `written_at` = `created_at`;--> statement-breakpoint
UPDATE `comments` SET `written_at` = `created_at`;--> statement-breakpoint
UPDATE `messages` SET `written_at` = `created_at`;--> statement-breakpoint
UPDATE `acknowledgements` SET `written_at` = `acknowledged_at` WHERE `acknowledged_at` IS NOT NULL;

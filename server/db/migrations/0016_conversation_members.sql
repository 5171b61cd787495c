CREATE TABLE `conversation_members` (
	`conversation_id` text NOT NULL,
	`user_id` text NOT NULL,
	`joined_at` integer NOT NULL,
	`left_at` integer,
	`read_up_to` integer DEFAULT 0 NOT NULL,
	`muted` integer DEFAULT false NOT NULL,
	`access_seq` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`conversation_id`, `user_id`),
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `conversation_members_user_idx` ON `conversation_members` (`user_id`,`conversation_id`);--> statement-breakpoint
ALTER TABLE `conversations` ADD `kind` text DEFAULT 'direct' NOT NULL;--> statement-breakpoint
ALTER TABLE `conversations` ADD `name` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `house` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `created_by` text REFERENCES users(id) ON DELETE set null;--> statement-breakpoint
CREATE UNIQUE INDEX `conversations_house_unique` ON `conversations` (`house`);--> statement-breakpoint
-- Direct chats become two members each, with their read marks; access_seq 0 so no device pulls anything again.
INSERT INTO `conversation_members` (`conversation_id`, `user_id`, `joined_at`, `read_up_to`)
	SELECT `id`, `user_a_id`, `created_at`, `a_read_up_to` FROM `conversations` WHERE `user_a_id` IS NOT NULL;--> statement-breakpoint
INSERT INTO `conversation_members` (`conversation_id`, `user_id`, `joined_at`, `read_up_to`)
	SELECT `id`, `user_b_id`, `created_at`, `b_read_up_to` FROM `conversations` WHERE `user_b_id` IS NOT NULL;--> statement-breakpoint
ALTER TABLE `conversations` DROP COLUMN `a_read_up_to`;--> statement-breakpoint
ALTER TABLE `conversations` DROP COLUMN `b_read_up_to`;

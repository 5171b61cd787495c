PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_mention_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`post_id` text,
	`comment_id` text,
	`conversation_id` text,
	`message_id` text,
	`mentioned_by` text,
	`created_at` integer NOT NULL,
	`viewed_at` integer,
	`deleted` integer DEFAULT false NOT NULL,
	`server_seq` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`mentioned_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
INSERT INTO `__new_mention_entries`("id", "user_id", "post_id", "comment_id", "conversation_id", "message_id", "mentioned_by", "created_at", "viewed_at", "deleted", "server_seq") SELECT "id", "user_id", "post_id", "comment_id", NULL, NULL, "mentioned_by", "created_at", "viewed_at", "deleted", "server_seq" FROM `mention_entries`;--> statement-breakpoint
DROP TABLE `mention_entries`;--> statement-breakpoint
ALTER TABLE `__new_mention_entries` RENAME TO `mention_entries`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `mention_entries_user_seq_idx` ON `mention_entries` (`user_id`,`server_seq`,`id`);--> statement-breakpoint
CREATE INDEX `mention_entries_seq_idx` ON `mention_entries` (`server_seq`,`id`);--> statement-breakpoint
CREATE INDEX `mention_entries_post_idx` ON `mention_entries` (`post_id`);--> statement-breakpoint
CREATE INDEX `mention_entries_comment_idx` ON `mention_entries` (`comment_id`);--> statement-breakpoint
CREATE INDEX `mention_entries_conversation_idx` ON `mention_entries` (`conversation_id`);--> statement-breakpoint
ALTER TABLE `messages` ADD `mentions` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `images` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `attachments` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `uploads` ADD `conversation_id` text REFERENCES conversations(id) ON DELETE cascade;
CREATE TABLE `mention_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`post_id` text NOT NULL,
	`comment_id` text,
	`mentioned_by` text,
	`created_at` integer NOT NULL,
	`viewed_at` integer,
	`deleted` integer DEFAULT false NOT NULL,
	`server_seq` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`mentioned_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `mention_entries_user_seq_idx` ON `mention_entries` (`user_id`,`server_seq`,`id`);--> statement-breakpoint
CREATE INDEX `mention_entries_seq_idx` ON `mention_entries` (`server_seq`,`id`);--> statement-breakpoint
CREATE INDEX `mention_entries_post_idx` ON `mention_entries` (`post_id`);--> statement-breakpoint
CREATE INDEX `mention_entries_comment_idx` ON `mention_entries` (`comment_id`);--> statement-breakpoint
ALTER TABLE `comments` ADD `mentions` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `posts` ADD `mentions` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `scheduled_posts` ADD `mentions` text DEFAULT '[]' NOT NULL;
CREATE TABLE `scheduled_posts` (
	`id` text PRIMARY KEY NOT NULL,
	`author_id` text NOT NULL,
	`content` text NOT NULL,
	`category` text NOT NULL,
	`is_urgent` integer NOT NULL,
	`house_tags` text DEFAULT '[]' NOT NULL,
	`audience_houses` text DEFAULT '[]' NOT NULL,
	`images` text DEFAULT '[]' NOT NULL,
	`attachments` text DEFAULT '[]' NOT NULL,
	`requires_confirmation` integer DEFAULT false NOT NULL,
	`confirm_by` text,
	`publish_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`written_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`edited_by` text,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`edited_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `scheduled_posts_publish_idx` ON `scheduled_posts` (`publish_at`);--> statement-breakpoint
CREATE INDEX `scheduled_posts_author_idx` ON `scheduled_posts` (`author_id`);
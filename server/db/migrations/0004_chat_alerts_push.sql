CREATE TABLE `acknowledgements` (
	`id` text PRIMARY KEY NOT NULL,
	`post_id` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`acknowledged_at` integer,
	`viewed_at` integer,
	`reminded_at` integer,
	`deleted` integer DEFAULT false NOT NULL,
	`server_seq` integer NOT NULL,
	FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `acknowledgements_user_seq_idx` ON `acknowledgements` (`user_id`,`server_seq`,`id`);--> statement-breakpoint
CREATE INDEX `acknowledgements_post_idx` ON `acknowledgements` (`post_id`);--> statement-breakpoint
CREATE INDEX `acknowledgements_due_idx` ON `acknowledgements` (`created_at`) WHERE acknowledged_at IS NULL AND reminded_at IS NULL AND deleted = 0;--> statement-breakpoint
CREATE TABLE `conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`user_a_id` text,
	`user_b_id` text,
	`a_read_up_to` integer DEFAULT 0 NOT NULL,
	`b_read_up_to` integer DEFAULT 0 NOT NULL,
	`last_message_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`server_seq` integer NOT NULL,
	FOREIGN KEY (`user_a_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`user_b_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `conversations_pair_unique` ON `conversations` (`user_a_id`,`user_b_id`);--> statement-breakpoint
CREATE INDEX `conversations_user_b_idx` ON `conversations` (`user_b_id`);--> statement-breakpoint
CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`sender_id` text,
	`content` text NOT NULL,
	`created_at` integer NOT NULL,
	`server_seq` integer NOT NULL,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`sender_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `messages_conversation_created_idx` ON `messages` (`conversation_id`,`created_at`,`sender_id`);--> statement-breakpoint
CREATE INDEX `messages_conversation_seq_idx` ON `messages` (`conversation_id`,`server_seq`,`id`);--> statement-breakpoint
CREATE INDEX `messages_sender_idx` ON `messages` (`sender_id`);--> statement-breakpoint
CREATE TABLE `push_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`endpoint` text NOT NULL,
	`p256dh` text NOT NULL,
	`auth` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `push_subscriptions_endpoint_unique` ON `push_subscriptions` (`endpoint`);--> statement-breakpoint
CREATE INDEX `push_subscriptions_user_idx` ON `push_subscriptions` (`user_id`);--> statement-breakpoint
CREATE TABLE `user_houses` (
	`user_id` text NOT NULL,
	`house` text NOT NULL,
	PRIMARY KEY(`user_id`, `house`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `user_houses_house_idx` ON `user_houses` (`house`,`user_id`);--> statement-breakpoint
ALTER TABLE `posts` ADD `audience_houses` text DEFAULT '[]' NOT NULL;
CREATE TABLE `handover_views` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text,
	`house` text NOT NULL,
	`handover_ids` text NOT NULL,
	`viewed_at` integer NOT NULL,
	`recorded_at` integer NOT NULL,
	`server_seq` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `handover_views_user_seq_idx` ON `handover_views` (`user_id`,`server_seq`,`id`);
CREATE TABLE `sync_device_states` (
	`collection` text NOT NULL,
	`doc_id` text NOT NULL,
	`user_id` text NOT NULL,
	`device_id` text NOT NULL,
	`state` text NOT NULL,
	`written_at` integer NOT NULL,
	PRIMARY KEY(`collection`, `doc_id`, `user_id`, `device_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sync_device_states_written_idx` ON `sync_device_states` (`written_at`);
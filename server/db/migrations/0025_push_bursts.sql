CREATE TABLE `push_bursts` (
	`key` text NOT NULL,
	`user_id` text NOT NULL,
	`window_start` integer NOT NULL,
	`sent` integer NOT NULL,
	`held` integer NOT NULL,
	`summary` text NOT NULL,
	`options` text NOT NULL,
	PRIMARY KEY(`key`, `user_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `push_bursts_window_idx` ON `push_bursts` (`window_start`);
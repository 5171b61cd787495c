CREATE TABLE `handover_access` (
	`user_id` text NOT NULL,
	`house` text NOT NULL,
	`visible` integer NOT NULL,
	`server_seq` integer NOT NULL,
	PRIMARY KEY(`user_id`, `house`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `handover_addenda` (
	`id` text PRIMARY KEY NOT NULL,
	`handover_id` text NOT NULL,
	`author_id` text,
	`content` text NOT NULL,
	`created_at` integer NOT NULL,
	`written_at` integer NOT NULL,
	FOREIGN KEY (`handover_id`) REFERENCES `handovers`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `handover_addenda_handover_idx` ON `handover_addenda` (`handover_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `handover_reads` (
	`handover_id` text NOT NULL,
	`user_id` text NOT NULL,
	`read_at` integer NOT NULL,
	`recorded_at` integer NOT NULL,
	PRIMARY KEY(`handover_id`, `user_id`),
	FOREIGN KEY (`handover_id`) REFERENCES `handovers`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `handovers` (
	`id` text PRIMARY KEY NOT NULL,
	`house` text NOT NULL,
	`shift` text NOT NULL,
	`author_id` text,
	`content` text NOT NULL,
	`resident_ids` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL,
	`written_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`corrected_at` integer,
	`hidden` integer DEFAULT false NOT NULL,
	`hidden_at` integer,
	`hidden_by` text,
	`server_seq` integer NOT NULL,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`hidden_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `handovers_house_created_idx` ON `handovers` (`house`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `handovers_server_seq_idx` ON `handovers` (`server_seq`,`id`);
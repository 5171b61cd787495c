CREATE TABLE `ended_sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`reason` text NOT NULL,
	`ended_at` integer NOT NULL
);

CREATE TABLE `sso_attempts` (
	`state_hash` text PRIMARY KEY NOT NULL,
	`nonce` text NOT NULL,
	`code_verifier` text NOT NULL,
	`ip` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sso_attempts_expires_idx` ON `sso_attempts` (`expires_at`);--> statement-breakpoint
CREATE INDEX `sso_attempts_ip_idx` ON `sso_attempts` (`ip`,`expires_at`);
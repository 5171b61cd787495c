DROP INDEX `comments_post_idx`;--> statement-breakpoint
CREATE INDEX `comments_post_live_idx` ON `comments` (`post_id`,`deleted`,`created_at`);--> statement-breakpoint
DROP INDEX `reactions_post_idx`;--> statement-breakpoint
CREATE INDEX `reactions_post_live_idx` ON `reactions` (`post_id`,`deleted`,`type`,`user_id`);
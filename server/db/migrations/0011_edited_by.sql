-- Who last edited a post when that was not its author (decision 126); forgotten with their account, like authors.
ALTER TABLE `posts` ADD `edited_by` text REFERENCES users(id) ON DELETE SET NULL;
--> statement-breakpoint
-- Deleted posts and comments keep no content (decision 126): erase what tombstones stored before.
UPDATE `posts` SET `content` = '', `house_tags` = '[]', `audience_houses` = '[]', `images` = '[]', `attachments` = '[]' WHERE `deleted` = 1;--> statement-breakpoint
UPDATE `comments` SET `content` = '' WHERE `deleted` = 1;--> statement-breakpoint
DELETE FROM `sync_device_states` WHERE `collection` = 'posts' AND `doc_id` IN (SELECT `id` FROM `posts` WHERE `deleted` = 1);

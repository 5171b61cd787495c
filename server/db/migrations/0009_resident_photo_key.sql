ALTER TABLE `resident_versions` ADD `photo_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `resident_versions_photo_key_unique` ON `resident_versions` (`resident_id`,`photo_key`);
ALTER TABLE `sessions` ADD `session_id` text;--> statement-breakpoint
-- Sessions opened before this migration get an id too (added by hand before the migration landed).
UPDATE `sessions` SET `session_id` = lower(hex(randomblob(16))) WHERE `session_id` IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `sessions_id_idx` ON `sessions` (`session_id`);

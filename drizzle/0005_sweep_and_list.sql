DROP INDEX `files_touched_idx`;--> statement-breakpoint
ALTER TABLE `files` ADD `checked_at` integer;--> statement-breakpoint
CREATE INDEX `files_unchecked_idx` ON `files` (`touched_at`) WHERE checked_at IS NULL;--> statement-breakpoint
DROP INDEX `canvases_workspace_created_idx`;--> statement-breakpoint
DROP INDEX `canvases_workspace_updated_idx`;--> statement-breakpoint
DROP INDEX `canvases_expires_idx`;--> statement-breakpoint
ALTER TABLE `canvases` ADD `size` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `canvases` SET `size` = (SELECT `versions`.`size` FROM `versions` WHERE `versions`.`canvas_id` = `canvases`.`canvas_id` AND `versions`.`version` = `canvases`.`version`) WHERE EXISTS (SELECT 1 FROM `versions` WHERE `versions`.`canvas_id` = `canvases`.`canvas_id` AND `versions`.`version` = `canvases`.`version`);--> statement-breakpoint
CREATE INDEX `canvases_workspace_created_idx` ON `canvases` (`workspace_id`,`created_at`,`canvas_id`,`expires_at`,`visibility`,`ext`,`owner_user_id`,`title`,`renderer_id`,`version`,`updated_at`,`size`);--> statement-breakpoint
CREATE INDEX `canvases_workspace_updated_idx` ON `canvases` (`workspace_id`,`updated_at`,`canvas_id`,`expires_at`,`visibility`,`ext`,`owner_user_id`,`title`,`renderer_id`,`version`,`created_at`,`size`);--> statement-breakpoint
CREATE INDEX `canvases_expires_idx` ON `canvases` (`expires_at`,`canvas_id`);
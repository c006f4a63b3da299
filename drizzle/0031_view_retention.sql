-- Readership's retention and the workspace's most read canvases (docs/readership.md): the sweep
-- removes the days of counts past VIEW_RETENTION_DAYS by their day, and a removed canvas's counts
-- with it, for the canvases whose object has written some (viewed); a workspace's counts of a
-- period are read from one index, its canvas's workspace on each row (filled in for rows before).
ALTER TABLE `canvas_views` ADD `workspace_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
UPDATE `canvas_views` SET `workspace_id` = coalesce((SELECT `workspace_id` FROM `canvases` WHERE `canvases`.`canvas_id` = `canvas_views`.`canvas_id`), '');--> statement-breakpoint
CREATE INDEX `canvas_views_day_idx` ON `canvas_views` (`day`);--> statement-breakpoint
CREATE INDEX `canvas_views_workspace_idx` ON `canvas_views` (`workspace_id`,`kind`,`day`,`canvas_id`,`views`,`readers`);--> statement-breakpoint
ALTER TABLE `canvases` ADD `viewed` integer DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE `canvases` SET `viewed` = 1 WHERE `canvas_id` IN (SELECT `canvas_id` FROM `canvas_views`);

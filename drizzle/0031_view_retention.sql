-- Readership's retention (docs/readership.md): the sweep removes the days of counts past
-- VIEW_RETENTION_DAYS by their day, and a removed canvas's counts with it, for the canvases whose
-- object has written some (viewed).
ALTER TABLE `canvases` ADD `viewed` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `canvas_views_day_idx` ON `canvas_views` (`day`);
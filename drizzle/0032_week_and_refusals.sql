-- Readership's refused opens and the dashboard's week (docs/readership.md): a revoked link is
-- remembered for a while, so that an open of it counts as a refused open of its canvas; the
-- dashboard's list carries whether a canvas has been read, and a canvas's days of reads have an
-- index of their own, so that the week of each canvas listed is read without its other rows.
CREATE TABLE `revoked_links` (
	`token` text PRIMARY KEY NOT NULL,
	`canvas_id` text NOT NULL,
	`revoked_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `revoked_links_revoked_idx` ON `revoked_links` (`revoked_at`);--> statement-breakpoint
DROP INDEX `canvases_workspace_updated_idx`;--> statement-breakpoint
CREATE INDEX `canvases_workspace_updated_idx` ON `canvases` (`workspace_id`,`updated_at`,`canvas_id`,`expires_at`,`visibility`,`ext`,`owner_user_id`,`title`,`renderer_id`,`version`,`created_at`,`size`,`approved_version`,`viewed`);--> statement-breakpoint
CREATE INDEX `canvas_views_week_idx` ON `canvas_views` (`canvas_id`,`day`,`views`) WHERE kind = 'day';
-- The canvas page's Readers panel (docs/readership.md): the members who read its latest version,
-- the most recent first, from a few entries however many read it; and its refused opens by day,
-- read without its other counts.
CREATE INDEX `canvas_member_views_version_idx` ON `canvas_member_views` (`canvas_id`,`last_version`,`last_viewed_at`);--> statement-breakpoint
CREATE INDEX `canvas_views_denied_idx` ON `canvas_views` (`canvas_id`,`day`,`key`,`views`) WHERE kind = 'denied';
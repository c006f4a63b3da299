-- Readership: a canvas's reads by day (by version and by link too) and each member's last read,
-- added in batches by the canvas's Durable Object (src/live/view-tally.ts).
CREATE TABLE `canvas_member_views` (
	`canvas_id` text NOT NULL,
	`user_id` text NOT NULL,
	`last_viewed_at` integer NOT NULL,
	`last_version` integer NOT NULL,
	PRIMARY KEY(`canvas_id`, `user_id`)
);
--> statement-breakpoint
CREATE TABLE `canvas_views` (
	`canvas_id` text NOT NULL,
	`day` integer NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`views` integer DEFAULT 0 NOT NULL,
	`readers` integer DEFAULT 0 NOT NULL,
	`last_at` integer NOT NULL,
	PRIMARY KEY(`canvas_id`, `day`, `kind`, `key`)
);

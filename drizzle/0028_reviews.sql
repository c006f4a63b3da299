-- Reviews that gate what readers see: a canvas's reviews, their decisions, the newest version
-- one approved, and how many it has (the sweep removes them only then).
CREATE TABLE `review_decisions` (
	`review_id` text NOT NULL,
	`user_id` text NOT NULL,
	`decision` text NOT NULL,
	`comment_id` text,
	`decided_at` integer NOT NULL,
	PRIMARY KEY(`review_id`, `user_id`)
);
--> statement-breakpoint
CREATE TABLE `reviews` (
	`review_id` text PRIMARY KEY NOT NULL,
	`canvas_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`version` integer NOT NULL,
	`state` text NOT NULL,
	`requested_by` text NOT NULL,
	`reviewers` text DEFAULT '[]' NOT NULL,
	`note` text,
	`created_at` integer NOT NULL,
	`decided_at` integer
);
--> statement-breakpoint
CREATE INDEX `reviews_canvas_idx` ON `reviews` (`canvas_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `reviews_pending_idx` ON `reviews` (`canvas_id`,`version`) WHERE state = 'pending';--> statement-breakpoint
ALTER TABLE `canvases` ADD `approved_version` integer;--> statement-breakpoint
ALTER TABLE `canvases` ADD `review_count` integer DEFAULT 0 NOT NULL;

CREATE TABLE `comments` (
	`comment_id` text PRIMARY KEY NOT NULL,
	`canvas_id` text NOT NULL,
	`parent_id` text,
	`version` integer NOT NULL,
	`anchor` text,
	`body` text NOT NULL,
	`author_name` text NOT NULL,
	`author_kind` text NOT NULL,
	`status` text,
	`created_at` integer NOT NULL,
	`resolved_at` integer,
	FOREIGN KEY (`canvas_id`) REFERENCES `canvases`(`canvas_id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`parent_id`) REFERENCES `comments`(`comment_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `comments_canvas_idx` ON `comments` (`canvas_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `comments_parent_idx` ON `comments` (`parent_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `share_links` ADD `allow_comments` integer DEFAULT false NOT NULL;
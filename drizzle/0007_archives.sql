CREATE TABLE `archives` (
	`canvas_id` text NOT NULL,
	`version` integer NOT NULL,
	`blob_key` text NOT NULL,
	`size` integer,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`canvas_id`, `version`)
);
--> statement-breakpoint
CREATE INDEX `archives_deleting_idx` ON `archives` (`blob_key`) WHERE status = 'deleting';--> statement-breakpoint
CREATE TABLE `download_budgets` (
	`client` text NOT NULL,
	`window_start` integer NOT NULL,
	`bytes` integer NOT NULL,
	PRIMARY KEY(`client`, `window_start`)
);
--> statement-breakpoint
CREATE INDEX `download_budgets_window_idx` ON `download_budgets` (`window_start`);
CREATE TABLE `version_items` (
	`canvas_id` text NOT NULL,
	`version` integer NOT NULL,
	`path` text NOT NULL,
	`file_id` text NOT NULL,
	PRIMARY KEY(`canvas_id`, `version`, `path`),
	FOREIGN KEY (`file_id`) REFERENCES `files`(`file_id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`canvas_id`,`version`) REFERENCES `versions`(`canvas_id`,`version`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `version_items_file_idx` ON `version_items` (`file_id`);--> statement-breakpoint
ALTER TABLE `versions` ADD `main_path` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `versions` ADD `item_count` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
-- Every version so far holds one file: it becomes the one item `index.<ext>` of its version.
UPDATE `versions` SET `main_path` = 'index.' || (SELECT `ext` FROM `canvases` WHERE `canvases`.`canvas_id` = `versions`.`canvas_id`);--> statement-breakpoint
INSERT INTO `version_items` (`canvas_id`, `version`, `path`, `file_id`) SELECT `canvas_id`, `version`, `main_path`, `file_id` FROM `versions`;

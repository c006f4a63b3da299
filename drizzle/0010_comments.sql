CREATE TABLE `comments` (
	`canvas_id` text NOT NULL,
	`comment_id` text NOT NULL,
	`parent_id` text,
	`version` integer NOT NULL,
	`anchor` text,
	`body` text NOT NULL,
	`author_name` text NOT NULL,
	`author_kind` text NOT NULL,
	`status` text,
	`created_at` integer NOT NULL,
	`resolved_at` integer,
	`reply_count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`canvas_id`, `comment_id`),
	FOREIGN KEY (`canvas_id`) REFERENCES `canvases`(`canvas_id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `comments_parent_idx` ON `comments` (`canvas_id`,`parent_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `canvases` ADD `comment_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `share_links` ADD `allow_comments` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- The counts a new comment or reply is checked against, kept by the database itself whoever
-- writes (replies deleted with their comment, comments with their canvas).
CREATE TRIGGER `comments_count_insert` AFTER INSERT ON `comments` WHEN NEW.`parent_id` IS NULL BEGIN
  UPDATE `canvases` SET `comment_count` = `comment_count` + 1 WHERE `canvas_id` = NEW.`canvas_id`;
END;--> statement-breakpoint
CREATE TRIGGER `comments_count_delete` AFTER DELETE ON `comments` WHEN OLD.`parent_id` IS NULL BEGIN
  UPDATE `canvases` SET `comment_count` = `comment_count` - 1 WHERE `canvas_id` = OLD.`canvas_id`;
END;--> statement-breakpoint
CREATE TRIGGER `replies_count_insert` AFTER INSERT ON `comments` WHEN NEW.`parent_id` IS NOT NULL BEGIN
  UPDATE `comments` SET `reply_count` = `reply_count` + 1
  WHERE `canvas_id` = NEW.`canvas_id` AND `comment_id` = NEW.`parent_id`;
END;--> statement-breakpoint
CREATE TRIGGER `replies_count_delete` AFTER DELETE ON `comments` WHEN OLD.`parent_id` IS NOT NULL BEGIN
  UPDATE `comments` SET `reply_count` = `reply_count` - 1
  WHERE `canvas_id` = OLD.`canvas_id` AND `comment_id` = OLD.`parent_id`;
END;

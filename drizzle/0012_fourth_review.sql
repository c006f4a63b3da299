-- What a share link's readers see of a comment's author (a member's display name, never an
-- email), the Idempotency-Key a comment was posted with, and a grant's own subject in the OAuth
-- library (no token carries a person's id).
ALTER TABLE `users` ADD `display_name` text;--> statement-breakpoint
ALTER TABLE `oauth_grants` ADD `subject` text;--> statement-breakpoint
-- Comments without their foreign key to canvases: the sweep, which alone removes canvases,
-- removes their comments first, and the key cost every canvas removed a read of this table. The
-- table is made anew (SQLite cannot drop a key), its count triggers dropped before and made again
-- after, so that moving the rows counts nothing twice.
DROP TRIGGER `comments_count_insert`;--> statement-breakpoint
DROP TRIGGER `comments_count_delete`;--> statement-breakpoint
DROP TRIGGER `replies_count_insert`;--> statement-breakpoint
DROP TRIGGER `replies_count_delete`;--> statement-breakpoint
CREATE TABLE `__new_comments` (
	`canvas_id` text NOT NULL,
	`comment_id` text NOT NULL,
	`parent_id` text,
	`version` integer NOT NULL,
	`anchor` text,
	`body` text NOT NULL,
	`author_name` text NOT NULL,
	`author_kind` text NOT NULL,
	`author_user_id` text,
	`author_public_name` text,
	`request_key` text,
	`status` text,
	`created_at` integer NOT NULL,
	`resolved_at` integer,
	`reply_count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`canvas_id`, `comment_id`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_comments` (`canvas_id`, `comment_id`, `parent_id`, `version`, `anchor`, `body`, `author_name`, `author_kind`, `status`, `created_at`, `resolved_at`, `reply_count`)
SELECT `canvas_id`, `comment_id`, `parent_id`, `version`, `anchor`, `body`, `author_name`, `author_kind`, `status`, `created_at`, `resolved_at`, `reply_count` FROM `comments`;--> statement-breakpoint
DROP TABLE `comments`;--> statement-breakpoint
ALTER TABLE `__new_comments` RENAME TO `comments`;--> statement-breakpoint
CREATE INDEX `comments_parent_idx` ON `comments` (`canvas_id`,`parent_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `comments_request_key_idx` ON `comments` (`canvas_id`,`request_key`) WHERE request_key IS NOT NULL;--> statement-breakpoint
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
END;--> statement-breakpoint
-- A canvas carries the count and bytes of its versions, and a version its canvas's workspace: a
-- new version is counted into its workspace's totals and its canvas's without a canvas row read
-- to find the workspace, and a canvas the sweep removes takes its versions' share of the totals
-- from its own row, after its row is gone (AFTER: a BEFORE trigger costs the row read again).
ALTER TABLE `canvases` ADD `version_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `canvases` ADD `content_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `versions` ADD `workspace_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
UPDATE `canvases` SET
  `version_count` = (SELECT count(*) FROM `versions` v WHERE v.`canvas_id` = `canvases`.`canvas_id`),
  `content_bytes` = (SELECT coalesce(sum(v.`size`), 0) FROM `versions` v WHERE v.`canvas_id` = `canvases`.`canvas_id`);--> statement-breakpoint
UPDATE `versions` SET `workspace_id` = (SELECT c.`workspace_id` FROM `canvases` c WHERE c.`canvas_id` = `versions`.`canvas_id`);--> statement-breakpoint
DROP TRIGGER `versions_usage_insert`;--> statement-breakpoint
-- A version written without its workspace (by SQL of someone's own, or a Worker running the code
-- from before) finds it through its canvas, as before.
CREATE TRIGGER `versions_usage_insert` AFTER INSERT ON `versions` BEGIN
  UPDATE `workspace_usage` SET `versions` = `versions` + 1, `content_bytes` = `content_bytes` + NEW.`size`
  WHERE `workspace_id` = CASE WHEN NEW.`workspace_id` <> '' THEN NEW.`workspace_id`
    ELSE (SELECT `workspace_id` FROM `canvases` WHERE `canvas_id` = NEW.`canvas_id`) END;
  UPDATE `canvases` SET `version_count` = `version_count` + 1, `content_bytes` = `content_bytes` + NEW.`size`
  WHERE `canvas_id` = NEW.`canvas_id`;
END;--> statement-breakpoint
DROP TRIGGER `versions_usage_update`;--> statement-breakpoint
CREATE TRIGGER `versions_usage_update` AFTER UPDATE OF `size` ON `versions`
WHEN OLD.`size` <> NEW.`size` BEGIN
  UPDATE `workspace_usage` SET `content_bytes` = `content_bytes` + NEW.`size` - OLD.`size`
  WHERE `workspace_id` = CASE WHEN NEW.`workspace_id` <> '' THEN NEW.`workspace_id`
    ELSE (SELECT `workspace_id` FROM `canvases` WHERE `canvas_id` = NEW.`canvas_id`) END;
  UPDATE `canvases` SET `content_bytes` = `content_bytes` + NEW.`size` - OLD.`size`
  WHERE `canvas_id` = NEW.`canvas_id`;
END;--> statement-breakpoint
-- Versions leave only with their canvas, whose row says what they counted.
DROP TRIGGER `versions_usage_delete`;--> statement-breakpoint
-- A link names its canvas's workspace too: when its canvas goes (by the sweep, which removes it
-- first, or by the key's SET NULL) it is counted out of that workspace's totals without the
-- canvas row, gone by then. Links written without it find it through their canvas, as before.
ALTER TABLE `share_links` ADD `workspace_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
UPDATE `share_links` SET `workspace_id` =
  coalesce((SELECT c.`workspace_id` FROM `canvases` c WHERE c.`canvas_id` = `share_links`.`canvas_id`), '');--> statement-breakpoint
DROP TRIGGER `share_links_usage_insert`;--> statement-breakpoint
CREATE TRIGGER `share_links_usage_insert` AFTER INSERT ON `share_links`
WHEN NEW.`canvas_id` IS NOT NULL AND (NEW.`max_views` IS NULL OR NEW.`view_count` < NEW.`max_views`)
BEGIN
  UPDATE `workspace_usage` SET `shares` = `shares` + 1
  WHERE NEW.`expires_at` IS NULL
    AND `workspace_id` = CASE WHEN NEW.`workspace_id` <> '' THEN NEW.`workspace_id`
      ELSE (SELECT `workspace_id` FROM `canvases` WHERE `canvas_id` = NEW.`canvas_id`) END;
  INSERT INTO `share_expiries` (`token`, `workspace_id`, `canvas_id`, `expires_at`)
  SELECT NEW.`token`, `workspace_id`, `canvas_id`, NEW.`expires_at` FROM `canvases`
  WHERE NEW.`expires_at` IS NOT NULL AND `canvas_id` = NEW.`canvas_id`;
END;--> statement-breakpoint
DROP TRIGGER `share_links_usage_update`;--> statement-breakpoint
CREATE TRIGGER `share_links_usage_update`
AFTER UPDATE OF `canvas_id`, `max_views`, `view_count`, `expires_at` ON `share_links`
WHEN (OLD.`canvas_id` IS NOT NULL AND (OLD.`max_views` IS NULL OR OLD.`view_count` < OLD.`max_views`))
  <> (NEW.`canvas_id` IS NOT NULL AND (NEW.`max_views` IS NULL OR NEW.`view_count` < NEW.`max_views`))
  OR OLD.`canvas_id` IS NOT NEW.`canvas_id` OR OLD.`expires_at` IS NOT NEW.`expires_at`
BEGIN
  UPDATE `workspace_usage` SET `shares` = `shares` - 1
  WHERE OLD.`canvas_id` IS NOT NULL AND OLD.`expires_at` IS NULL
    AND (OLD.`max_views` IS NULL OR OLD.`view_count` < OLD.`max_views`)
    AND `workspace_id` = CASE WHEN OLD.`workspace_id` <> '' THEN OLD.`workspace_id`
      ELSE (SELECT `workspace_id` FROM `canvases` WHERE `canvas_id` = OLD.`canvas_id`) END;
  DELETE FROM `share_expiries` WHERE `token` = OLD.`token`;
  UPDATE `workspace_usage` SET `shares` = `shares` + 1
  WHERE NEW.`canvas_id` IS NOT NULL AND NEW.`expires_at` IS NULL
    AND (NEW.`max_views` IS NULL OR NEW.`view_count` < NEW.`max_views`)
    AND `workspace_id` = (SELECT `workspace_id` FROM `canvases` WHERE `canvas_id` = NEW.`canvas_id`);
  INSERT INTO `share_expiries` (`token`, `workspace_id`, `canvas_id`, `expires_at`)
  SELECT NEW.`token`, `workspace_id`, `canvas_id`, NEW.`expires_at` FROM `canvases`
  WHERE NEW.`expires_at` IS NOT NULL
    AND (NEW.`max_views` IS NULL OR NEW.`view_count` < NEW.`max_views`)
    AND `canvas_id` = NEW.`canvas_id`;
END;--> statement-breakpoint
DROP TRIGGER `share_links_usage_delete`;--> statement-breakpoint
CREATE TRIGGER `share_links_usage_delete` AFTER DELETE ON `share_links`
WHEN OLD.`canvas_id` IS NOT NULL AND OLD.`expires_at` IS NULL
  AND (OLD.`max_views` IS NULL OR OLD.`view_count` < OLD.`max_views`)
BEGIN
  UPDATE `workspace_usage` SET `shares` = `shares` - 1
  WHERE `workspace_id` = CASE WHEN OLD.`workspace_id` <> '' THEN OLD.`workspace_id`
    ELSE (SELECT `workspace_id` FROM `canvases` WHERE `canvas_id` = OLD.`canvas_id`) END;
END;--> statement-breakpoint
-- The sweep removes a canvas's versions (and its comments, when it has some) before the canvas
-- itself; what its versions counted is on the canvas's row.
DROP TRIGGER `canvases_usage_delete`;--> statement-breakpoint
CREATE TRIGGER `canvases_usage_delete` AFTER DELETE ON `canvases` BEGIN
  UPDATE `workspace_usage` SET `canvases` = `canvases` - 1,
    `temporary` = `temporary` - (OLD.`expires_at` IS NOT NULL),
    `public` = `public` - (OLD.`visibility` = 'public'),
    `versions` = `versions` - OLD.`version_count`,
    `content_bytes` = `content_bytes` - OLD.`content_bytes`
  WHERE `workspace_id` = OLD.`workspace_id`;
END;--> statement-breakpoint
-- The sweep's walk also learns which canvases have comments to remove.
DROP INDEX `canvases_expires_idx`;--> statement-breakpoint
CREATE INDEX `canvases_expires_idx` ON `canvases` (`expires_at`,`canvas_id`,`comment_count`);

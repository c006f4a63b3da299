CREATE TABLE `share_expiries` (
	`token` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`canvas_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`settled` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`token`) REFERENCES `share_links`(`token`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `share_expiries_workspace_idx` ON `share_expiries` (`workspace_id`,`settled`,`expires_at`,`canvas_id`);--> statement-breakpoint
CREATE INDEX `share_expiries_due_idx` ON `share_expiries` (`expires_at`) WHERE settled = 0;--> statement-breakpoint
CREATE TABLE `workspace_usage` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`canvases` integer DEFAULT 0 NOT NULL,
	`temporary` integer DEFAULT 0 NOT NULL,
	`public` integer DEFAULT 0 NOT NULL,
	`versions` integer DEFAULT 0 NOT NULL,
	`content_bytes` integer DEFAULT 0 NOT NULL,
	`files` integer DEFAULT 0 NOT NULL,
	`stored_bytes` integer DEFAULT 0 NOT NULL,
	`shares` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`workspace_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `canvases_workspace_expires_idx` ON `canvases` (`workspace_id`,`expires_at`,`canvas_id`,`visibility`) WHERE expires_at IS NOT NULL;--> statement-breakpoint
-- Written by hand below (drizzle-kit knows no triggers): the counts as the rows stand, then the
-- triggers that keep them so. A row never moves to another workspace or canvas.
INSERT INTO `share_expiries` (`token`, `workspace_id`, `canvas_id`, `expires_at`)
SELECT l.`token`, c.`workspace_id`, l.`canvas_id`, l.`expires_at`
FROM `share_links` l JOIN `canvases` c ON c.`canvas_id` = l.`canvas_id`
WHERE l.`expires_at` IS NOT NULL AND (l.`max_views` IS NULL OR l.`view_count` < l.`max_views`);
--> statement-breakpoint
INSERT INTO `workspace_usage`
  (`workspace_id`, `canvases`, `temporary`, `public`, `versions`, `content_bytes`, `files`,
   `stored_bytes`, `shares`)
SELECT w.`workspace_id`,
  (SELECT count(*) FROM `canvases` c WHERE c.`workspace_id` = w.`workspace_id`),
  (SELECT count(*) FROM `canvases` c
    WHERE c.`workspace_id` = w.`workspace_id` AND c.`expires_at` IS NOT NULL),
  (SELECT count(*) FROM `canvases` c
    WHERE c.`workspace_id` = w.`workspace_id` AND c.`visibility` = 'public'),
  (SELECT count(*) FROM `versions` v JOIN `canvases` c ON c.`canvas_id` = v.`canvas_id`
    WHERE c.`workspace_id` = w.`workspace_id`),
  (SELECT coalesce(sum(v.`size`), 0) FROM `versions` v JOIN `canvases` c ON c.`canvas_id` = v.`canvas_id`
    WHERE c.`workspace_id` = w.`workspace_id`),
  (SELECT count(*) FROM `files` f WHERE f.`workspace_id` = w.`workspace_id` AND f.`status` = 'ready'),
  (SELECT coalesce(sum(f.`size`), 0) FROM `files` f
    WHERE f.`workspace_id` = w.`workspace_id` AND f.`status` = 'ready'),
  (SELECT count(*) FROM `share_links` l JOIN `canvases` c ON c.`canvas_id` = l.`canvas_id`
    WHERE c.`workspace_id` = w.`workspace_id` AND l.`expires_at` IS NULL
      AND (l.`max_views` IS NULL OR l.`view_count` < l.`max_views`))
  + (SELECT count(*) FROM `share_expiries` e WHERE e.`workspace_id` = w.`workspace_id`)
FROM `workspaces` w;
--> statement-breakpoint
CREATE TRIGGER `workspace_usage_create` AFTER INSERT ON `workspaces` BEGIN
  INSERT INTO `workspace_usage` (`workspace_id`) VALUES (NEW.`workspace_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `canvases_usage_insert` AFTER INSERT ON `canvases` BEGIN
  UPDATE `workspace_usage` SET `canvases` = `canvases` + 1,
    `temporary` = `temporary` + (NEW.`expires_at` IS NOT NULL),
    `public` = `public` + (NEW.`visibility` = 'public')
  WHERE `workspace_id` = NEW.`workspace_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `canvases_usage_update` AFTER UPDATE OF `expires_at`, `visibility` ON `canvases`
WHEN (OLD.`expires_at` IS NULL) <> (NEW.`expires_at` IS NULL) OR OLD.`visibility` <> NEW.`visibility`
BEGIN
  UPDATE `workspace_usage`
  SET `temporary` = `temporary` + (NEW.`expires_at` IS NOT NULL) - (OLD.`expires_at` IS NOT NULL),
    `public` = `public` + (NEW.`visibility` = 'public') - (OLD.`visibility` = 'public')
  WHERE `workspace_id` = NEW.`workspace_id`;
END;
--> statement-breakpoint
-- Before: once the row is gone, the cascade's deletes of its versions (and the links it sets to
-- NULL) no longer find its workspace, so its versions and links without an expiry go here, with it.
CREATE TRIGGER `canvases_usage_delete` BEFORE DELETE ON `canvases` BEGIN
  UPDATE `workspace_usage` SET `canvases` = `canvases` - 1,
    `temporary` = `temporary` - (OLD.`expires_at` IS NOT NULL),
    `public` = `public` - (OLD.`visibility` = 'public'),
    `versions` = `versions` - (SELECT count(*) FROM `versions` v WHERE v.`canvas_id` = OLD.`canvas_id`),
    `content_bytes` = `content_bytes`
      - (SELECT coalesce(sum(v.`size`), 0) FROM `versions` v WHERE v.`canvas_id` = OLD.`canvas_id`),
    `shares` = `shares` - (SELECT count(*) FROM `share_links` l
      WHERE l.`canvas_id` = OLD.`canvas_id` AND l.`expires_at` IS NULL
        AND (l.`max_views` IS NULL OR l.`view_count` < l.`max_views`))
  WHERE `workspace_id` = OLD.`workspace_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `versions_usage_insert` AFTER INSERT ON `versions` BEGIN
  UPDATE `workspace_usage` SET `versions` = `versions` + 1,
    `content_bytes` = `content_bytes` + NEW.`size`
  WHERE `workspace_id` = (SELECT `workspace_id` FROM `canvases` WHERE `canvas_id` = NEW.`canvas_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `versions_usage_update` AFTER UPDATE OF `size` ON `versions`
WHEN OLD.`size` <> NEW.`size` BEGIN
  UPDATE `workspace_usage` SET `content_bytes` = `content_bytes` + NEW.`size` - OLD.`size`
  WHERE `workspace_id` = (SELECT `workspace_id` FROM `canvases` WHERE `canvas_id` = NEW.`canvas_id`);
END;
--> statement-breakpoint
-- Finds no workspace when its canvas is being deleted: canvases_usage_delete counted it then.
CREATE TRIGGER `versions_usage_delete` AFTER DELETE ON `versions` BEGIN
  UPDATE `workspace_usage` SET `versions` = `versions` - 1,
    `content_bytes` = `content_bytes` - OLD.`size`
  WHERE `workspace_id` = (SELECT `workspace_id` FROM `canvases` WHERE `canvas_id` = OLD.`canvas_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `files_usage_insert` AFTER INSERT ON `files` WHEN NEW.`status` = 'ready' BEGIN
  UPDATE `workspace_usage` SET `files` = `files` + 1, `stored_bytes` = `stored_bytes` + NEW.`size`
  WHERE `workspace_id` = NEW.`workspace_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `files_usage_update` AFTER UPDATE OF `status`, `size` ON `files`
WHEN (OLD.`status` = 'ready') <> (NEW.`status` = 'ready')
  OR (NEW.`status` = 'ready' AND OLD.`size` <> NEW.`size`)
BEGIN
  UPDATE `workspace_usage`
  SET `files` = `files` + (NEW.`status` = 'ready') - (OLD.`status` = 'ready'),
    `stored_bytes` = `stored_bytes` + (NEW.`status` = 'ready') * NEW.`size`
      - (OLD.`status` = 'ready') * OLD.`size`
  WHERE `workspace_id` = NEW.`workspace_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `files_usage_delete` AFTER DELETE ON `files` WHEN OLD.`status` = 'ready' BEGIN
  UPDATE `workspace_usage` SET `files` = `files` - 1, `stored_bytes` = `stored_bytes` - OLD.`size`
  WHERE `workspace_id` = OLD.`workspace_id`;
END;
--> statement-breakpoint
-- A link counts while it names a canvas and is not used up: one without an expiry here, one with
-- an expiry through its row in share_expiries (whose own triggers count it).
CREATE TRIGGER `share_links_usage_insert` AFTER INSERT ON `share_links`
WHEN NEW.`canvas_id` IS NOT NULL AND (NEW.`max_views` IS NULL OR NEW.`view_count` < NEW.`max_views`)
BEGIN
  UPDATE `workspace_usage` SET `shares` = `shares` + 1
  WHERE NEW.`expires_at` IS NULL
    AND `workspace_id` = (SELECT `workspace_id` FROM `canvases` WHERE `canvas_id` = NEW.`canvas_id`);
  INSERT INTO `share_expiries` (`token`, `workspace_id`, `canvas_id`, `expires_at`)
  SELECT NEW.`token`, `workspace_id`, `canvas_id`, NEW.`expires_at` FROM `canvases`
  WHERE NEW.`expires_at` IS NOT NULL AND `canvas_id` = NEW.`canvas_id`;
END;
--> statement-breakpoint
-- A view changes nothing counted until it uses the link up. A link whose canvas is being deleted
-- finds no workspace: canvases_usage_delete counted it then.
CREATE TRIGGER `share_links_usage_update`
AFTER UPDATE OF `canvas_id`, `max_views`, `view_count`, `expires_at` ON `share_links`
WHEN (OLD.`canvas_id` IS NOT NULL AND (OLD.`max_views` IS NULL OR OLD.`view_count` < OLD.`max_views`))
  <> (NEW.`canvas_id` IS NOT NULL AND (NEW.`max_views` IS NULL OR NEW.`view_count` < NEW.`max_views`))
  OR OLD.`canvas_id` IS NOT NEW.`canvas_id` OR OLD.`expires_at` IS NOT NEW.`expires_at`
BEGIN
  UPDATE `workspace_usage` SET `shares` = `shares` - 1
  WHERE OLD.`expires_at` IS NULL
    AND (OLD.`max_views` IS NULL OR OLD.`view_count` < OLD.`max_views`)
    AND `workspace_id` = (SELECT `workspace_id` FROM `canvases` WHERE `canvas_id` = OLD.`canvas_id`);
  DELETE FROM `share_expiries` WHERE `token` = OLD.`token`;
  UPDATE `workspace_usage` SET `shares` = `shares` + 1
  WHERE NEW.`expires_at` IS NULL
    AND (NEW.`max_views` IS NULL OR NEW.`view_count` < NEW.`max_views`)
    AND `workspace_id` = (SELECT `workspace_id` FROM `canvases` WHERE `canvas_id` = NEW.`canvas_id`);
  INSERT INTO `share_expiries` (`token`, `workspace_id`, `canvas_id`, `expires_at`)
  SELECT NEW.`token`, `workspace_id`, `canvas_id`, NEW.`expires_at` FROM `canvases`
  WHERE NEW.`expires_at` IS NOT NULL
    AND (NEW.`max_views` IS NULL OR NEW.`view_count` < NEW.`max_views`)
    AND `canvas_id` = NEW.`canvas_id`;
END;
--> statement-breakpoint
-- Its row in share_expiries, if any, goes by the foreign key's cascade.
CREATE TRIGGER `share_links_usage_delete` AFTER DELETE ON `share_links`
WHEN OLD.`canvas_id` IS NOT NULL AND OLD.`expires_at` IS NULL
  AND (OLD.`max_views` IS NULL OR OLD.`view_count` < OLD.`max_views`)
BEGIN
  UPDATE `workspace_usage` SET `shares` = `shares` - 1
  WHERE `workspace_id` = (SELECT `workspace_id` FROM `canvases` WHERE `canvas_id` = OLD.`canvas_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `share_expiries_usage_insert` AFTER INSERT ON `share_expiries`
WHEN NOT NEW.`settled` BEGIN
  UPDATE `workspace_usage` SET `shares` = `shares` + 1 WHERE `workspace_id` = NEW.`workspace_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `share_expiries_usage_update` AFTER UPDATE OF `settled` ON `share_expiries`
WHEN OLD.`settled` <> NEW.`settled` BEGIN
  UPDATE `workspace_usage` SET `shares` = `shares` + (NOT NEW.`settled`) - (NOT OLD.`settled`)
  WHERE `workspace_id` = NEW.`workspace_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `share_expiries_usage_delete` AFTER DELETE ON `share_expiries`
WHEN NOT OLD.`settled` BEGIN
  UPDATE `workspace_usage` SET `shares` = `shares` - 1 WHERE `workspace_id` = OLD.`workspace_id`;
END;

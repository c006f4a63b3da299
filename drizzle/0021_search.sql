-- Full-text search (docs/api.md#search): a canvas's title and latest text in `canvas_texts`, and
-- the FTS5 index over it (external content: the text is stored once). Triggers keep the index in
-- step with the table and the table with its canvases, inside the statement that changes them.
CREATE TABLE `canvas_texts` (
	`id` integer PRIMARY KEY NOT NULL,
	`canvas_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`title` text NOT NULL,
	`body` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `canvas_texts_canvas_id_unique` ON `canvas_texts` (`canvas_id`);--> statement-breakpoint
CREATE VIRTUAL TABLE `canvas_search` USING fts5(
  `workspace_id`, `title`, `body`, `canvas_id` UNINDEXED,
  content='canvas_texts', content_rowid='id',
  tokenize='porter unicode61 remove_diacritics 2'
);--> statement-breakpoint
-- Best match first: a title's words weigh ten times the text's; the workspace's term, nothing.
INSERT INTO `canvas_search` (`canvas_search`, `rank`) VALUES ('rank', 'bm25(0.0, 10.0, 1.0, 0.0)');--> statement-breakpoint
CREATE TRIGGER `canvas_texts_insert` AFTER INSERT ON `canvas_texts` BEGIN
  INSERT INTO `canvas_search` (rowid, `workspace_id`, `title`, `body`, `canvas_id`)
  VALUES (NEW.`id`, NEW.`workspace_id`, NEW.`title`, NEW.`body`, NEW.`canvas_id`);
END;--> statement-breakpoint
CREATE TRIGGER `canvas_texts_delete` AFTER DELETE ON `canvas_texts` BEGIN
  INSERT INTO `canvas_search` (`canvas_search`, rowid, `workspace_id`, `title`, `body`, `canvas_id`)
  VALUES ('delete', OLD.`id`, OLD.`workspace_id`, OLD.`title`, OLD.`body`, OLD.`canvas_id`);
END;--> statement-breakpoint
CREATE TRIGGER `canvas_texts_update` AFTER UPDATE ON `canvas_texts` BEGIN
  INSERT INTO `canvas_search` (`canvas_search`, rowid, `workspace_id`, `title`, `body`, `canvas_id`)
  VALUES ('delete', OLD.`id`, OLD.`workspace_id`, OLD.`title`, OLD.`body`, OLD.`canvas_id`);
  INSERT INTO `canvas_search` (rowid, `workspace_id`, `title`, `body`, `canvas_id`)
  VALUES (NEW.`id`, NEW.`workspace_id`, NEW.`title`, NEW.`body`, NEW.`canvas_id`);
END;--> statement-breakpoint
-- A renamed canvas is found by its new title; a removed one (the sweep) by nothing.
CREATE TRIGGER `canvases_search_title` AFTER UPDATE OF `title` ON `canvases`
WHEN NEW.`title` IS NOT OLD.`title` BEGIN
  UPDATE `canvas_texts` SET `title` = NEW.`title` WHERE `canvas_id` = NEW.`canvas_id`;
END;--> statement-breakpoint
CREATE TRIGGER `canvases_search_delete` AFTER DELETE ON `canvases` BEGIN
  DELETE FROM `canvas_texts` WHERE `canvas_id` = OLD.`canvas_id`;
END;--> statement-breakpoint
-- Canvases made before search are found by their titles; their text joins at their next version.
INSERT INTO `canvas_texts` (`canvas_id`, `workspace_id`, `title`, `body`)
SELECT `canvas_id`, `workspace_id`, `title`, '' FROM `canvases`
WHERE `expires_at` IS NULL OR `expires_at` > CAST(unixepoch('subsec') * 1000 AS INTEGER);

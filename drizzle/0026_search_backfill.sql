-- Canvases published before search were given an entry with their title and no text (0021). Their
-- text is read by the sweep, or by their workspace's next search (domain/search/backfill.ts): each
-- entry still without a body is marked so, and found by this index until it is read. So is each
-- entry with Chinese, Japanese or Korean text, read again so that its words are found inside
-- their sentences (domain/search/cjk.ts), and each Markdown file's and notebook's, read again as
-- the words a reader sees, without markup (a snippet shows them).
ALTER TABLE `canvas_texts` ADD `text_pending` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `canvas_texts_pending_idx` ON `canvas_texts` (`workspace_id`) WHERE text_pending = 1;--> statement-breakpoint
UPDATE `canvas_texts` SET `text_pending` = 1
WHERE `body` = '' OR `body` GLOB '*[⺀-鿿가-힯豈-﫿]*'
  OR `canvas_id` IN (SELECT `canvas_id` FROM `canvases` WHERE `ext` IN ('md', 'markdown', 'ipynb'));

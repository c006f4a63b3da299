-- Webhooks that leave out the events of the credential that made them (docs/comments-and-webhooks.md).
ALTER TABLE `webhooks` ADD `created_by` text;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `exclude_self` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- Replies are announced as comment.replied from now on: a webhook that heard them as
-- comment.created keeps hearing them.
UPDATE `webhooks` SET `events` = json_insert(`events`, '$[#]', 'comment.replied')
WHERE EXISTS (SELECT 1 FROM json_each(`webhooks`.`events`) WHERE value = 'comment.created')
  AND NOT EXISTS (SELECT 1 FROM json_each(`webhooks`.`events`) WHERE value = 'comment.replied');

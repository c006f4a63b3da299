ALTER TABLE `comments` ADD `author_user_id` text;--> statement-breakpoint
ALTER TABLE `comments` ADD `author_public_name` text;--> statement-breakpoint
ALTER TABLE `comments` ADD `request_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `comments_request_key_idx` ON `comments` (`canvas_id`,`request_key`) WHERE request_key IS NOT NULL;--> statement-breakpoint
ALTER TABLE `oauth_grants` ADD `subject` text;--> statement-breakpoint
ALTER TABLE `users` ADD `display_name` text;
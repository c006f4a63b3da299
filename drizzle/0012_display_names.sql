ALTER TABLE `comments` ADD `author_user_id` text;--> statement-breakpoint
ALTER TABLE `comments` ADD `author_public_name` text;--> statement-breakpoint
ALTER TABLE `users` ADD `display_name` text;
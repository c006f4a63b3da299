CREATE TABLE `invites` (
	`invite_id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`role` text NOT NULL,
	`email` text,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`used_by` text,
	`revoked_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`workspace_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invites_token_idx` ON `invites` (`token_hash`);--> statement-breakpoint
CREATE INDEX `invites_workspace_idx` ON `invites` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `invites_expires_idx` ON `invites` (`expires_at`);--> statement-breakpoint
CREATE TABLE `members` (
	`workspace_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	`joined_at` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `user_id`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`workspace_id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`user_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `members_user_idx` ON `members` (`user_id`,`joined_at`);--> statement-breakpoint
CREATE INDEX `members_role_idx` ON `members` (`workspace_id`,`role`);--> statement-breakpoint
CREATE INDEX `members_workspace_idx` ON `members` (`workspace_id`,`joined_at`,`user_id`,`role`);--> statement-breakpoint
-- Every key and grant so far is its workspace's owner's (api_keys.role says why it is there).
ALTER TABLE `api_keys` ADD `role` text DEFAULT 'owner' NOT NULL;--> statement-breakpoint
ALTER TABLE `oauth_grants` ADD `role` text DEFAULT 'owner' NOT NULL;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `personal` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- Every workspace so far is its owner's personal one, and its owner its one member: keys, grants,
-- sessions, canvases and links go on working as they did.
UPDATE `workspaces` SET `personal` = 1;--> statement-breakpoint
INSERT INTO `members` (`workspace_id`, `user_id`, `role`, `joined_at`)
SELECT `workspace_id`, `owner_user_id`, 'owner', `created_at` FROM `workspaces`;

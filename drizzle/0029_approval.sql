-- Approval that gates what readers see (docs/reviews.md): every canvas's JSON shows its approved
-- version, so the lists' covering indexes hold it (a page of a list is still read from one index);
-- a link may follow approval, a workspace may require it of every link and public page, and the
-- dashboard finds the reviews pending in a workspace by their index.
DROP INDEX `canvases_workspace_created_idx`;--> statement-breakpoint
DROP INDEX `canvases_workspace_updated_idx`;--> statement-breakpoint
CREATE INDEX `canvases_workspace_created_idx` ON `canvases` (`workspace_id`,`created_at`,`canvas_id`,`expires_at`,`visibility`,`ext`,`owner_user_id`,`title`,`renderer_id`,`version`,`updated_at`,`size`,`approved_version`);--> statement-breakpoint
CREATE INDEX `canvases_workspace_updated_idx` ON `canvases` (`workspace_id`,`updated_at`,`canvas_id`,`expires_at`,`visibility`,`ext`,`owner_user_id`,`title`,`renderer_id`,`version`,`created_at`,`size`,`approved_version`);--> statement-breakpoint
ALTER TABLE `share_links` ADD `follow_approved` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `require_review` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `reviews_workspace_pending_idx` ON `reviews` (`workspace_id`,`created_at`) WHERE state = 'pending';
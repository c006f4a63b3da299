-- The uploads under way of each workspace, with their sizes: a storage quota counts them beside
-- what the workspace stores, from this index alone.
CREATE INDEX `files_pending_idx` ON `files` (`workspace_id`,`touched_at`,`size`) WHERE status = 'pending';

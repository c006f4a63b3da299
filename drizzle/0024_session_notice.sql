-- What a session's next page says when its person was removed from its workspace (docs/teams.md).
ALTER TABLE `sessions` ADD `left_workspace` text;

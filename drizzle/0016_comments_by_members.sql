-- A comment by the workspace's people is signed `member` now that a workspace has many
-- (docs/teams.md): `owner` was the word when it had one. The kind is only ever shown and filtered.
UPDATE `comments` SET `author_kind` = 'member' WHERE `author_kind` = 'owner';

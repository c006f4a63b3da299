-- A deleted canvas's last change is the instant it was deleted, as its expiry is: how the sweep
-- tells a deletion from an expiry without reading the audit log (domain/sweep.ts). Canvases
-- deleted before, not yet removed by the sweep, are marked so: those whose deletion the log holds.
UPDATE `canvases` SET `updated_at` = `expires_at`
WHERE `expires_at` IS NOT NULL AND `updated_at` < `expires_at` AND EXISTS (
  SELECT 1 FROM `audit_events`
  WHERE `audit_events`.`workspace_id` = `canvases`.`workspace_id`
    AND `audit_events`.`target_id` = `canvases`.`canvas_id`
    AND `audit_events`.`action` = 'canvas.deleted'
);

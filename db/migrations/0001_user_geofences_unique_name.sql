DROP INDEX `user_geofences_koji_name_idx` ON `user_geofences`;--> statement-breakpoint
ALTER TABLE `user_geofences` ADD CONSTRAINT `user_geofences_koji_name_unique` UNIQUE(`koji_name`);
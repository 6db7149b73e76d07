CREATE TABLE `shared_sets` (
	`token` varbinary(32) NOT NULL,
	`owner_user_id` varchar(255) NOT NULL,
	`title` varchar(100) NOT NULL,
	`display_name` varchar(40),
	`snapshot_json` json NOT NULL,
	`alarm_count` int NOT NULL,
	`search_text` varchar(2000) NOT NULL DEFAULT '',
	`expires_at` datetime(6),
	`copies` int NOT NULL DEFAULT 0,
	`hidden` boolean NOT NULL DEFAULT false,
	`in_catalogue` boolean NOT NULL DEFAULT false,
	`created_at` datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
	CONSTRAINT `shared_sets_token` PRIMARY KEY(`token`)
);
--> statement-breakpoint
CREATE INDEX `shared_sets_owner_idx` ON `shared_sets` (`owner_user_id`);--> statement-breakpoint
CREATE INDEX `shared_sets_catalogue_idx` ON `shared_sets` (`in_catalogue`,`hidden`,`copies`);
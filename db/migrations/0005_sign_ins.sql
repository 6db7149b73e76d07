CREATE TABLE `sign_ins` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`user_id` varchar(255) NOT NULL,
	`method` varchar(20) NOT NULL,
	`at` datetime(6) NOT NULL,
	CONSTRAINT `sign_ins_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE INDEX `sign_ins_at_idx` ON `sign_ins` (`at`);--> statement-breakpoint
CREATE INDEX `sign_ins_user_at_idx` ON `sign_ins` (`user_id`,`at`);
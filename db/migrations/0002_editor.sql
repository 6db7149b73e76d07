CREATE TABLE `alarm_defaults` (
	`user_id` varchar(255) NOT NULL,
	`distance` int,
	`clean` int,
	`template` varchar(256),
	`updated_at` datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
	CONSTRAINT `alarm_defaults_user_id` PRIMARY KEY(`user_id`)
);

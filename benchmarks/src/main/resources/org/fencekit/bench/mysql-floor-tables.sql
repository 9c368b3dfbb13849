-- The floor's tables (SqlFloor) on MySQL / MariaDB, as pg-floor-tables.sql: fencekit's data with
-- the store's column types (V1__fencekit_tables.sql of store-mysql), the primary keys only.
CREATE TABLE IF NOT EXISTS floor_orders (
  session_id        VARBINARY(1020) NOT NULL PRIMARY KEY,
  product_id        VARCHAR(255)    CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  quantity          INT             NOT NULL,
  customer_email    VARCHAR(320)    CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  amount_total      BIGINT          NOT NULL,
  currency          VARCHAR(3)      CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  status            VARCHAR(11)     CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  provider_order_id VARBINARY(1020),
  item_payload      MEDIUMTEXT      CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  fence             BIGINT          NOT NULL,
  claim_nonce       VARBINARY(32),
  lease_expires_at  BIGINT,
  settled_fence     BIGINT,
  settled_nonce     VARBINARY(32),
  updated_at        BIGINT          NOT NULL
) ENGINE = InnoDB;
CREATE TABLE IF NOT EXISTS floor_orphans (
  session_id        VARBINARY(1020) NOT NULL,
  claim_fence       BIGINT          NOT NULL,
  claim_nonce       VARBINARY(32)   NOT NULL,
  provider_order_id VARBINARY(1020) NOT NULL,
  item_payload      MEDIUMTEXT      CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  recorded_at       BIGINT          NOT NULL,
  PRIMARY KEY (session_id, claim_fence, claim_nonce, provider_order_id)
) ENGINE = InnoDB;
